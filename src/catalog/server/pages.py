"""The web UI: server-rendered pages with one small script and one style sheet, both
served from the package (no CDN, nothing fetched from elsewhere).

Catalogs and versions; a version's parts with a bar per part for its token
share; a playground that assembles as you change the form; a diff page with
new, removed, renamed and rewritten parts first and minor changes folded; a
token-history chart; and dispatch's full-page template editor.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response

from catalog.changes import (
    CatalogDiff,
    PartDiff,
    diff,
    render_html,
)
from catalog.changes.render import (
    HTML_STYLE,
)
from catalog.errors import UsageError
from catalog.server.deps import State
from catalog.server.headers import framed_policy
from catalog.server.library import describe
from catalog.server.state import ServerState

__all__ = ["change_class", "router", "token_chart"]

router = APIRouter(include_in_schema=False)

_STATIC = {"app.js": "text/javascript", "style.css": "text/css"}
_REPORT_HEADERS = framed_policy(
    "sha256-" + base64.b64encode(hashlib.sha256(HTML_STYLE.encode()).digest()).decode()
)
_esc = html.escape
RefQuery = Annotated[str, Query(min_length=1, max_length=200)]


def _page(title: str, body: str, *, page: str, data: dict[str, str] | None = None) -> HTMLResponse:
    attrs = "".join(f' data-{k}="{_esc(v)}"' for k, v in (data or {}).items())
    return HTMLResponse(
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)} · prompt-catalog</title>"
        '<link rel=icon href="data:,"><link rel=stylesheet href="/static/style.css">'
        f'</head><body data-page="{page}"{attrs}>'
        '<nav><a href="/">Catalogs</a> <a href="/playground">Playground</a> '
        '<a href="/editor">Template editor</a> <a href="/openapi.json">OpenAPI</a></nav>'
        f"<main>{body}</main>"
        '<script src="/static/app.js"></script></body></html>'
    )


@router.get("/static/{name}")
def static(name: str) -> Response:
    """The UI's script and style sheet, from the package."""
    if name not in _STATIC:
        return Response("not found", status_code=404, media_type="text/plain")
    text = resources.files("catalog.server").joinpath("static", name).read_text("utf-8")
    return Response(text, media_type=_STATIC[name], headers={"Cache-Control": "max-age=300"})


@router.get("/", response_class=HTMLResponse)
def home(state: State) -> HTMLResponse:
    """Every catalog with its versions."""
    rows = []
    for name in state.library.names():
        versions = [str(ref.version) for ref in state.library.catalog_path.versions(name)]
        links = " ".join(
            f'<a href="/catalogs/{_esc(name)}/{_esc(v)}">{_esc(v)}</a>' for v in versions[-12:]
        )
        more = f" … {len(versions) - 12} older" if len(versions) > 12 else ""
        rows.append(
            f'<tr><td><a href="/catalogs/{_esc(name)}">{_esc(name)}</a></td>'
            f"<td>{len(versions)}</td><td>{links}{more}</td></tr>"
        )
    body = (
        "<h1>Catalogs</h1><table class=grid><tr><th>catalog</th><th>versions</th>"
        f"<th>newest versions</th></tr>{''.join(rows)}</table>"
    )
    return _page("Catalogs", body, page="home")


