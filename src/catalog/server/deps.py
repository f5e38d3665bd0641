"""Dependencies the routes share: the server state, the token that writes and a
conversation's reads need, and the one check of every text a request carries."""

from __future__ import annotations

import contextlib
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from catalog.schema.text import text_problem
from catalog.server.state import ServerState

__all__ = ["Reader", "State", "Writer", "checked_text", "server_state"]

_bearer = HTTPBearer(auto_error=False, description="The token given to `catalog serve --token`")
_Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def server_state(request: Request) -> ServerState:
    """The state of the application serving ``request``."""
    state: ServerState = request.app.state.server
    return state


def _token(request: Request, credentials: _Credentials) -> None:
    settings = server_state(request).settings
    given = credentials.credentials if credentials is not None else None
    if not settings.token_matches(given):
        raise HTTPException(
            status_code=401,
            detail="this server needs `Authorization: Bearer <token>` here",
            headers={"WWW-Authenticate": "Bearer"},
        )


def _writer(request: Request, credentials: _Credentials) -> None:
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
        # A page of another site may not write here, token or not (browsers send Origin).
        raise HTTPException(status_code=403, detail=f"writes from {origin} are refused")
    _token(request, credentials)


async def checked_text(request: Request) -> None:
    """Refuse (422, naming the field) a request whose path, query or JSON body holds a
    text that the stores do not keep alike or that UTF-8 cannot encode: a NUL character
    or a lone surrogate (JSON's ``"\\ud800"``), in any key or value."""
    checks: list[tuple[str, object]] = [("path", request.path_params)]
    for name, value in request.query_params.multi_items():
        checks += [("query", name), (f"query.{name}", value)]
    if await request.body():
        # JSON by now (BodyGuard), parsed by the route already (the result is kept); a
        # route that reads no body may have been sent one that does not parse.
        with contextlib.suppress(ValueError):
            checks.append(("body", await request.json()))
    for where, data in checks:
        problem = text_problem(data, nul=True)
        if problem is not None:
            inner = problem.where
            field = where + ("." if inner and not inner.startswith("[") else "") + inner
            error = {"type": "text", "loc": (field,), "msg": problem.message}
            raise RequestValidationError([{**error, "ctx": {"hint": problem.hint}}])


State = Annotated[ServerState, Depends(server_state)]
"""A route parameter receiving the server state."""

Writer = Depends(_writer)
"""Add to a write route's dependencies: refuses a request from another site's page, or
without the server's token."""

Reader = Depends(_token)
"""Add to the dependencies of a route reading what clients stored (a conversation's
prompt, which may hold their files): refuses a request without the server's token."""
