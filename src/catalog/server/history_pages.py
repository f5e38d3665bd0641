"""The pages of a catalog's history: a page per part and the search of a catalog's page.

A part's page (``/catalogs/NAME/parts/PART``) shows its log as a timeline
(version, change class, tokens and delta), its tokens in every version as a
chart, each change opening its side-by-side diff (the diff page's report,
narrowed to the part), and the blame of its newest text. The search runs
``grep`` (plain text, or the linear ``*`` pattern; never a regular expression)
and links each match to its part page. Both ask the catalog's history that the
server keeps (:meth:`catalog.server.library.Library.history`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse

from catalog.changes.history import BlameLine, CatalogHistory, LogEntry
from catalog.errors import UsageError
from catalog.server.charts import token_chart
from catalog.server.deps import State
from catalog.server.templating import page
from catalog.tokens import get_counter

__all__ = ["router", "search"]

router = APIRouter(include_in_schema=False)

PartPath = Annotated[str, Path(min_length=1, max_length=200, description="a part's id")]


def _by_version(versions: Sequence[str], entries: Sequence[LogEntry]) -> list[tuple[int, bool]]:
    """The part's tokens in each version and whether the version holds it, oldest
    first: an entry holds until the next one (an absent part counts 0, as the log
    counts it)."""
    at = {entry.version: entry for entry in entries}
    found, tokens, present = [], 0, False
    for version in versions:
        entry = at.get(version)
        if entry is not None:
            tokens, present = entry.tokens, entry.change != "removed"
        found.append((tokens, present))
    return found


def _diff_links(name: str, before: str, version: str, part: str) -> dict[str, str]:
    """The diff page and its report, narrowed to ``part``, of ``before`` and ``version``."""
    page_query = {"name": name, "old_version": before, "new_version": version, "part": part}
    report_query = {"old": f"{name}@=={before}", "new": f"{name}@=={version}", "part": part}
    return {
        "page": "/diff?" + urlencode(page_query),
        "report": "/diff/report?" + urlencode(report_query),
    }


def _entry(history: CatalogHistory, entry: LogEntry, position: dict[str, int]) -> dict[str, Any]:
    """One change of the timeline: its figures and where its diff is (the first version
    has nothing before it: its body is shown instead)."""
    step = position[entry.version]
    row: dict[str, Any] = {"entry": entry, "diff": None, "body": None}
    if step:
        row["diff"] = _diff_links(history.name, history.versions[step - 1], entry.version, entry.id)
    else:
        row["body"] = history.body(entry.id, entry.version)
    return row


AsOfQuery = Annotated[
    str | None,
    Query(max_length=100, description="the version whose holder of the id is shown"),
]


@router.get("/catalogs/{name}/parts/{part}", response_class=HTMLResponse)
def part_page(
    name: str, part: PartPath, request: Request, state: State, as_of: AsOfQuery = None
) -> HTMLResponse:
    """One part across every version of its catalog, following its renames: the log as
    a timeline, the tokens per version as a chart, each change's side-by-side diff, and
    each line of its newest text with the version it dates from. When the id was given
    to another part once its own was removed or renamed, the page lists the parts that
    held it and shows the newest, or the one holding it in ``as_of``."""
    history = state.library.history(name)
    # One counter for every version, the newest's, named by the chart and the timeline.
    counter = get_counter(tokenizer=history.index.tokenizers[-1])
    log = history.log(part, as_of=as_of, counter=counter)
    versions = history.versions
    position = {version: step for step, version in enumerate(versions)}
    entries = log.entries
    last = entries[-1]
    removed = last.change == "removed"
    # The newest text: the newest version's, or the one before the part was removed.
    newest = versions[position[last.version] - 1] if removed else versions[-1]
    blame = history.blame(last.id, newest)
    figures = _by_version(versions, entries)
    tokens = [count for count, _ in figures]
    context = {
        "page": "part",
        "name": name,
        "part": part,
        "current": last.id,
        "kind": last.kind,
        "ids": list(dict.fromkeys(entry.id for entry in entries)),
        "first": entries[0].version,
        "removed": last.version if removed else None,
        "held": sum(present for _, present in figures),
        "count": len(versions),
        "token_chart": token_chart(
            versions, tokens, [None] * len(versions), [counter.name] * len(versions)
        ),
        "entries": [_entry(history, entry, position) for entry in reversed(entries)],
        "blame": blame,
        "holders": log.holders,
        # Lines the blamed version brought; none when the part came in that version.
        "lines": _blame_rows(blame.lines, None if newest == entries[0].version else newest),
    }
    return page(request, "part.html", context)


def _blame_rows(lines: Sequence[BlameLine], newest: str | None) -> list[dict[str, Any]]:
    """The blamed lines as the page shows them: a line starting a run of one version is
    marked (a rule above it), and lines of version ``newest`` are marked new."""
    rows, before = [], None
    for line in lines:
        rows.append(
            {
                "line": line.line,
                "text": line.text,
                "version": line.version,
                "starts": line.version != before,
                "new": line.version == newest,
            }
        )
        before = line.version
    return rows


def search(
    history: CatalogHistory, text: str, *, pattern: bool, ignore_case: bool, kind: str | None
) -> dict[str, Any]:
    """The catalog page's search: ``grep`` over every version, as the page shows it, or
    the reason the query cannot be used (``error``)."""
    try:
        found = history.grep(text, pattern=pattern, ignore_case=ignore_case, kind=kind)
    except UsageError as exc:
        return {"error": exc.message, "hint": exc.hint, "matches": []}
    return {"error": None, "hint": None, "result": found, "matches": found.matches}
