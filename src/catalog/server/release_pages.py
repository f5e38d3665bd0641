"""The pages of the releases: every release as it stands, and one release with its
history and a rollback button.

The pages are at ``/ui/releases`` (``/releases`` is the JSON API they sit
beside). They read the store as the API does, at each request. The rollback
button is the page's script calling ``POST /releases/{label}/rollback``, a write
like any other: the same-origin check, the token when the server has one (the
page asks for it), and a refusal's message shown on the page.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse

from catalog.conversations.base import Release, check_label
from catalog.server.deps import State
from catalog.server.releases import releases_of
from catalog.server.templating import page

__all__ = ["rollback_action", "router"]

router = APIRouter(include_in_schema=False)

Label = Annotated[str, Path(min_length=1, max_length=100)]


def _row(release: Release) -> dict[str, Any]:
    """A release as the pages show it: its target, its canary's share, and its change
    (number, action, who, and when in UTC)."""
    changed = datetime.datetime.fromtimestamp(release.changed, tz=datetime.UTC)
    canary = release.target.canary
    return {
        "label": release.label,
        "catalog": release.target.catalog,
        "version": release.target.version,
        "canary": canary,
        "percent": None if canary is None else f"{canary.percent:g}",
        "change": release.number,
        "action": release.action,
        "who": release.who,
        "when": changed.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "iso": changed.isoformat(timespec="seconds"),
    }


def _canary(row: dict[str, Any]) -> str:
    canary = row["canary"]
    return "no canary" if canary is None else f"canary {canary.version} for {row['percent']}%"


def rollback_action(current: dict[str, Any], back: dict[str, Any]) -> str:
    """What the rollback button says it will do: put the release's version back, or,
    when the latest change touched the canary alone, the canary only."""
    if current["version"] == back["version"] and current["catalog"] == back["catalog"]:
        if back["canary"] is None:
            return f"Roll back the canary only: remove canary {current['canary'].version}"
        return f"Roll back the canary only: {_canary(back)}"
    also = "" if back["canary"] is None else f", {_canary(back)}"
    return f"Roll back {back['label']} to {back['version']}{also}"


@router.get("/ui/releases", response_class=HTMLResponse)
def releases_page(request: Request, state: State) -> HTMLResponse:
    """Every release, by label: its catalog version, its canary's share and its last
    change."""
    rows = [_row(release) for release in releases_of(state).all()]
    return page(request, "releases.html", {"page": "releases", "releases": rows})


@router.get("/ui/releases/{label}", response_class=HTMLResponse)
def release_page(
    label: Label,
    request: Request,
    state: State,
    done: Annotated[int | None, Query(description="the change the page just made")] = None,
) -> HTMLResponse:
    """A release as it stands, every change newest first, and the rollback button (which
    says what the release goes back to, or that it changed once only); ``done``: the
    rollback the page just made, said while it is the latest change."""
    history = releases_of(state).history(check_label(label, key="path.label"))
    rows = [_row(release) for release in history]
    context = {
        "page": "release",
        "release": rows[-1],
        "history": rows[::-1],
        "back_to": rows[-2] if len(rows) > 1 else None,
        "rollback": rollback_action(rows[-1], rows[-2]) if len(rows) > 1 else None,
        "done": done == rows[-1]["change"],
        "needs_token": state.settings.token is not None,
    }
    return page(request, "release.html", context)
