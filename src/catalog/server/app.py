"""The ASGI application of ``catalog serve``: routers, guards, headers, errors and timing.

Every request passes the guards (:mod:`catalog.server.guards`: body size, time and
type, loopback host names) and the one check of its texts
(:func:`~catalog.server.deps.checked_text`); every answer carries the security
headers; every error has the one shape of :mod:`catalog.server.errors`; every
request is timed for ``/metrics``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from fastapi import Depends, FastAPI

from catalog import __version__
from catalog.server import (
    api,
    history_pages,
    metrics,
    pages,
    prompts,
    release_pages,
    releases,
    variant_pages,
)
from catalog.server.deps import checked_text
from catalog.server.errors import ERROR_RESPONSES, HANDLERS
from catalog.server.guards import BodyGuard, HostGuard, SecurityHeaders
from catalog.server.state import LOOPBACK, ServerSettings, ServerState

__all__ = ["SETTINGS_ENV", "app_from_environment", "create_app", "settings_json"]

SETTINGS_ENV: Final = "CATALOG_SERVE_SETTINGS"
"""The variable through which worker processes receive the server's settings."""


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
        dependencies=[Depends(checked_text)],
        responses=ERROR_RESPONSES,
    )
    app.state.server = state
    for exc_class, handler in HANDLERS:
        app.add_exception_handler(exc_class, handler)
    app.include_router(prompts.router)
    app.include_router(releases.router)
    app.include_router(metrics.router)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(history_pages.router)
    app.include_router(release_pages.router)
    app.include_router(variant_pages.router)
    # The last added runs first: the timer, headers on every answer, then the host, then
    # the body.
    app.add_middleware(BodyGuard, limit=settings.max_body, seconds=settings.body_timeout)
    if settings.host in LOOPBACK:
        app.add_middleware(HostGuard, names=LOOPBACK)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(metrics.RequestTimer, metrics=state.metrics)
    return app


def settings_json(settings: ServerSettings) -> str:
    """``settings`` as the JSON text :func:`app_from_environment` reads."""
    return json.dumps(dataclasses.asdict(settings))


def app_from_environment() -> FastAPI:
    """The application for the settings in :data:`SETTINGS_ENV` (written by
    :func:`settings_json`): what each worker process of ``catalog serve --workers N``
    builds for itself, named to uvicorn by its import string."""
    data = json.loads(os.environ[SETTINGS_ENV])
    return create_app(ServerSettings(**{**data, "paths": tuple(data["paths"])}))