def token_chart(
    versions: list[str],
    tokens: list[int],
    reference: list[int | None] | None = None,
    *,
    width: int = 760,
    height: int = 220,
) -> str:
    """An SVG line chart of token totals across ``versions`` (oldest left), one point per
    version with its figures in a tooltip; ``reference`` (figures another counter gave,
    None where a version has none) is drawn dashed."""
    if not versions:
        return "<p>No versions.</p>"
    others = [r for r in reference or () if r is not None]
    pad_left, pad_bottom, pad_top = 64, 28, 12
    top = max([*tokens, *others]) or 1
    inner_w, inner_h = width - pad_left - 10, height - pad_bottom - pad_top
    step = inner_w / max(len(versions) - 1, 1)

    def xy(index: int, value: int) -> str:
        return f"{pad_left + index * step:.1f},{pad_top + inner_h * (1 - value / top):.1f}"

    line = " ".join(xy(i, value) for i, value in enumerate(tokens))
    dots = []
    for i, (version, value) in enumerate(zip(versions, tokens, strict=True)):
        x, y = xy(i, value).split(",")
        extra = ""
        if reference is not None and reference[i] is not None:
            extra = f", reference {reference[i]}"
        dots.append(
            f'<circle cx="{x}" cy="{y}" r="3"><title>{_esc(version)}: {value} tokens{extra}'
            "</title></circle>"
        )
    dashed = ""
    if others and reference is not None:
        points = " ".join(xy(i, r) for i, r in enumerate(reference) if r is not None)
        dashed = f'<polyline class=reference points="{points}" />'
    ticks = sorted({0, len(versions) // 2, len(versions) - 1})
    anchors = {0: "start", len(versions) - 1: "end"}  # the end labels stay inside
    labels = "".join(
        f'<text x="{xy(i, 0).split(",")[0]}" y="{height - 8}" '
        f'text-anchor="{anchors.get(i, "middle")}">{_esc(versions[i])}</text>'
        for i in ticks
    )
    return (
        f'<svg class=chart viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="tokens per version">'
        f'<line x1="{pad_left}" y1="{pad_top + inner_h}" x2="{width - 10}" '
        f'y2="{pad_top + inner_h}" class=axis />'
        f'<text x="{pad_left - 6}" y="{pad_top + 10}" text-anchor="end">{top}</text>'
        f'<text x="{pad_left - 6}" y="{pad_top + inner_h}" text-anchor="end">0</text>'
        f'{dashed}<polyline points="{line}" />{"".join(dots)}{labels}</svg>'
    )


def _version_options(versions: list[str], selected: str) -> str:
    return "".join(
        f'<option value="{_esc(v)}"{" selected" if v == selected else ""}>{_esc(v)}</option>'
        for v in versions
    )


@router.get("/catalogs/{name}", response_class=HTMLResponse)
def catalog_page(name: str, state: State) -> HTMLResponse:
    """A catalog's versions, its token history and a form to diff two versions."""
    rows = state.library.versions(name)
    versions = [row["version"] for row in rows]
    table = "".join(
        f'<tr><td><a href="/catalogs/{_esc(name)}/{_esc(r["version"])}">{_esc(r["version"])}'
        f"</a></td><td>{_esc(r['summary'])}</td><td class=num>{r['parts']}</td>"
        f"<td class=num>{r['tokens']}</td></tr>"
        for r in rows
    )
    old = versions[-2] if len(versions) > 1 else versions[0]
    body = (
        f"<h1>{_esc(name)}</h1><h2>Tokens per version</h2>"
        "<p>The sum of the parts' token estimates of each version; dashed: the figures "
        "another counter gave (<code>reference_tokens</code>), where parts carry them.</p>"
        + token_chart(
            versions,
            [r["tokens"] for r in rows],
            [r["reference_tokens"] for r in rows],
        )
        + f'<h2>Compare</h2><form action="/diff" class=inline id=diff-form>'
        f'<input type=hidden name=name value="{_esc(name)}">'
        f"<label>old <select name=old_version>{_version_options(versions, old)}</select></label>"
        f"<label>new <select name=new_version>{_version_options(versions, versions[-1])}"
        "</select></label><button>Diff</button></form>"
        "<h2>Versions</h2><table class=grid><tr><th>version</th><th>summary</th><th>parts</th>"
        f"<th>tokens</th></tr>{table}</table>"
    )
    return _page(name, body, page="catalog")


@router.get("/catalogs/{name}/{version}", response_class=HTMLResponse)
def version_page(name: str, version: str, state: State) -> HTMLResponse:
    """A version's parts in order, with a bar per part for its share of the tokens."""
    info = describe(state.library.load(f"{name}@=={version}"))
    largest = max((p["tokens"] for p in info["parts"]), default=0) or 1
    rows = "".join(
        f"<tr><td class=num>{p['order']}</td><td>{_esc(p['id'])}</td><td>{_esc(p['kind'])}</td>"
        f"<td>{_esc(p['stability'])}</td><td><code>{_esc(p['when'])}</code></td>"
        f"<td>{_esc(', '.join(p['agents']))}</td><td class=num>{p['tokens']}</td>"
        f"<td class=barcell>{_bar(100 * p['tokens'] / largest)} {p['share']}%</td></tr>"
        for p in info["parts"]
    )
    ref = f"{name}@{version}"
    body = (
        f"<h1>{_esc(name)} {_esc(version)}</h1><p>{_esc(info['summary'])}</p>"
        f'<p><a href="/playground?catalog={_esc(ref)}">Open in the playground</a> · '
        f'<a href="/catalogs/{_esc(name)}">all versions</a></p>'
        f"<p>Agents: {_esc(', '.join(info['agents']))}</p>"
        "<table class=grid><tr><th>order</th><th>part</th><th>kind</th><th>stability</th>"
        f"<th>when</th><th>agents</th><th>tokens</th><th>share</th></tr>{rows}</table>"
    )
    return _page(ref, body, page="version")


def _bar(percent: float) -> str:
    """A bar ``percent`` of its full width long: an SVG shape, which the content security
    policy allows where an inline ``style`` is refused."""
    return (
        '<svg class=bar viewBox="0 0 100 1" preserveAspectRatio=none aria-hidden=true>'
        f'<rect width="{percent:.1f}" height="1" /></svg>'
    )


def _variable_input(var: dict[str, Any]) -> str:
    name, kind, default = var["name"], var["type"], var["default"]
    label = f'<label title="{_esc(var["description"])}">{_esc(name)} <small>{kind}</small>'
    common = f'data-var="{_esc(name)}" data-type="{kind}"'
    if kind == "bool":
        checked = " checked" if default else ""
        return f"{label} <input type=checkbox {common}{checked}></label>"
    if kind in ("int", "float"):
        return f'{label} <input type=number step=any {common} value="{_esc(str(default))}"></label>'
    if kind == "str":
        if "\n" in default:
            return f"{label}<textarea rows=6 {common}>{_esc(default)}</textarea></label>"
        return f'{label} <input {common} value="{_esc(default)}"></label>'
    shown = ", ".join(default) if kind == "list" else json.dumps(default)
    return f'{label} <input {common} value="{_esc(shown)}"></label>'


@router.get("/playground", response_class=HTMLResponse)
def playground(
    state: State, catalog: Annotated[str | None, Query(max_length=200)] = None
) -> HTMLResponse:
    """Pick version, agent, tools, variables and a context; the prompt, the explain
    table and the token total follow every change."""
    library = state.library
    ref = catalog or library.names()[0]
    cat = library.load(ref)
    info = describe(cat)
    name = cat.name
    versions = [str(r.version) for r in library.catalog_path.versions(name)]
    catalogs = "".join(
        f'<option value="{_esc(n)}"{" selected" if n == name else ""}>{_esc(n)}</option>'
        for n in library.names()
    )
    agents = "".join(f'<option value="{_esc(a)}">{_esc(a)}</option>' for a in info["agents"])
    tools = "".join(
        f'<label class=tool><input type=checkbox data-tool="{_esc(t)}"> {_esc(t)}</label>'
        for t in info["tools"]
    )
    variables = "".join(_variable_input(var) for var in info["variables"])
    body = (
        f"<h1>Playground</h1><div class=play><form id=play-form>"
        f"<label>catalog <select id=catalog-name>{catalogs}</select></label>"
        f"<label>version <select id=version>{_version_options(versions, str(cat.version))}"
        f"</select></label><label>agent <select id=agent>{agents}</select></label>"
        f"<fieldset><legend>tools</legend>{tools or '<small>none</small>'}</fieldset>"
        f"<fieldset><legend>variables</legend>{variables or '<small>none</small>'}</fieldset>"
        "<label>context (JSON)<textarea id=context rows=8 spellcheck=false>"
        '{"env": {"cwd": "/home/user/project", "os": "Linux"}}</textarea></label>'
        "<p id=play-error class=error></p></form>"
        "<section><p><strong>Tokens: <span id=total>…</span></strong> "
        "<span id=fingerprint></span></p><pre id=prompt></pre>"
        "<h2>Explain</h2><table class=grid id=explain><thead><tr><th></th><th>part</th>"
        "<th>tokens</th><th>why</th></tr></thead><tbody></tbody></table></section></div>"
    )
    return _page("Playground", body, page="playground", data={"name": name})


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


@router.get("/diff", response_class=HTMLResponse)
def diff_page(
    state: State,
    old: Annotated[str | None, Query(max_length=200)] = None,
    new: Annotated[str | None, Query(max_length=200)] = None,
    name: Annotated[str | None, Query(max_length=200)] = None,
    old_version: Annotated[str | None, Query(max_length=100)] = None,
    new_version: Annotated[str | None, Query(max_length=100)] = None,
) -> HTMLResponse:
    """Two versions compared: what is new, removed, renamed, rewritten and assembled
    differently first, minor changes folded, then the side-by-side report."""
    old_ref, new_ref = _diff_refs(name, old, new, old_version, new_version)
    result = _diff(state, old_ref, new_ref)
    groups: dict[str, list[str]] = {
        "NEW": [], "REMOVED": [], "RENAMED": [], "CHANGED": [], "ASSEMBLY": []
    }  # fmt: skip
    minor: list[str] = []
    for part in result.changes:
        kind = change_class(part)
        label = _esc(part.id if part.name == part.id else f"{part.name} ({part.id})")
        delta = f" <small>{part.token_delta:+d} tokens</small>"
        if kind == "RENAMED":
            label = f"{_esc(str(part.old_id))} → {label}"
        shown = part.change if kind == "minor" else kind
        item = f'<li class="{kind.lower()}"><b>{shown}</b> {label}{delta}</li>'
        (minor if kind == "minor" else groups[kind]).append(item)
    sections = "".join(
        f"<h2>{kind} ({len(items)})</h2><ul class=changes>{''.join(items)}</ul>"
        for kind, items in groups.items()
        if items
    )
    if minor:
        sections += (
            f"<details><summary>{len(minor)} minor changes (whitespace, placeholders, metadata)"
            f"</summary><ul class=changes>{''.join(minor)}</ul></details>"
        )
    title = f"{result.old_label} → {result.new_label}"
    query = f"old={_esc(old_ref)}&amp;new={_esc(new_ref)}"
    body = (
        f"<h1>{_esc(title)}</h1><p>Tokens {result.old_tokens} → {result.new_tokens} "
        f"({result.token_delta:+d}).</p>{sections or '<p>No changes.</p>'}"
        f'<h2>Side by side</h2><iframe class=report src="/diff/report?{query}" '
        'title="side-by-side report"></iframe>'
    )
    return _page(title, body, page="diff")


def _diff(state: ServerState, old: str, new: str) -> CatalogDiff:
    return diff(state.library.load(old), state.library.load(new))


@router.get("/diff/report", response_class=HTMLResponse)
def diff_report(state: State, old: RefQuery, new: RefQuery) -> HTMLResponse:
    """The HTML report of ``catalog diff --format html``: side-by-side text per part,
    shown in a frame of the diff page (this server's pages alone may frame it)."""
    return HTMLResponse(render_html(_diff(state, old, new)), headers=_REPORT_HEADERS)


@router.get("/editor", response_class=HTMLResponse)
def editor(state: State) -> HTMLResponse:
    """dispatch's template editor: a full-page modal with a text editor, a button per
    variable inserting ``[type:name]`` at the cursor, a preview and Save (PUT)."""
    catalog = state.library.template_catalog(state.settings.template_catalog)
    ref = f"{catalog.name}@{catalog.version}"
    needs_token = "1" if state.settings.token is not None else ""
    token = (
        "<label>token <input type=password id=token autocomplete=off></label>"
        if needs_token
        else ""
    )
    body = (
        "<h1>System prompt template</h1>"
        f"<p>The template of catalog {_esc(ref)}, used by every conversation constructed "
        "from now on.</p><button id=open-editor>Edit the template</button>"
        "<div id=editor class=modal role=dialog aria-modal=true aria-labelledby=editor-title>"
        "<header><h2 id=editor-title>Edit the system prompt template</h2>"
        "<button id=close-editor aria-label=Close>Close</button></header>"
        "<div class=variables id=variables></div>"
        "<div class=panes><textarea id=template spellcheck=false></textarea>"
        "<div><h3>Preview</h3><pre id=preview></pre></div></div>"
        f"<footer>{token}<span id=status></span><button id=save>Save</button></footer></div>"
    )
    return _page("Template editor", body, page="editor", data={"catalog": ref})
