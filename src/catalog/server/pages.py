"""The web UI: pages rendered from the package's Jinja2 templates
(:mod:`catalog.server.templating`), with one small script and one style sheet, both
served from the package (no CDN, nothing fetched from elsewhere).

Catalogs and versions; a version's parts with a bar per part for its token
share; a playground that assembles as you change the form; a diff page with
new, removed, renamed and rewritten parts first and minor changes folded (or
one part's change alone); a token-history chart and a search of every
version's parts; and dispatch's full-page template editor. Each route gathers
what its page shows and hands it to its template; no HTML is written here.
The part pages are in :mod:`catalog.server.history_pages`, the releases' in
:mod:`catalog.server.release_pages`.
"""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from catalog.changes import (
    CatalogDiff,
    PartDiff,
    diff,
    render_html,
)
from catalog.changes.history import KINDS, MAX_QUERY_LENGTH
from catalog.errors import UsageError
from catalog.html import stylesheet
from catalog.server.charts import token_chart
from catalog.server.deps import State
from catalog.server.errors import public
from catalog.server.headers import FRAMED_HEADERS
from catalog.server.history_pages import search
from catalog.server.library import describe
from catalog.server.state import ServerState
from catalog.server.templating import page

__all__ = ["change_class", "router"]

router = APIRouter(include_in_schema=False)

_STATIC = {"app.js": "text/javascript", "style.css": "text/css"}
_NEWEST = 5  # versions the home page names per catalog, newest first
_CONTEXT = '{"env": {"cwd": "/home/user/project", "os": "Linux"}}'  # the playground's first
_PLAYGROUND = "coding-agent"  # the catalog the playground opens on, when the path has it
RefQuery = Annotated[str, Query(min_length=1, max_length=200)]
PartQuery = Annotated[
    str | None, Query(max_length=200, description="one part's id: its change alone")
]


@router.get("/static/{name}")
def static(name: str) -> Response:
    """The UI's script and style sheet, from the package."""
    if name == "diff.css":  # the diff report's, shared with `catalog diff --format html`
        text = str(stylesheet(name))
    elif name in _STATIC:
        text = resources.files("catalog.server").joinpath("static", name).read_text("utf-8")
    else:
        return Response("not found", status_code=404, media_type="text/plain")
    media = _STATIC.get(name, "text/css")
    return Response(text, media_type=media, headers={"Cache-Control": "max-age=300"})


@router.get("/", response_class=HTMLResponse)
def home(request: Request, state: State) -> HTMLResponse:
    """Every catalog with its number of versions and its newest ones; a catalog whose
    versions cannot be listed shows why."""
    rows = []
    for entry in state.library.catalogs():
        newest = entry.versions[::-1][:_NEWEST]
        problem = None if entry.problem is None else public(entry.problem.message, state)
        rows.append(
            {
                "name": entry.name,
                "count": len(entry.versions),
                "newest": newest,
                "older": len(entry.versions) - len(newest),
                "problem": problem,
            }
        )
    return page(request, "home.html", {"page": "home", "catalogs": rows})


@router.get("/catalogs/{name}", response_class=HTMLResponse)
def catalog_page(
    name: str,
    request: Request,
    state: State,
    q: Annotated[str | None, Query(max_length=MAX_QUERY_LENGTH)] = None,
    pattern: bool = False,
    ignore_case: bool = False,
    kind: Annotated[str | None, Query(max_length=20)] = None,
) -> HTMLResponse:
    """A catalog's versions, its token history, a form to diff two versions and a search
    of its parts in every version (``q``: plain text, or with ``pattern`` a ``*``
    wildcard within a line; a query that cannot be used is said on the page, a 400)."""
    rows = state.library.versions(name)
    versions = [row["version"] for row in rows]
    chart = token_chart(
        versions,
        [r["tokens"] for r in rows],
        [r["reference_tokens"] for r in rows],
        [r["counter"] for r in rows],
        reference_counter=next(
            (r["reference_counter"] for r in reversed(rows) if r["reference_counter"]), None
        ),
    )
    found = None
    if q:
        history = state.library.history(name)
        found = search(history, q, pattern=pattern, ignore_case=ignore_case, kind=kind or None)
    context = {
        "page": "catalog",
        "name": name,
        "rows": rows,
        "versions": versions,
        "old": versions[-2] if len(versions) > 1 else versions[0],
        "new": versions[-1],
        "token_chart": chart,
        "query": {"q": q or "", "pattern": pattern, "ignore_case": ignore_case, "kind": kind},
        "kinds": KINDS,
        "max_query": MAX_QUERY_LENGTH,
        "found": found,
    }
    status = 400 if found is not None and found["error"] else 200
    return page(request, "catalog.html", context, status=status)


@router.get("/catalogs/{name}/{version}", response_class=HTMLResponse)
def version_page(name: str, version: str, request: Request, state: State) -> HTMLResponse:
    """A version's parts in order, with a bar per part proportional to its tokens (the
    largest part's bar full width) and its share of the total."""
    info = describe(state.library.load(f"{name}@=={version}"))
    tokens = [p["tokens"] for p in info["parts"]]
    context = {
        "page": "version",
        "ref": f"{info['name']}@{info['version']}",
        "info": info,
        "total": sum(tokens),
        "largest": max(tokens, default=0) or 1,
    }
    return page(request, "version.html", context)


def _shown_default(var: dict[str, Any]) -> str:
    """A list or map variable's default as its input shows it (the script reads it back)."""
    default = var["default"]
    return ", ".join(default) if var["type"] == "list" else json.dumps(default)


