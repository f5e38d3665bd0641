"""``catalog mcp --http``: the MCP server over streamable HTTP, at ``/mcp``.

The SDK's own application answers (with its protection against DNS rebinding when
bound to this machine alone); with a token, every request must carry
``Authorization: Bearer TOKEN`` or is answered 401 before the SDK sees it.
"""

from __future__ import annotations

import hmac
import json
import socket
from typing import Any, Final

from mcp.server.lowlevel import Server
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["PATH", "TokenGuard", "http_app", "serve_http"]

PATH: Final = "/mcp"
"""Where the MCP endpoint answers."""


class TokenGuard:
    """Refuse every HTTP request without ``Authorization: Bearer <token>`` (401, a JSON
    error saying what is needed); compared in constant time."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps(
                    {"error": "this server needs `Authorization: Bearer <token>`"}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: Server[Any], *, host: str, token: str | None) -> ASGIApp:
    """The ASGI application serving ``server`` at :data:`PATH`, behind ``token`` if any."""
    app = server.streamable_http_app(streamable_http_path=PATH, host=host)
    return app if token is None else TokenGuard(app, token)


def serve_http(app: ASGIApp, listening: socket.socket, log_config: dict[str, Any]) -> None:
    """Answer HTTP on ``listening`` with ``app`` until interrupted."""
    import uvicorn

    config = uvicorn.Config(app, log_level="info", log_config=log_config)
    uvicorn.Server(config).run(sockets=[listening])
