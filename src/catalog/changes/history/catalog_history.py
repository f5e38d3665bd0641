"""One catalog's history, opened once and asked many questions.

:func:`open_history` finds every version of a catalog on the catalog path,
and takes its index (:mod:`catalog.changes.history.index`) from the cache or
builds it; the :class:`CatalogHistory` it returns answers ``log``, ``blame``
and ``grep`` with JSON-ready results (:mod:`catalog.changes.history.results`),
reading only the bodies each answer needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from catalog.changes.history._blame import blame_lines
from catalog.changes.history._grep import grep_lineages
from catalog.changes.history._log import lineage_log
from catalog.changes.history.cache import cached_index
from catalog.changes.history.index import (
    Bodies,
    HistoryIndex,
    PartRecord,
    build_index,
    check_versions,
)
from catalog.changes.history.lineage import Holder, Lineage, holders, lineages
from catalog.changes.history.results import (
    Blame,
    BlameLine,
    GrepResult,
    IdHolder,
    LogEntry,
    PartLog,
)
from catalog.changes.history.textquery import TextQuery
from catalog.errors import NotFoundError, UsageError
from catalog.io.catalog_path import CatalogPath, check_name, parse_spec
from catalog.schema.manifest import PartKind
from catalog.text.suggest import guess
from catalog.tokens import TokenCounter, get_counter

if TYPE_CHECKING:
    from packaging.version import Version

__all__ = ["KINDS", "CatalogHistory", "open_history"]

KINDS: tuple[str, ...] = get_args(PartKind)
"""The part kinds ``log`` and ``grep`` can keep to."""


def open_history(
    name: str,
    *,
    paths: Iterable[str | Path] = (),
    catalog_path: CatalogPath | None = None,
    cache: bool = True,
) -> CatalogHistory:
    """The history of catalog ``name`` as found in ``catalog_path`` (by default a
    :class:`~catalog.io.catalog_path.CatalogPath` of ``paths``, ``CATALOG_PATH``,
    entry points and the bundled catalogs).

    The index is taken from memory or from the user's history cache when the
    manifests are the ones it was built from, and built otherwise
    (``cache=False``: no file read or written; a cache a catalog folder carries is
    never read; see :mod:`catalog.changes.history.cache`). A version folder that loading refuses
    for its name is refused here too, with the same error
    (:func:`~catalog.changes.history.index.check_versions`).
    """
    catalog_path = catalog_path or CatalogPath(paths)
    refs = catalog_path.versions(check_name(name))
    if not refs:
        catalog_path.find(name)  # raises, saying why: no such catalog, or no version in it
    check_versions(refs)
    bodies = Bodies(refs)
    index = cached_index(name, refs, lambda key: build_index(name, key, refs, bodies), keep=cache)
    return CatalogHistory(index, bodies, [ref.version for ref in refs])


class CatalogHistory:
    """The versions of one catalog and its parts' records in each: ``log``, ``blame``
    and ``grep`` over them. Open it with :func:`open_history`."""

    def __init__(self, index: HistoryIndex, bodies: Bodies, versions: Sequence[Version]) -> None:
        self.index = index
        self._bodies = bodies
        self._parsed = tuple(versions)

    @property
    def name(self) -> str:
        """The catalog's name."""
        return self.index.name

    @property
    def versions(self) -> tuple[str, ...]:
        """Every version, oldest first."""
        return self.index.versions

    @cached_property
    def lineages(self) -> tuple[Lineage, ...]:
        """Every part's life across the versions (see :mod:`.lineage`)."""
        return tuple(lineages(self.index, self._bodies))

    @cached_property
    def _taken(self) -> frozenset[tuple[int, str]]:
        """The (version, id) where a part took an id another part had before."""
        counted: dict[str, int] = {}
        for lineage in self.lineages:
            for part_id in {s.id for s in lineage.stretches}:
                counted[part_id] = counted.get(part_id, 0) + 1
        return frozenset(
            (holder.start, part_id)
            for part_id, count in counted.items()
            if count > 1
            for holder in holders(self.lineages, part_id)[1:]
        )

    def holders(self, part: str, shown: Lineage | None = None) -> tuple[IdHolder, ...]:
        """The parts that had the id ``part``, oldest first, when more than one did (none
        otherwise); ``shown`` marks the one an answer is about."""
        found = holders(self.lineages, part)
        if len(found) < 2:
            return ()
        return tuple(self._holder(holder, holder.lineage is shown) for holder in found)

    def _holder(self, holder: Holder, shown: bool) -> IdHolder:
        last = holder.lineage.last
        return IdHolder(
            first=self.versions[holder.start],
            last=self.versions[holder.end - 1],
            newest=self.versions[last.end - 1],
            now=last.id,
            shown=shown,
        )

    @cached_property
    def _moved(self) -> dict[str, frozenset[int]]:
        """Per id, the versions where ``catalog diff`` finds the part moved."""
        steps: dict[str, set[int]] = {}
        for step, ids in self.index.moved.items():
            for part_id in ids:
                steps.setdefault(part_id, set()).add(step)
        return {part_id: frozenset(found) for part_id, found in steps.items()}

    def selected(self, spec: str | None) -> list[int]:
        """The indexes of the versions ``spec`` (a PEP 440 specifier, ``1.0.0`` meaning
        ``==1.0.0``) selects, oldest first; all of them for None. None selected is a
        :class:`~catalog.errors.NotFoundError` listing the versions there are."""
        if spec is None:
            return list(range(len(self.versions)))
        specifier = parse_spec(spec)
        selected = set(specifier.filter(self._parsed, prereleases=None))
        found = [i for i, version in enumerate(self._parsed) if version in selected]
        if not found:
            shown = self.versions
            if len(shown) > 6:
                shown = (*shown[:3], "...", *shown[-3:])
            raise NotFoundError(
                f"no version of {self.name!r} satisfies {str(specifier)!r}",
                hint=f"available versions: {', '.join(shown)}",
            )
        return found

    def _version(self, spec: str | None) -> int:
        """The index of the newest version ``spec`` selects (None: the newest final one,
        as loading by name chooses)."""
        if spec is not None:
            return self.selected(spec)[-1]
        finals = [i for i, v in enumerate(self._parsed) if not v.is_prerelease]
        return (finals or [len(self.versions) - 1])[-1]

    def _unknown(self, part: str) -> NotFoundError:
        return NotFoundError(
            f"no version of {self.name!r} has a part {part!r}",
            hint=guess(part, self.index.ids)
            or f"`catalog show {self.name}` lists the parts of its newest version",
        )

    def _absent(self, part: str, version: int) -> NotFoundError:
        """The error for ``part`` asked of version ``version``, which lacks it."""
        runs = self.index.runs_of(part)
        if not runs:
            return self._unknown(part)
        held = f"{self.versions[runs[0].start]} to {self.versions[runs[-1].end - 1]}"
        return NotFoundError(
            f"{self.name} {self.versions[version]} has no part {part!r}",
            hint=f"{part!r} is in versions from {held}; `catalog log {self.name} {part}` "
            "says when it was there",
        )

    def _lineage_at(self, part: str, version: int) -> Lineage:
        """The lineage holding ``part`` in version ``version``."""
        for lineage in self.lineages:
            if lineage.holds(part, version):
                return lineage
        raise self._absent(part, version)

    def body(self, part: str, version: str | None = None) -> str:
        """The body of ``part`` in the newest version ``version`` selects."""
        at = self._version(version)
        found = self.index.record_at(part, at)
        if found is None:
            raise self._absent(part, at)
        return self._bodies.text(found)

    def parts(self, version: str | None = None) -> list[str]:
        """The ids of the parts of the newest version ``version`` selects, sorted."""
        return self.index.ids_at(self._version(version))

    def _tokens(
        self, counter: str | TokenCounter | Callable[[str], int] | None
    ) -> Callable[[PartRecord, int, int], int]:
        """``tokens(record, version, unit)``: a record's tokens in a version, counted as
        ``catalog diff`` counts a change made in version ``unit``: by ``counter``
        (default: version ``unit``'s tokenizer), from the manifest where the record's
        version has that tokenizer, else counted (once per body and counter)."""
        counters: dict[str, TokenCounter] = {}
        counted: dict[tuple[str, str], int] = {}

        def tokens(record: PartRecord, version: int, unit: int) -> int:
            tokenizer = self.index.tokenizers[unit]
            count = counters.get(tokenizer)
            if count is None:
                count = counters[tokenizer] = get_counter(counter, tokenizer=tokenizer)
            if self.index.tokenizers[version] == count.name:
                return record.tokens
            key = (count.name, record.sha256)
            found = counted.get(key)
            if found is None:
                found = counted[key] = count(self._bodies.text(record))
            return found

        return tokens

    def log(
        self,
        part: str | None = None,
        *,
        kind: str | None = None,
        versions: str | None = None,
        counter: str | TokenCounter | Callable[[str], int] | None = None,
        as_of: str | None = None,
    ) -> PartLog:
        """Every version where ``part`` (following its renames) or a part of ``kind`` was
        added, changed, renamed or removed, oldest first; ``versions`` keeps the
        entries of the versions that PEP 440 specifier selects.

        ``part`` names the part that has that id in the newest version holding it,
        or, with ``as_of``, in the newest version that specifier selects: an id can
        be taken by another part once its own was renamed or removed, and the log
        then lists the parts that held it (:attr:`PartLog.holders`). Each entry's
        tokens and delta are those ``catalog diff`` gives for the version before and
        the entry's: counted with ``counter``, by default the entry's version's
        tokenizer.
        """
        if part is None and kind is None:
            raise UsageError("name a part, or a kind of parts", hint="e.g. --kind reminder")
        if as_of is not None and part is None:
            raise UsageError("--as-of chooses which part held an id: name the part")
        _check_kind(kind)
        held: tuple[IdHolder, ...] = ()
        if part is not None:
            if as_of is not None:
                chosen = self._lineage_at(part, self._version(as_of))
            else:
                found = holders(self.lineages, part)
                if not found:
                    raise self._unknown(part)
                chosen = found[-1].lineage
            chosen_ones: Sequence[Lineage] = [chosen]
            held = self.holders(part, chosen)
        else:  # the parts that are of that kind in some version
            records = self.index.records
            chosen_ones = [
                lineage
                for lineage in self.lineages
                if any(records[run.record].kind == kind for run in lineage.runs())
            ]
        tokens = self._tokens(counter)
        entries = [
            item
            for lineage in chosen_ones
            for item in lineage_log(
                self.index, lineage, self._bodies, self._moved, tokens, self._taken
            )
        ]
        keep = set(self.selected(versions))
        kept: list[tuple[int, LogEntry]] = sorted(
            (
                (step, entry)
                for step, entry in entries
                if step in keep and (kind is None or entry.kind == kind)
            ),
            key=lambda item: (item[0], item[1].id),
        )
        return PartLog(self.name, part, kind, tuple(entry for _, entry in kept), held)

    def blame(self, part: str, version: str | None = None) -> Blame:
        """Each line of ``part``'s body in the newest version ``version`` selects, with
        the earliest version from which the line is present in every version up to
        that one (the k-th copy of a repeated line: present at least k times)."""
        at = self._version(version)
        lineage = self._lineage_at(part, at)
        dated = blame_lines(self.index, lineage, at, self._bodies)
        return Blame(
            catalog=self.name,
            version=self.versions[at],
            part=part,
            lines=tuple(
                BlameLine(number, text, self.versions[since])
                for number, (text, since) in enumerate(dated, 1)
            ),
            holders=self.holders(part, lineage),
        )

    def grep(
        self,
        text: str,
        *,
        versions: str | None = None,
        kind: str | None = None,
        pattern: bool = False,
        ignore_case: bool = False,
    ) -> GrepResult:
        """The parts whose body holds ``text`` in the versions ``versions`` selects (all by
        default), with the first and last version holding it and whether the newest
        version searched still does; ``pattern``: ``*`` in ``text`` is any run of
        characters within a line (see :mod:`.textquery`)."""
        _check_kind(kind)
        query = TextQuery(text, pattern=pattern, ignore_case=ignore_case)
        searched = self.selected(versions)
        matches = grep_lineages(self.index, self.lineages, self._bodies, query, searched, kind)
        return GrepResult(
            catalog=self.name,
            text=text,
            pattern=pattern,
            ignore_case=ignore_case,
            newest=self.versions[searched[-1]],
            searched=len(searched),
            matches=tuple(matches),
        )


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in KINDS:
        raise UsageError(f"{kind!r} is not a part kind", hint=f"kinds: {', '.join(KINDS)}")
