"""``catalog mcp --http``: the MCP server over streamable HTTP, at ``/mcp``.

Bound to this machine alone, a request is answered only when its ``Host`` is this
server's own loopback address and port, and its ``Origin``, when sent, a loopback
origin: a web page whose name was made to point at 127.0.0.1 (DNS rebinding) is
refused (421 or 403). The names are compared whole, never by prefix. With a token,
every request must carry ``Authorization: Bearer TOKEN`` or is answered 401 before
anything else reads it. The SDK bounds a request's body (413), the open sessions (a
new one beyond :data:`MAX_SESSIONS` is answered 503) and how long an idle session
is kept (:data:`SESSION_IDLE_SECONDS`).
"""

from __future__ import annotations

import hmac
import json
import socket
from typing import Any, Final
from urllib.parse import urlsplit

from mcp.server.lowlevel import Server
from starlette.types import ASGIApp, Receive, Scope, Send

from catalog.io.listening import LOOPBACK

__all__ = [
    "MAX_SESSIONS",
    "PATH",
    "SESSION_IDLE_SECONDS",
    "LoopbackGuard",
    "TokenGuard",
    "http_app",
    "serve_http",
]

PATH: Final = "/mcp"
"""Where the MCP endpoint answers."""
MAX_SESSIONS: Final = 100
"""The most MCP sessions open at once: each holds a little memory until it ends."""
SESSION_IDLE_SECONDS: Final = 600
"""How long a session no request has used is kept before it is closed."""

_LOOPBACK_NAMES: Final = frozenset({"127.0.0.1", "localhost", "[::1]"})


async def _refuse(send: Send, status: int, message: str, *extra: tuple[bytes, bytes]) -> None:
    """Answer ``status`` with a JSON body ``{"error": message}``."""
    body = json.dumps({"error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> bytes | None:
    """The value of header ``name``; None when absent, ``b""`` (never a match) when
    sent more than once."""
    values = [value for key, value in scope["headers"] if key == name]
    if len(values) > 1:
        return b""
    return values[0] if values else None


class TokenGuard:
    """Refuse every request without ``Authorization: Bearer <token>`` (401, a JSON
    error saying what is needed); compared in constant time."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            given = _header(scope, b"authorization") or b""
            if scope["type"] != "http" or not hmac.compare_digest(given, self.expected):
                await _refuse(
                    send,
                    401,
                    "this server needs `Authorization: Bearer <token>`",
                    (b"www-authenticate", b"Bearer"),
                )
                return
        await self.app(scope, receive, send)


class LoopbackGuard:
    """Refuse a request whose ``Host`` is not this server's loopback address and
    ``port`` (421), or whose ``Origin`` is not a loopback origin (403): what a
    browser sends for a page of another site, whatever address its name leads to."""

    def __init__(self, app: ASGIApp, port: int) -> None:
        self.app = app
        self.hosts = frozenset(f"{name}:{port}".encode() for name in _LOOPBACK_NAMES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            if _header(scope, b"host") not in self.hosts:
                await _refuse(send, 421, "this server answers only at its own loopback address")
                return
            origin = _header(scope, b"origin")
            if origin is not None and not _loopback_origin(origin):
                await _refuse(send, 403, "this server answers no web page of another site")
                return
        await self.app(scope, receive, send)


def _loopback_origin(origin: bytes) -> bool:
    """Whether ``origin`` is ``http(s)://`` a loopback name with at most a port."""
    try:
        parts = urlsplit(origin.decode("ascii"))
        port = parts.port
    except (UnicodeDecodeError, ValueError):
        return False
    netloc = parts.netloc.removesuffix(f":{port}") if port is not None else parts.netloc
    return (
        parts.scheme in ("http", "https")
        and netloc in _LOOPBACK_NAMES
        and not (parts.path or parts.query or parts.fragment)
    )


def http_app(server: Server[Any], *, host: str, port: int, token: str | None) -> ASGIApp:
    """The ASGI application serving ``server`` at :data:`PATH` on ``host``:``port``,
    behind ``token`` if any, and behind :class:`LoopbackGuard` on a loopback address."""
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=PATH,
        host=host,
        max_sessions=MAX_SESSIONS,
        session_idle_timeout=SESSION_IDLE_SECONDS,
    )
    if host in LOOPBACK:
        app = LoopbackGuard(app, port)
    return app if token is None else TokenGuard(app, token)


def serve_http(app: ASGIApp, listening: socket.socket, log_config: dict[str, Any]) -> None:
    """Answer HTTP on ``listening`` with ``app`` until interrupted."""
    import uvicorn

    config = uvicorn.Config(app, log_level="info", log_config=log_config)
    uvicorn.Server(config).run(sockets=[listening])
