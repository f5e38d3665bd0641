"""The releases API: list the releases, read one with its history, set one, roll one back.

``GET /releases``, ``GET /releases/{label}``, ``PUT /releases/{label}`` with
``{"catalog", "version", "canary": {"version", "percent"} | null}`` and ``POST
/releases/{label}/rollback``. Writes need the token when the server has one,
like every write, and are recorded as made by the server's writer name, a keyed hash
of the token that reveals nothing of it (:func:`who`), or ``local``. A version this
server cannot load is refused (400, naming it). Constructions read a release at most
:data:`~catalog.conversations.releases.RELEASE_CACHE_SECONDS` after it was read
from the store (:func:`releases_of`), so a change through any server of a fleet
is used by every server's constructions from then on.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field

from catalog.conversations.base import Canary, Release, check_label
from catalog.conversations.releases import Releases
from catalog.errors import UsageError
from catalog.server.deps import State, Writer
from catalog.server.state import ServerState

__all__ = ["ReleaseAnswer", "releases_of", "router", "who"]

router = APIRouter(prefix="/releases", tags=["releases"])

Label = Annotated[str, Path(min_length=1, max_length=100, description="e.g. production")]
_Version = Annotated[str, Field(min_length=1, max_length=100, description="e.g. 1.2.0")]


class CanaryBody(BaseModel):
    """Another version of the release's catalog for ``percent`` of new conversations."""

    model_config = ConfigDict(extra="forbid")
    version: _Version
    percent: Annotated[float, Field(gt=0, le=100, allow_inf_nan=False)]


class ReleaseBody(BaseModel):
    """What a release points at: a version of a catalog and maybe a canary."""

    model_config = ConfigDict(extra="forbid")
    catalog: Annotated[str, Field(min_length=1, max_length=100, description="a catalog name")]
    version: _Version
    canary: CanaryBody | None = None


class ReleaseAnswer(BaseModel):
    """A release as change number ``change`` left it: when (``changed``, seconds since
    the epoch), by whom (a writer's name, a keyed hash of a token or ``local``) and how (``set`` or
    ``rollback``)."""

    label: str
    catalog: str
    version: str
    canary: CanaryBody | None
    change: int
    changed: float
    who: str
    action: Literal["set", "rollback"]


class ReleaseWithHistory(ReleaseAnswer):
    """A release as it stands, with every change, oldest first."""

    history: list[ReleaseAnswer]


class ReleaseList(BaseModel):
    """Every release as it stands, by label."""

    releases: list[ReleaseAnswer]


def releases_of(state: ServerState) -> Releases:
    """The releases of the server's store, loading versions from its catalogs and kept
    for constructions in the server's one cache."""
    return Releases(
        state.store(),
        load=lambda name, version: state.library.load(f"{name}@=={version}"),
        cache=state.release_cache,
    )


def who(state: ServerState) -> str:
    """Who a write through this server is recorded as
    (:meth:`~catalog.server.state.ServerSettings.writer_id`): never the token, nor
    anything a reader could test a guess of it against."""
    return state.settings.writer_id()


def _answer(release: Release) -> ReleaseAnswer:
    return ReleaseAnswer.model_validate(release.to_dict())


def _label(label: str) -> str:
    return check_label(label, key="path.label")


@router.get("")
def list_releases(state: State) -> ReleaseList:
    """Every release as it stands, by label."""
    return ReleaseList(releases=[_answer(r) for r in releases_of(state).all()])


@router.get("/{label}")
def get_release(label: Label, state: State) -> ReleaseWithHistory:
    """A release as it stands and its history (404 for an unknown label)."""
    history = releases_of(state).history(_label(label))
    current = _answer(history[-1])
    return ReleaseWithHistory(**current.model_dump(), history=[_answer(r) for r in history])


@router.put("/{label}", dependencies=[Writer])
def set_release(label: Label, body: ReleaseBody, state: State) -> ReleaseAnswer:
    """Point a release at a version and maybe a canary (no canary: none), as its next
    change; 400 naming a version this server cannot load, 409 for another catalog
    than the release's."""
    label = _label(label)
    canary = None if body.canary is None else Canary(body.canary.version, body.canary.percent)
    releases = releases_of(state)
    try:
        release = releases.set(label, body.catalog, body.version, canary, who=who(state))
    except UsageError as exc:  # placed in the body the client sent
        key = None if exc.key is None else f"body.{exc.key}"
        raise UsageError(exc.message, key=key, hint=exc.hint) from None
    return _answer(release)


@router.post("/{label}/rollback", dependencies=[Writer])
def rollback_release(label: Label, state: State) -> ReleaseAnswer:
    """Put a release back as it was before its latest change, as a change of its own
    (404 unknown, 409 when it changed once only)."""
    return _answer(releases_of(state).rollback(_label(label), who=who(state)))
