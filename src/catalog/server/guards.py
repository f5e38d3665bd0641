"""What every request passes before a route sees it, and what every answer carries.

:class:`BodyGuard` reads the body whole within a size and a time bound and
refuses a body that is not JSON; :class:`HostGuard` answers a loopback
server's own host names only; :class:`SecurityHeaders` adds the headers of
:mod:`catalog.server.headers` to every answer.
"""

from __future__ import annotations

import email.message
from collections.abc import Iterable, Mapping

import anyio
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from catalog.server.errors import error_response
from catalog.server.headers import SECURITY_HEADERS

__all__ = ["BodyGuard", "HostGuard", "SecurityHeaders"]


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _is_json(content_type: str) -> bool:
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


class BodyGuard:
    """Read a request's body whole before the application sees it: at most ``limit``
    bytes (413, by Content-Length or as it streams in), arrived within ``seconds`` of
    the request's start (408, however slowly it trickles), and JSON (415)."""

    def __init__(self, app: ASGIApp, limit: int, seconds: float) -> None:
        self.app = app
        self.limit = limit
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # The client may still be sending: these answers close the connection.
        close = {"connection": "close"}
        too_large = error_response(
            413,
            f"the request body is larger than {self.limit} bytes",
            field="body",
            hint="send less: split the context, or leave large files out",
            headers=close,
        )
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await too_large(scope, receive, send)
            return
        body = bytearray()
        with anyio.move_on_after(self.seconds) as timer:
            more = True
            while more:
                message = await receive()
                if message["type"] != "http.request":  # the client went away
                    return
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > self.limit:
                    await too_large(scope, receive, send)
                    return
        if timer.cancelled_caught:
            slow = error_response(
                408,
                f"the request body did not arrive within {self.seconds:g} seconds",
                field="body",
                hint="send the whole body at once",
                headers=close,
            )
            await slow(scope, receive, send)
            return
        if body:
            content_type = _header(scope, b"content-type")
            if content_type is None or not _is_json(content_type):
                said = "is missing" if content_type is None else f"says {content_type!r}"
                wrong = error_response(
                    415,
                    f"the Content-Type header {said}; the body must be JSON",
                    field="header.content-type",
                    hint="send Content-Type: application/json",
                )
                await wrong(scope, receive, send)
                return
        pending = [{"type": "http.request", "body": bytes(body), "more_body": False}]

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)


class HostGuard:
    """Answer only requests whose ``Host`` is one of ``names`` (any port): a page of
    another site must not reach a loopback server through a DNS name it controls (DNS
    rebinding)."""

    def __init__(self, app: ASGIApp, names: Iterable[str]) -> None:
        self.app = app
        self.names = frozenset(names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = _header(scope, b"host") or ""
            if _host_name(host) not in self.names:
                refused = error_response(
                    400,
                    f"this server answers requests for {', '.join(sorted(self.names))} only, "
                    f"not for {host!r}",
                    field="header.host",
                    hint="reach it as http://127.0.0.1:PORT",
                )
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _host_name(host: str) -> str:
    """The name in a Host header: ``[::1]:8000`` gives ``::1``, ``localhost:8000``
    ``localhost``."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    name, colon, port = host.rpartition(":")
    return name if colon and port.isdigit() and ":" not in name else host


class SecurityHeaders:
    """Add ``headers`` to every answer that does not set them itself (a 500 is sent
    outside every middleware: its handler adds them)."""

    def __init__(self, app: ASGIApp, headers: Mapping[str, str] = SECURITY_HEADERS) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)
