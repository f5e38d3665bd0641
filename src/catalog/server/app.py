"""The ASGI application of ``catalog serve``: routers, limits, and errors as JSON.

Every library error becomes a 4xx with its message (404 not found, 409 a
conversation of another catalog or agent, 400 the rest), an unreachable
store a 503, a body over the limit a 413, malformed JSON or a missing field
a 422 naming the field: never a 500 for bad input.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from catalog import __version__
from catalog.errors import CatalogError, NotFoundError, SessionError, StoreUnavailableError
from catalog.server import api, pages, prompts
from catalog.server.state import LOOPBACK, ServerSettings, ServerState

__all__ = ["create_app"]


class _BodyLimit:
    """Refuse bodies over ``limit`` bytes (413), by their Content-Length or as they stream
    in; a body within the limit is read whole and handed on."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = _json_error(413, f"the request body is larger than {self.limit} bytes")
        for key, value in scope.get("headers", ()):
            if key == b"content-length" and value.isdigit() and int(value) > self.limit:
                await too_large(scope, receive, send)
                return
        body = bytearray()
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
        pending = [{"type": "http.request", "body": bytes(body), "more_body": False}]

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)


def _json_error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def _library_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, CatalogError)
    if isinstance(exc, StoreUnavailableError):
        status = 503
    elif isinstance(exc, NotFoundError):
        status = 404
    elif isinstance(exc, SessionError):
        status = 409
    else:
        status = 400
    message = f"{exc.key}: {exc.message}" if exc.key else exc.message
    return _json_error(status, message, detail=str(exc), hint=exc.hint)


def _invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error.get("loc", ()))
        problems.append(f"{where}: {error.get('msg', 'invalid')}")
    message = "; ".join(problems[:5]) or "the request is not valid"
    return _json_error(422, message, detail=problems)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return JSONResponse(
        {"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers
    )


def _too_deep(request: Request, exc: Exception) -> JSONResponse:
    return _json_error(400, "the request body is nested too deeply")


_Handler = Callable[[Request, Exception], JSONResponse | Awaitable[JSONResponse]]
_HANDLERS: tuple[tuple[type[Exception], _Handler], ...] = (
    (CatalogError, _library_error),
    (RequestValidationError, _invalid_request),
    (HTTPException, _http_error),
    (RecursionError, _too_deep),
)


def create_app(settings: ServerSettings | None = None) -> FastAPI:
    """The application for ``settings`` (defaults: loopback, the default SQLite store)."""
    settings = settings or ServerSettings()
    state = ServerState(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        state.close()

    app = FastAPI(
        title="prompt-catalog",
        version=__version__,
        summary="Catalogs, assembled prompts, per-conversation prompts and user templates.",
        lifespan=lifespan,
        # FastAPI's documentation pages load scripts from a CDN: the description alone
        # is served (/openapi.json), for any OpenAPI viewer.
        docs_url=None,
        redoc_url=None,
    )
    app.state.server = state
    for exc_class, handler in _HANDLERS:
        app.add_exception_handler(exc_class, handler)
    app.include_router(prompts.router)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.add_middleware(_BodyLimit, limit=settings.max_body)
    if settings.host in LOOPBACK:
        # A page on another site must not reach a loopback server through a DNS name it
        # controls (DNS rebinding): only loopback host names are answered.
        app.add_middleware(
            TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost", "[::1]", "::1"]
        )
    return app
