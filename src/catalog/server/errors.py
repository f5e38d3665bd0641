"""The one shape of every error the server answers, and the handlers that give it.

Every 4xx and 5xx body is ``{"error": {"status", "message", "field", "hint"}}``:
``field`` names what was wrong in the request (``body.context.tools``,
``path.conversation_id``, ``header.content-type``) or is null, ``hint`` says
what to do or is null. A library error is a 4xx with its message (404 not
found, 409 a conversation of another catalog or agent, 400 the rest), an
unreachable store a 503, a request that does not fit the route a 422; no
answer shows a server's folder or a Python class name, and anything
unexpected is a 500 whose details go to the server's log alone.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from catalog.errors import (
    CatalogError,
    ContextError,
    NotFoundError,
    SessionError,
    StoreUnavailableError,
    format_key,
)
from catalog.server.state import ServerState

__all__ = ["HANDLERS", "error_response", "public"]

_log = logging.getLogger("catalog.server")


def error_response(
    status: int,
    message: str,
    *,
    field: str | None = None,
    hint: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """The answer for an error: ``status`` and the one error body."""
    body = {"status": status, "message": message, "field": field, "hint": hint}
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def public(text: str | None, state: ServerState) -> str | None:
    """``text`` with the server's own folders (:attr:`ServerState.private`) cut out."""
    if text:
        for root in state.private:
            text = text.replace(root, "…")
    return text


def _state(request: Request) -> ServerState:
    state: ServerState = request.app.state.server
    return state


def _library_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, CatalogError)
    state = _state(request)
    if isinstance(exc, StoreUnavailableError):
        # Its own message names the database and why it failed: for the log alone.
        _log.warning("the prompt store is unavailable: %s", exc)
        state.store_failed(exc)
        return error_response(
            503,
            "the prompt store is busy or unreachable",
            hint="retry later; the server's log says why",
        )
    if isinstance(exc, NotFoundError):
        status = 404
    elif isinstance(exc, SessionError):
        status = 409
    else:
        status = 400
    field = exc.key
    if isinstance(exc, ContextError):  # only a request's context makes one
        field = "body.context" + (f".{exc.key}" if exc.key else "")
    message = f"{exc.key}: {exc.message}" if exc.key else exc.message
    return error_response(
        status, public(message, state) or "", field=field, hint=public(exc.hint, state)
    )


def _problem(error: Mapping[str, Any]) -> tuple[str, str]:
    """Where and what one of pydantic's (or FastAPI's) validation errors says."""
    loc: Sequence[str | int] = error.get("loc", ())
    message = str(error.get("msg", "not valid")).removeprefix("Value error, ")
    if error.get("type") == "json_invalid":
        # The location is a character offset, which the message gives instead.
        detail = error.get("ctx", {}).get("error", "")
        return "body", f"{message}: {detail} (at character {loc[-1]})"
    return format_key(loc), message


def _invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [_problem(error) for error in exc.errors()]
    if not problems:
        return error_response(422, "the request is not valid")
    message = "; ".join(f"{where}: {what}" for where, what in problems[:5])
    hint = exc.errors()[0].get("ctx", {}).get("hint")
    return error_response(422, message, field=problems[0][0], hint=hint)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return error_response(exc.status_code, str(exc.detail), headers=exc.headers)


def _too_deep(request: Request, exc: Exception) -> JSONResponse:
    return error_response(
        400, "the request body is nested too deeply", field="body", hint="flatten the data"
    )


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    # The traceback is logged by the server; the client learns nothing of the code.
    return error_response(
        500, "the server failed to answer", hint="the server's log says why; retry later"
    )


_Handler = Callable[[Request, Exception], JSONResponse | Awaitable[JSONResponse]]
HANDLERS: tuple[tuple[type[Exception] | int, _Handler], ...] = (
    (CatalogError, _library_error),
    (RequestValidationError, _invalid_request),
    (HTTPException, _http_error),
    (RecursionError, _too_deep),
    (Exception, _unexpected),
)
"""What each kind of exception is answered with: pass each to ``add_exception_handler``."""
