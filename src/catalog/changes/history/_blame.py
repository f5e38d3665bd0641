"""Each line of a part's body with the version that last introduced it.

The version a line dates from is the earliest version from which the line is
present in every version up to the one asked, in the part's body under any
of its ids (renames followed); a version without the part has no line.

A body may hold the same line more than once (blank lines, a repeated
``</example>``), so presence is counted: the k-th copy of a line (in the
body's order) is present in a version whose body holds it at least k times.
The first copies therefore date from the oldest versions: a copy added later
is the later one in the text, whichever place it was inserted at.

Walking back from the version asked, each distinct body of the part is
counted once: linear in the size of the part's distinct bodies.
"""

from __future__ import annotations

from collections import Counter

from catalog.changes.compute import lines
from catalog.changes.history.index import Bodies, HistoryIndex
from catalog.changes.history.lineage import Lineage

__all__ = ["blame_lines"]


def blame_lines(
    index: HistoryIndex, lineage: Lineage, version: int, bodies: Bodies
) -> list[tuple[str, int]]:
    """Each line of ``lineage``'s body in ``version`` (an index) with the index of the
    version it dates from."""
    runs = [run for run in lineage.runs() if run.start <= version]
    current = index.records[runs[-1].record]
    text = lines(bodies.text(current))
    wanted = Counter(text)
    # since[line][k]: the version the (k+1)-th copy of line dates from, found walking back.
    since: dict[str, list[int]] = {line: [0] * count for line, count in wanted.items()}
    pending = dict(wanted)  # line -> copies whose version is not known yet
    later = version + 1  # versions from ``later`` to ``version`` hold every pending copy
    counted_sha = ""
    counts: Counter[str] = Counter()
    for run in reversed(runs):
        if run.end < later:  # the part was absent just before ``later``: nothing was there
            _settle(pending, since, Counter(), later)
            later = run.end
        record = index.records[run.record]
        if record.sha256 != counted_sha:
            counts = Counter(lines(bodies.text(record)))
            counted_sha = record.sha256
        _settle(pending, since, counts, min(run.end, later))
        later = run.start
        if not pending:
            break
    if pending and later > 0:
        _settle(pending, since, Counter(), later)
    seen: Counter[str] = Counter()
    dated: list[tuple[str, int]] = []
    for line in text:
        dated.append((line, since[line][seen[line]]))
        seen[line] += 1
    return dated


def _settle(
    pending: dict[str, int], since: dict[str, list[int]], counts: Counter[str], start: int
) -> None:
    """Date from ``start`` the pending copies beyond what a version before it holds
    (``counts`` of each line), which breaks their presence there."""
    for line in [line for line, need in pending.items() if counts[line] < need]:
        held = counts[line]
        for copy in range(held, pending[line]):
            since[line][copy] = start
        if held:
            pending[line] = held
        else:
            del pending[line]
