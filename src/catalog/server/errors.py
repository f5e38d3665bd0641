"""The one shape of every error the server answers, and the handlers that give it.

Every 4xx and 5xx body is ``{"error": {"status", "message", "field", "hint"}}``:
``field`` names what was wrong in the request (``body.context.tools``,
``path.conversation_id``, ``header.content-type``) or is null, ``hint`` says
what to do or is null. A library error is a 4xx with its message (404 not
found, 409 a conversation of another catalog or agent, 400 the rest), an
unreachable store a 503, a request that does not fit the route a 422; no
answer shows a server's folder or a Python class name, and anything
unexpected is a 500 whose details go to the server's log alone.

A browser asking for a page (a ``GET`` whose ``Accept`` names ``text/html``,
for a page's route or a path no route serves) gets the same status, message
and hint as an HTML page instead (``templates/error.html``); a script, curl
and the API's routes get the JSON body.

:data:`ERROR_RESPONSES` declares that body (:class:`ErrorAnswer`) in the
OpenAPI description for every route's 4xx and 5xx answers, in place of
FastAPI's own 422 body, which this server never sends.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from catalog.errors import (
    OTHERS_SHOWN,
    BadReferenceError,
    CatalogError,
    ContextError,
    NotFoundError,
    SessionError,
    StoreUnavailableError,
    format_key,
)
from catalog.schema import keys_at, problems
from catalog.server.headers import SECURITY_HEADERS
from catalog.server.state import ServerState
from catalog.server.templating import page

__all__ = [
    "ERROR_RESPONSES",
    "HANDLERS",
    "ErrorAnswer",
    "ErrorDetail",
    "error_response",
    "public",
    "public_hint",
]

_log = logging.getLogger("catalog.server")


class ErrorDetail(BaseModel):
    """What went wrong with a request, and what to do."""

    status: int = Field(description="the answer's HTTP status", examples=[422])
    message: str = Field(
        description="what was wrong, in the words a file's writer gets",
        examples=["body.context.tools: must be a list (an array), not a number (3)"],
    )
    field: str | None = Field(
        description="what was wrong in the request (body..., path..., query..., "
        "header.host, header.content-type), or null",
        examples=["body.context.tools"],
    )
    hint: str | None = Field(description="what to do, or null")


class ErrorAnswer(BaseModel):
    """The body of every error answer, 4xx or 5xx."""

    error: ErrorDetail


_ERROR = {"model": ErrorAnswer}
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    422: _ERROR | {"description": "The request does not fit the route: a field missing or "
                   "mistyped, malformed JSON, a NUL character or a lone surrogate in a text"},
    "4XX": _ERROR | {"description": "The request was refused"},
    "5XX": _ERROR | {"description": "The server failed, or its store is busy or unreachable"},
}  # fmt: skip
"""The error answers every route may give, as FastAPI's ``responses`` takes them."""