@router.get("/playground", response_class=HTMLResponse)
def playground(
    request: Request, state: State, catalog: Annotated[str | None, Query(max_length=200)] = None
) -> HTMLResponse:
    """Pick version, agent, tools, variables and a context; the prompt, the explain
    table and the token total follow every change. Without ``catalog``, it opens on the
    bundled catalog that assembles under the first context, not the first by name (an
    imported release may be too long to assemble)."""
    library = state.library
    names = library.names()
    cat = library.load(catalog or (_PLAYGROUND if _PLAYGROUND in names else names[0]))
    info = describe(cat)
    context = {
        "page": "playground",
        "name": cat.name,
        "catalogs": library.names(),
        "versions": [str(r.version) for r in library.catalog_path.versions(cat.name)],
        "version": str(cat.version),
        "agents": info["agents"],
        "tools": info["tools"],
        "variables": [var | {"shown": _shown_default(var)} for var in info["variables"]],
        "context": _CONTEXT,
    }
    return page(request, "playground.html", context)


def change_class(part: PartDiff) -> str:
    """How a part's change reads in a review, from the diff's own classes: NEW, REMOVED,
    RENAMED (the same or nearly the same text under another id), CHANGED (its prose
    differs), ASSEMBLY (same text, assembled differently: order, condition, agents...)
    or minor (whitespace, placeholders or metadata only)."""
    if part.status == "renamed":
        return "RENAMED"
    if part.status == "added":
        return "NEW"
    if part.status == "removed":
        return "REMOVED"
    return {"prose": "CHANGED", "assembly": "ASSEMBLY"}.get(part.change or "", "minor")


def _diff_refs(
    name: str | None, old: str | None, new: str | None, ov: str | None, nv: str | None
) -> tuple[str, str]:
    if old and new:
        return old, new
    if name and ov and nv:
        return f"{name}@=={ov}", f"{name}@=={nv}"
    raise UsageError("name the two versions: /diff?old=NAME@VERSION&new=NAME@VERSION")


def _change(part: PartDiff, kind: str, result: CatalogDiff) -> dict[str, Any]:
    """One line of the diff page: the part's class, names, token deltas and its page
    (in the catalog that has it: the old one for a removed part)."""
    catalog = result.old_name if part.status == "removed" else result.new_name
    return {
        "href": f"/catalogs/{catalog}/parts/{part.id}",
        "kind": kind.lower(),
        "shown": part.change if kind == "minor" else kind,
        "label": part.id if part.name == part.id else f"{part.name} ({part.id})",
        "old_id": part.old_id if kind == "RENAMED" else None,
        "tokens": part.token_delta,
        "reference": part.reference_delta,
    }


@router.get("/diff", response_class=HTMLResponse)
def diff_page(
    request: Request,
    state: State,
    old: Annotated[str | None, Query(max_length=200)] = None,
    new: Annotated[str | None, Query(max_length=200)] = None,
    name: Annotated[str | None, Query(max_length=200)] = None,
    old_version: Annotated[str | None, Query(max_length=100)] = None,
    new_version: Annotated[str | None, Query(max_length=100)] = None,
    part: PartQuery = None,
) -> HTMLResponse:
    """Two versions compared: the token totals (and the reference counter's, where the
    parts carry its figures); what is new, removed, renamed, rewritten and assembled
    differently first, minor changes folded; then the side-by-side report. With
    ``part``, that part's change alone (its id in the newer version, or the id it had
    when removed)."""
    old_ref, new_ref = _diff_refs(name, old, new, old_version, new_version)
    result = _diff(state, old_ref, new_ref, part)
    groups: dict[str, list[dict[str, Any]]] = {
        "NEW": [], "REMOVED": [], "RENAMED": [], "CHANGED": [], "ASSEMBLY": []
    }  # fmt: skip
    minor: list[dict[str, Any]] = []
    for changed in result.changes:
        kind = change_class(changed)
        (minor if kind == "minor" else groups[kind]).append(_change(changed, kind, result))
    title = f"{result.old_label} → {result.new_label}"
    context = {
        "page": "diff",
        "title": title if part is None else f"{title}: {part}",
        "result": result,
        "groups": [(kind, changes) for kind, changes in groups.items() if changes],
        "minor": minor,
        "old": old_ref,
        "new": new_ref,
        "part": part,
    }
    return page(request, "diff.html", context)


def _diff(state: ServerState, old: str, new: str, part: str | None = None) -> CatalogDiff:
    """The diff of two versions; with ``part``, narrowed to that part's change (the
    catalog's settings, variables and agents left out)."""
    result = diff(state.library.load(old), state.library.load(new))
    if part is None:
        return result
    parts = tuple(p for p in result.parts if p.id == part)
    return dataclasses.replace(result, parts=parts, settings=(), variables=(), agents=())


@router.get("/diff/report", response_class=HTMLResponse)
def diff_report(state: State, old: RefQuery, new: RefQuery, part: PartQuery = None) -> HTMLResponse:
    """The HTML report of ``catalog diff --format html``: side-by-side text per part (or
    of ``part`` alone), shown in a frame of the diff and part pages (this server's
    pages alone may frame it)."""
    report = render_html(_diff(state, old, new, part), stylesheet_url="/static/diff.css")
    return HTMLResponse(report, headers=FRAMED_HEADERS)


@router.get("/editor", response_class=HTMLResponse)
def editor(request: Request, state: State) -> HTMLResponse:
    """dispatch's template editor: a full-page modal with a text editor, a button per
    variable inserting ``[type:name]`` at the cursor, a preview and Save (PUT); closed,
    the page shows the template and its preview."""
    catalog = state.library.template_catalog(state.settings.template_catalog)
    context = {
        "page": "editor",
        "ref": f"{catalog.name}@{catalog.version}",
        "needs_token": state.settings.token is not None,
    }
    return page(request, "editor.html", context)
