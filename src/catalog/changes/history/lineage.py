"""A part's life across versions, through its renames and its re-additions.

A *stretch* is a span of consecutive versions that hold one id. A
*lineage* joins the stretches that are one part, oldest first:

* a stretch of id ``b`` starting at version ``s`` continues the stretch of
  ``a`` that ended there when ``catalog diff`` of ``s - 1`` and ``s`` pairs
  ``a`` and ``b`` as a rename;
* a stretch of id ``a`` that starts later than another stretch of ``a`` ended
  continues it when that one ended by a removal and the text that comes back
  is the text that went, or one ``catalog diff`` would pair with it as a
  rename (a part removed and added back under its id is the same part);
  otherwise the id was taken by another text (a file deleted, its name later
  given to another prompt), which starts a lineage of its own. So does a
  stretch of an id whose earlier stretch ended by a rename.

Several lineages may so hold one id, one after another: :func:`holders` says
which held it when.

Built in one pass over the index's runs: linear in the number of changes, and
reading two bodies for each part added back with another text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from catalog.changes.classify import find_renames
from catalog.changes.history.index import Bodies, HistoryIndex, Run

__all__ = ["Holder", "Lineage", "Stretch", "holders", "lineages"]


@dataclass(frozen=True, slots=True)
class Stretch:
    """Versions ``start`` to ``end - 1`` hold id ``id``, as ``runs`` (oldest first)."""

    id: str
    start: int
    end: int
    runs: tuple[Run, ...]


@dataclass(frozen=True, slots=True)
class Lineage:
    """The stretches of one part, oldest first (no two hold the same version)."""

    stretches: tuple[Stretch, ...]

    @property
    def last(self) -> Stretch:
        """The newest stretch."""
        return self.stretches[-1]

    def holds(self, part_id: str, version: int) -> bool:
        """Whether this part has id ``part_id`` in version ``version``."""
        return any(s.id == part_id and s.start <= version < s.end for s in self.stretches)

    def runs(self) -> list[Run]:
        """The runs of every stretch, oldest first: where each record held."""
        return [run for stretch in self.stretches for run in stretch.runs]


def _stretches(index: HistoryIndex) -> list[Stretch]:
    """Every id's stretches: its runs, those that touch joined."""
    found: list[Stretch] = []
    for part_id in index.ids:
        runs: list[Run] = []
        for run in index.runs_of(part_id):
            if runs and runs[-1].end != run.start:
                found.append(Stretch(part_id, runs[0].start, runs[-1].end, tuple(runs)))
                runs = []
            runs.append(run)
        found.append(Stretch(part_id, runs[0].start, runs[-1].end, tuple(runs)))
    found.sort(key=lambda s: (s.start, s.id))
    return found


def _same_part(index: HistoryIndex, gone: Stretch, back: Stretch, bodies: Bodies) -> bool:
    """Whether ``back``, a stretch of the id ``gone`` had, brings back the part that
    ``gone`` removed: the same text, or one a rename would pair with it."""
    old = index.records[gone.runs[-1].record]
    new = index.records[back.runs[0].record]
    if old.sha256 == new.sha256:
        return True
    texts = {old.id: bodies.text(old, keep=False)}, {new.id: bodies.text(new, keep=False)}
    return bool(find_renames(*texts))


def lineages(index: HistoryIndex, bodies: Bodies) -> list[Lineage]:
    """Every part's lineage, ordered by the version each starts in, then by id;
    ``bodies`` reads the texts of the parts added back under an id, to tell whether
    they are the part that had it."""
    renamed_away = {(r.step, r.old_id) for r in index.renames}
    chains: list[list[Stretch]] = []
    ending: dict[tuple[str, int], int] = {}  # (id, end) -> chain number
    removed: dict[str, int] = {}  # id -> the chain whose stretch of it ended by a removal
    for stretch in _stretches(index):
        chain: int | None = None
        rename = index.rename_to(stretch.start, stretch.id) if stretch.start else None
        if rename is not None:
            chain = ending.get((rename.old_id, stretch.start))
        elif stretch.id in removed:
            chain = removed.pop(stretch.id)
            gone = next(s for s in reversed(chains[chain]) if s.id == stretch.id)
            if not _same_part(index, gone, stretch, bodies):
                chain = None
        if chain is None:
            chain = len(chains)
            chains.append([])
        chains[chain].append(stretch)
        ending[stretch.id, stretch.end] = chain
        if (stretch.end, stretch.id) not in renamed_away:
            removed[stretch.id] = chain
    return [Lineage(tuple(chain)) for chain in chains]


@dataclass(frozen=True, slots=True)
class Holder:
    """A part that held an id: from version ``start`` to ``end - 1`` (indexes; it may
    have been absent between), as ``lineage``."""

    lineage: Lineage
    start: int
    end: int


def holders(found: Sequence[Lineage], part_id: str) -> list[Holder]:
    """The parts of ``found`` that held ``part_id``, oldest first: one unless the id was
    given to another part once its holder was removed or renamed."""
    held = [
        Holder(
            lineage,
            min(s.start for s in lineage.stretches if s.id == part_id),
            max(s.end for s in lineage.stretches if s.id == part_id),
        )
        for lineage in found
        if any(s.id == part_id for s in lineage.stretches)
    ]
    return sorted(held, key=lambda holder: holder.start)