def error_response(
    status: int,
    message: str,
    *,
    field: str | None = None,
    hint: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """The answer for an error: ``status`` and the one error body."""
    body = ErrorAnswer(error=ErrorDetail(status=status, message=message, field=field, hint=hint))
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


def _answer(
    request: Request,
    status: int,
    message: str,
    *,
    field: str | None = None,
    hint: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse | HTMLResponse:
    """The answer to ``request`` for an error: an HTML page for a browser asking for a
    page, else :func:`error_response` (see the module docstring)."""
    if not _wants_page(request):
        return error_response(status, message, field=field, hint=hint, headers=headers)
    context = {
        "page": "error",
        "status": status,
        "reason": _reason(status),
        "message": message,
        "field": field,
        "hint": hint,
    }
    return page(request, "error.html", context, status=status, headers=dict(headers or {}))


def _reason(status: int) -> str:
    """The reason phrase of ``status`` (``Not Found``), or ``Error`` for an unknown one."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _wants_page(request: Request) -> bool:
    """Whether ``request`` is a browser's for a page: a ``GET`` or ``HEAD`` accepting
    HTML, for a page's route (left out of the OpenAPI description) or for a path no
    route serves."""
    if request.method not in ("GET", "HEAD"):
        return False
    if "text/html" not in request.headers.get("accept", ""):
        return False
    route = request.scope.get("route")
    return route is None or getattr(route, "include_in_schema", True) is False


def public(text: str | None, state: ServerState) -> str | None:
    """``text`` with the server's own folders (:attr:`ServerState.private`) cut out."""
    if text:
        for root in state.private:
            text = text.replace(root, "…")
    return text


_WHERE_CATALOGS_ARE_ADDED = ("--path", "CATALOG_PATH", "paths=")
"""How the command line and Python add folders of catalogs: nothing an HTTP client can do."""


def public_hint(hint: str | None, state: ServerState) -> str | None:
    """``hint`` for an HTTP client: :func:`public`, without the clauses (``;``-separated)
    that tell how to add folders of catalogs, which only the server's operator can."""
    shown = public(hint, state)
    if not shown:
        return None
    kept = [
        clause
        for clause in shown.split("; ")
        if not any(word in clause for word in _WHERE_CATALOGS_ARE_ADDED)
    ]
    return "; ".join(kept) or None


def _state(request: Request) -> ServerState:
    state: ServerState = request.app.state.server
    return state


def _library_error(request: Request, exc: Exception) -> JSONResponse | HTMLResponse:
    assert isinstance(exc, CatalogError)
    state = _state(request)
    if isinstance(exc, StoreUnavailableError):
        # Its own message names the database and why it failed: for the log alone.
        _log.warning("the prompt store is unavailable: %s", exc)
        state.store_failed(exc)
        return _answer(
            request,
            503,
            "the prompt store is busy or unreachable",
            hint="retry later; the server's log says why",
        )
    if isinstance(exc, BadReferenceError):  # written wrong: nothing was looked for
        status = 400
    elif isinstance(exc, NotFoundError):
        status = 404
    elif isinstance(exc, SessionError):
        status = 409
    else:
        status = 400
    field = exc.key
    if isinstance(exc, ContextError):  # only a request's context makes one
        field = "body.context" + (f".{exc.key}" if exc.key else "")
    message = f"{exc.key}: {exc.message}" if exc.key else exc.message
    if exc.others:  # every further problem of the same input, as the command line lists them
        message += "".join(
            f"; {other.key}: {other.message}" if other.key else f"; {other.message}"
            for other in exc.others[:OTHERS_SHOWN]
        )
        if exc.unlisted:
            message += f" (and {exc.unlisted} more problems)"
    return _answer(
        request,
        status,
        public(message, state) or "",
        field=field,
        hint=public_hint(exc.hint, state),
    )


_FIELDS_HINT = "the OpenAPI description (/openapi.json) gives each route's fields"
_CONTEXT_HINT = "see the Context schema in /openapi.json (or `catalog schema context`)"


def _problems(request: Request, exc: RequestValidationError) -> list[tuple[str, str]]:
    """Where and what each of the request's problems is, in the words a TOML writer gets
    (:func:`catalog.schema.problems`): the checks of texts and of JSON come worded, the
    rest are pydantic's errors, placed in the request's body, query, path and headers."""
    worded: list[tuple[str, str]] = []
    raw: list[Any] = []
    for error in exc.errors():
        loc: Sequence[str | int] = error.get("loc", ())
        kind = error.get("type")
        if kind == "text":  # checked_text's, worded already
            worded.append((format_key(loc), str(error.get("msg"))))
        elif kind == "json_invalid":  # the location is a character offset
            detail = error.get("ctx", {}).get("error", "")
            worded.append(("body", f"{error.get('msg')}: {detail} (at character {loc[-1]})"))
        elif tuple(loc) == ("body",) and kind == "missing":
            worded.append(("body", "the request has no body: send a JSON object"))
        else:
            raw.append(error)
    data = {
        "body": exc.body,
        "query": dict(request.query_params),
        "path": request.path_params,
        "header": dict(request.headers),
    }
    worded += [(format_key(p.loc), p.message) for p in problems(raw, data, _allowed(request))]
    return worded


def _allowed(request: Request) -> Callable[[Sequence[str | int]], Collection[str]]:
    """The keys allowed at a key path of the request: those of the route's body model
    under ``body`` (an unknown key then names the closest), none elsewhere."""
    body_field = getattr(request.scope.get("route"), "body_field", None)
    model = getattr(getattr(body_field, "field_info", None), "annotation", None)

    def allowed(path: Sequence[str | int]) -> Collection[str]:
        if not (isinstance(model, type) and issubclass(model, BaseModel)) or path[:1] != ("body",):
            return ()
        return keys_at(model, path[1:])

    return allowed


def _invalid_request(request: Request, exc: Exception) -> JSONResponse | HTMLResponse:
    assert isinstance(exc, RequestValidationError)
    found = _problems(request, exc)
    if not found:
        return _answer(request, 422, "the request is not valid", hint=_FIELDS_HINT)
    message = "; ".join(f"{where}: {what}" for where, what in found[:5])
    field = found[0][0]
    hint = exc.errors()[0].get("ctx", {}).get("hint")
    if hint is None:
        hint = _CONTEXT_HINT if field.startswith("body.context") else _FIELDS_HINT
    return _answer(request, 422, message, field=field, hint=hint)


def _http_error(request: Request, exc: Exception) -> JSONResponse | HTMLResponse:
    """An HTTP error as every error is answered; FastAPI's to a body that is not UTF-8
    (raised from the decoding error) in the project's words."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 400 and isinstance(exc.__cause__, RecursionError):
        return _too_deep(request, exc.__cause__)
    if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeError):
        return error_response(
            400,
            "the request body cannot be read as JSON",
            field="body",
            hint="send a JSON object encoded in UTF-8, with Content-Type: application/json",
        )
    hint = _ROUTES_HINT if exc.status_code in (404, 405) else None
    return _answer(request, exc.status_code, str(exc.detail), hint=hint, headers=exc.headers)


_ROUTES_HINT = "GET /openapi.json lists the routes and the methods each takes"


def _too_deep(request: Request, exc: Exception) -> JSONResponse | HTMLResponse:
    """A body nested too deeply to read (FastAPI's parser reports it as a 400 caused by
    the ``RecursionError``): a 422 naming the body, as any JSON that cannot be read."""
    return _answer(
        request,
        422,
        "body: the JSON is nested too deeply to read",
        field="body",
        hint="send the data less deeply nested: a context is a few levels deep",
    )


def _unexpected(request: Request, exc: Exception) -> JSONResponse | HTMLResponse:
    # The traceback is logged by the server; the client learns nothing of the code. This
    # answer is sent outside every middleware, SecurityHeaders too: it carries them itself.
    return _answer(
        request,
        500,
        "the server failed to answer",
        hint="the server's log says why; retry later",
        headers=SECURITY_HEADERS,
    )


_Answer = JSONResponse | HTMLResponse
_Handler = Callable[[Request, Exception], _Answer | Awaitable[_Answer]]
HANDLERS: tuple[tuple[type[Exception] | int, _Handler], ...] = (
    (CatalogError, _library_error),
    (RequestValidationError, _invalid_request),
    (HTTPException, _http_error),
    (RecursionError, _too_deep),
    (Exception, _unexpected),
)
"""What each kind of exception is answered with: pass each to ``add_exception_handler``."""
