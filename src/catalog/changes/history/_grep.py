"""Which parts hold a text, and in which versions.

Every distinct body held by the versions searched is read and searched once
(by its sha256), however many versions and ids share it; then each part's
lineage says in which of those versions it held a matching body.
"""

from __future__ import annotations

from collections.abc import Sequence

from catalog.changes.history.index import Bodies, HistoryIndex, PartRecord
from catalog.changes.history.lineage import Lineage
from catalog.changes.history.results import GrepMatch
from catalog.changes.history.textquery import TextQuery

__all__ = ["grep_lineages"]


def grep_lineages(
    index: HistoryIndex,
    lineages: Sequence[Lineage],
    bodies: Bodies,
    query: TextQuery,
    searched: Sequence[int],
    kind: str | None = None,
) -> list[GrepMatch]:
    """The parts of ``lineages`` whose body holds ``query`` in some of the versions
    ``searched`` (indexes, oldest first), while of ``kind`` when given; ordered by the
    version that first held it, then by id."""
    wanted = set(searched)
    newest = searched[-1]
    found: dict[str, bool] = {}  # sha256 -> holds the text

    def holds(record: PartRecord) -> bool:
        known = found.get(record.sha256)
        if known is None:
            known = found[record.sha256] = query.found_in(bodies.text(record, keep=False))
        return known

    matches: list[tuple[int, GrepMatch]] = []
    for lineage in lineages:
        held: list[tuple[int, PartRecord]] = []
        for run in lineage.runs():
            record = index.records[run.record]
            if kind is not None and record.kind != kind:
                continue
            steps = [step for step in range(run.start, run.end) if step in wanted]
            if steps and holds(record):
                held.extend((step, record) for step in steps)
        if held:
            matches.append((held[0][0], _match(index, held, newest)))
    matches.sort(key=lambda item: (item[0], item[1].part))
    return [match for _, match in matches]


def _match(index: HistoryIndex, held: list[tuple[int, PartRecord]], newest: int) -> GrepMatch:
    last_step, last = held[-1]
    return GrepMatch(
        part=last.id,
        kind=last.kind,
        first=index.versions[held[0][0]],
        last=index.versions[last_step],
        in_newest=last_step == newest,
        versions=tuple(index.versions[step] for step, _ in held),
        ids=tuple(dict.fromkeys(record.id for _, record in held)),
    )
