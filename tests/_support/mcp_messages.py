"""The JSON-RPC messages a raw MCP client sends first, for the tests that speak the
protocol by hand (over a pipe or HTTP) instead of through the SDK's client."""

from __future__ import annotations

from typing import Any

INIT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
"""The ``initialize`` request that opens a session."""

INITIALIZED: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/initialized"}
"""The notification a client sends once the server has answered ``initialize``."""
