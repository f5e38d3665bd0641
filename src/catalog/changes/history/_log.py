"""The versions where one part was added, changed, renamed or removed.

Each entry says what ``catalog diff`` of the version before and that version
says of the part: the same rename pairing, the same change classes (the
body's text first, then a moved part or a changed assembly key, then a
descriptive key), the same token figures (the manifests' counts). Only the
bodies of the records that change are read, each once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from catalog.changes.classify import TextClass, text_class
from catalog.changes.history.index import Bodies, HistoryIndex, PartRecord
from catalog.changes.history.lineage import Lineage
from catalog.changes.history.results import LogChange, LogEntry

__all__ = ["lineage_log"]


def _text(old: PartRecord, new: PartRecord, bodies: Bodies) -> TextClass | None:
    """How the body changed between two records (None when it is the same)."""
    if old.sha256 == new.sha256:
        return None
    return text_class(bodies.text(old), bodies.text(new))


def _changed(old: PartRecord, new: PartRecord, moved: bool, bodies: Bodies) -> LogChange | None:
    """How ``old`` became ``new`` under one id, as ``catalog diff`` classifies it (None
    when it would call the part unchanged)."""
    text = _text(old, new, bodies)
    if text is not None:
        return text
    if moved or old.assembly != new.assembly:
        return "assembly"
    if old.details != new.details:
        return "metadata"
    return None


def lineage_log(
    index: HistoryIndex,
    lineage: Lineage,
    bodies: Bodies,
    moved: Mapping[str, frozenset[int]],
    tokens: Callable[[PartRecord, int, int], int],
    taken: Collection[tuple[int, str]] = (),
) -> list[tuple[int, LogEntry]]:
    """The entries of ``lineage``, oldest first, each with its version's index;
    ``moved`` gives, per id, the versions at which the part moved;
    ``tokens(record, version, unit)`` a record's count in a version, in the unit of
    a change made in version ``unit``; ``taken`` the (version, id) where a part took
    an id another part had before (its entry there is ``reused``)."""
    found: list[tuple[int, LogEntry]] = []

    def add(
        step: int,
        change: LogChange,
        record: PartRecord,
        before: PartRecord | None,
        *,
        old_id: str | None = None,
        text: TextClass | None = None,
        similarity: float | None = None,
    ) -> None:
        now = 0 if change == "removed" else tokens(record, step, step)
        entry = LogEntry(
            version=index.versions[step],
            change=change,
            id=record.id,
            kind=record.kind,
            tokens=now,
            delta=now - (0 if before is None else tokens(before, step - 1, step)),
            sha256=None if change == "removed" else record.sha256,
            old_id=old_id,
            text=text,
            similarity=similarity,
            reused=change in ("added", "renamed") and (step, record.id) in taken,
        )
        found.append((step, entry))

    previous: PartRecord | None = None
    previous_end = 0
    for run in lineage.runs():
        record = index.records[run.record]
        steps = moved.get(record.id, frozenset())
        if previous is not None and previous_end != run.start:
            add(previous_end, "removed", previous, previous)
            previous = None
        if previous is None:
            add(run.start, "added", record, None)
        elif previous.id != record.id:
            rename = index.rename_to(run.start, record.id)
            add(run.start, "renamed", record, previous, old_id=previous.id,
                text=_text(previous, record, bodies),
                similarity=None if rename is None else rename.similarity)  # fmt: skip
        else:
            change = _changed(previous, record, run.start in steps, bodies)
            if change is not None:
                text = change if change in ("prose", "whitespace", "placeholders") else None
                add(run.start, change, record, previous, text=text)
        for step in sorted(s for s in steps if run.start < s < run.end):
            add(step, "assembly", record, record)
        previous, previous_end = record, run.end
    if previous is not None and previous_end < len(index.versions):
        add(previous_end, "removed", previous, previous)
    return found
