"""Dependencies the routes share: the server state, and the token every write needs."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from catalog.server.state import ServerState

__all__ = ["State", "Writer", "server_state"]

_bearer = HTTPBearer(auto_error=False, description="The token given to `catalog serve --token`")


def server_state(request: Request) -> ServerState:
    """The state of the application serving ``request``."""
    state: ServerState = request.app.state.server
    return state


def _writer(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
        # A page of another site may not write here, token or not (browsers send Origin).
        raise HTTPException(status_code=403, detail=f"writes from {origin} are refused")
    settings = server_state(request).settings
    if settings.token is None:
        return
    given = credentials.credentials if credentials is not None else None
    if not settings.token_matches(given):
        raise HTTPException(
            status_code=401,
            detail="this server needs `Authorization: Bearer <token>` for writes",
            headers={"WWW-Authenticate": "Bearer"},
        )


State = Annotated[ServerState, Depends(server_state)]
"""A route parameter receiving the server state."""

Writer = Depends(_writer)
"""Add to a write route's dependencies: refuses a request without the server's token."""
