"""Each part's record in every version of one catalog, read from the manifests alone.

A part's history (:mod:`catalog.changes.history`) asks about one part across
every version: compiling each version to answer would read every body of every
version. The manifests already say what changed: each part's ``sha256``,
``tokens``, ``kind``, ``order`` and other keys. :func:`build_index` reads the
versions' manifests (with their shared parts files, never a body) and keeps
each distinct :class:`PartRecord` once, with the :class:`Run` of consecutive
versions that hold it, so the index grows with the changes, not with versions
times parts. Between each two consecutive versions it also records what
``catalog diff`` would find about parts as a whole: which removed part was
renamed to which added one (:func:`~catalog.changes.classify.find_renames`,
reading only those parts' bodies) and which shared parts moved.

:class:`Bodies` reads a record's body when it is needed, checked against its
sha256 as loading checks it.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from catalog.changes.classify import ASSEMBLY_KEYS, PART_KEYS, find_renames, moved_parts
from catalog.engine.compile import body_sha256
from catalog.errors import CatalogError, ManifestError
from catalog.io.loader import check_folder_names, merged_manifest, read_body, read_manifest
from catalog.io.manifests import body_changed

if TYPE_CHECKING:
    from catalog.engine.catalog import Catalog
    from catalog.io.catalog_path import VersionRef
    from catalog.schema.manifest import Manifest, PartDecl

__all__ = [
    "Bodies",
    "HistoryIndex",
    "PartRecord",
    "Rename",
    "Run",
    "build_index",
    "check_versions",
]

_DESCRIPTIVE_KEYS = tuple(key for key in PART_KEYS if key not in ASSEMBLY_KEYS)


@dataclass(frozen=True, slots=True)
class PartRecord:
    """What one version's manifest says of a part, as history compares it.

    ``assembly`` and ``details`` are digests of the keys that change what is
    assembled (:data:`~catalog.changes.classify.ASSEMBLY_KEYS`) and of the
    descriptive ones: two records differ there exactly when ``catalog diff``
    reports an assembly or a metadata change. ``file`` is relative to the
    folder of version ``seen`` (the first version holding the record); None
    for an overlay's part that takes its body ``from`` its base.
    """

    id: str
    sha256: str
    tokens: int
    kind: str
    order: int
    file: str | None
    assembly: str
    details: str
    seen: int


@dataclass(frozen=True, slots=True)
class Run:
    """Versions ``start`` to ``end - 1`` (indexes, oldest first) hold ``records[record]``."""

    record: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Rename:
    """Between versions ``step - 1`` and ``step``, part ``old_id`` became ``new_id``."""

    step: int
    old_id: str
    new_id: str
    similarity: float


@dataclass(frozen=True)
class HistoryIndex:
    """The records of every part of catalog ``name`` in each of its ``versions``.

    ``versions`` are the version folders' names, oldest first, and
    ``tokenizers`` each one's ``[catalog] tokenizer`` (the unit of its parts'
    ``tokens``); ``key`` is the digest of their manifests the index was built
    from (see :mod:`catalog.changes.history.cache`).
    """

    name: str
    key: str
    versions: tuple[str, ...]
    tokenizers: tuple[str, ...]
    records: tuple[PartRecord, ...]
    runs: tuple[Run, ...]
    renames: tuple[Rename, ...] = ()
    moved: Mapping[int, frozenset[str]] = field(default_factory=dict)
    _by_id: dict[str, list[Run]] = field(init=False, repr=False, compare=False)
    _renamed_to: dict[tuple[int, str], Rename] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id: dict[str, list[Run]] = {}
        for run in self.runs:
            by_id.setdefault(self.records[run.record].id, []).append(run)
        for runs in by_id.values():
            runs.sort(key=lambda run: run.start)
        object.__setattr__(self, "_by_id", by_id)
        renamed = {(r.step, r.new_id): r for r in self.renames}
        object.__setattr__(self, "_renamed_to", renamed)

    @property
    def ids(self) -> list[str]:
        """Every part id any version has, sorted."""
        return sorted(self._by_id)

    def runs_of(self, part_id: str) -> list[Run]:
        """The runs of ``part_id``, oldest first (none for an id no version has)."""
        return self._by_id.get(part_id, [])

    def record_at(self, part_id: str, version: int) -> PartRecord | None:
        """The record of ``part_id`` in version ``version`` (an index); None when absent."""
        runs = self._by_id.get(part_id, [])
        found = bisect.bisect_right(runs, version, key=lambda run: run.start) - 1
        if found >= 0 and version < runs[found].end:
            return self.records[runs[found].record]
        return None

    def rename_to(self, step: int, part_id: str) -> Rename | None:
        """The rename that made ``part_id`` at version ``step``, if one did."""
        return self._renamed_to.get((step, part_id))

    def ids_at(self, version: int) -> list[str]:
        """The ids of the parts of version ``version``, sorted."""
        return sorted(i for i in self._by_id if self.record_at(i, version) is not None)


class Bodies:
    """Reads the bodies of an index's records from the version folders, each checked
    against its sha256; those read with ``keep`` are kept, by sha256."""

    def __init__(self, refs: Sequence[VersionRef]) -> None:
        self._refs = refs
        self._kept: dict[str, str] = {}
        self._loaded: dict[int, Catalog] = {}

    def text(self, record: PartRecord, *, keep: bool = True) -> str:
        """The body of ``record``; :class:`~catalog.errors.ManifestError` when its file is
        missing, outside the catalog folder or no longer matches the manifest."""
        found = self._kept.get(record.sha256)
        if found is not None:
            return found
        where = self._refs[record.seen].where
        if record.file is None:  # an overlay's part: its base gives the body
            catalog = self._loaded.get(record.seen)
            if catalog is None:
                catalog = self._loaded[record.seen] = self._refs[record.seen].load()
            text = catalog.part(record.id).body
            path = f"part {record.id!r} of {catalog.name} {catalog.version}"
        else:
            try:
                text, path = read_body(where, record.id, record.file, 0)
            except CatalogError as exc:
                if exc.file is not None:  # there, but unreadable: the error names it
                    raise
                manifest = str(where.manifest_path)
                raise ManifestError(exc.message, file=manifest, hint=exc.hint) from None
        digest = body_sha256(text)
        if digest != record.sha256:
            raise body_changed(
                record.id, path, digest, record.sha256, where.path, file=str(where.manifest_path)
            )
        if keep:
            self._kept[record.sha256] = text
        return text


def _digest(values: Sequence[Any]) -> str:
    text = json.dumps(values, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


_RecordKey = tuple[str, str, int, str, int, str | None, str, str]


def _record_key(decl: PartDecl) -> _RecordKey:
    """What identifies ``decl`` as a :class:`PartRecord` (all but where it was first seen)."""
    # A key a part's dump leaves out when unset (``group``) is left out of its digest too,
    # so that a record without it has the digest it had before the key existed.
    data = decl.model_dump(mode="json", include=set(PART_KEYS))
    return (
        decl.id,
        decl.sha256,
        decl.tokens,
        decl.kind,
        decl.order,
        decl.file,
        _digest([data[key] for key in sorted(ASSEMBLY_KEYS) if key in data]),
        _digest([data[key] for key in _DESCRIPTIVE_KEYS]),
    )


class _Builder:
    """The records and runs of successive versions, fed oldest first."""

    def __init__(self) -> None:
        self.records: list[PartRecord] = []
        self.runs: list[Run] = []
        self._numbers: dict[_RecordKey, int] = {}
        # A parts file's records are the same objects in every version naming it; the
        # defaults of their kind (as JSON) may differ between versions.
        self._seen_decls: dict[tuple[int, str], tuple[PartDecl, int]] = {}
        self._open: dict[str, tuple[int, int]] = {}  # id -> (record, start)

    def number(self, decl: PartDecl, version: int, manifest: Manifest, defaults: str) -> int:
        """The record number of ``decl`` of ``manifest`` (version ``version``), with the
        ``[defaults]`` of its kind (``defaults``: their JSON) applied as compiling
        applies them; a new record when first met."""
        known = self._seen_decls.get((id(decl), defaults))
        if known is not None and known[0] is decl:
            return known[1]
        key = _record_key(manifest.with_defaults(decl))
        number = self._numbers.get(key)
        if number is None:
            number = self._numbers[key] = len(self.records)
            self.records.append(PartRecord(*key, seen=version))
        self._seen_decls[id(decl), defaults] = (decl, number)
        return number

    def version(self, index: int, current: Mapping[str, int]) -> None:
        """Version ``index`` holds record ``current[id]`` for each of its parts."""
        for part_id in [i for i in self._open if i not in current]:
            self._close(part_id, index)
        for part_id, number in current.items():
            open_run = self._open.get(part_id)
            if open_run is not None and open_run[0] == number:
                continue
            if open_run is not None:
                self._close(part_id, index)
            self._open[part_id] = (number, index)

    def finish(self, end: int) -> None:
        """Close every run still open after the last version, ``end - 1``."""
        for part_id in list(self._open):
            self._close(part_id, end)

    def _close(self, part_id: str, end: int) -> None:
        number, start = self._open.pop(part_id)
        self.runs.append(Run(number, start, end))


def check_versions(refs: Sequence[VersionRef]) -> None:
    """Refuse ``refs`` when one of them is a folder loading refuses for its name: its
    manifest's ``version`` is not the folder's name, or its ``name`` not the catalog
    folder's (:func:`~catalog.io.loader.check_folder_names`, loading's own rule and
    error). Otherwise ``log`` would list a version that ``catalog diff`` cannot load.

    Run on every opening, whether the index is then built or taken from the cache
    (which is trusted for nothing): it reads each manifest, not its parts files.
    """
    for ref in refs:
        check_folder_names(read_manifest(ref.where))


def build_index(name: str, key: str, refs: Sequence[VersionRef], bodies: Bodies) -> HistoryIndex:
    """The index of catalog ``name`` from the manifests of ``refs`` (its versions, oldest
    first, passed by :func:`check_versions`); ``bodies`` reads the bodies of the parts
    removed or added between two versions, to pair renames as ``catalog diff`` does."""
    builder = _Builder()
    renames: list[Rename] = []
    moved: dict[int, frozenset[str]] = {}
    before: dict[str, int] = {}
    tokenizers: list[str] = []
    for index, ref in enumerate(refs):
        manifest = merged_manifest(read_manifest(ref.where))
        tokenizers.append(manifest.catalog.tokenizer)
        defaults = {kind: d.model_dump_json() for kind, d in manifest.defaults.items()}
        current = {
            decl.id: builder.number(decl, index, manifest, defaults.get(decl.kind, ""))
            for decl in manifest.part
        }
        if index:
            renames.extend(_renames(index, before, current, builder.records, bodies))
            gone = _moved(before, current, builder.records)
            if gone:
                moved[index] = frozenset(gone)
        builder.version(index, current)
        before = current
    builder.finish(len(refs))
    return HistoryIndex(
        name=name,
        key=key,
        versions=tuple(ref.where.name for ref in refs),
        tokenizers=tuple(tokenizers),
        records=tuple(builder.records),
        runs=tuple(sorted(builder.runs, key=lambda run: (run.start, run.record))),
        renames=tuple(renames),
        moved=moved,
    )


def _renames(
    step: int,
    before: Mapping[str, int],
    after: Mapping[str, int],
    records: Sequence[PartRecord],
    bodies: Bodies,
) -> list[Rename]:
    removed = [i for i in before if i not in after]
    added = [i for i in after if i not in before]
    if not removed or not added:
        return []
    found = find_renames(
        {i: bodies.text(records[before[i]], keep=False) for i in removed},
        {i: bodies.text(records[after[i]], keep=False) for i in added},
    )
    return [Rename(step, old, new, similarity) for old, new, similarity in found]


def _moved(
    before: Mapping[str, int], after: Mapping[str, int], records: Sequence[PartRecord]
) -> set[str]:
    """The shared parts that moved between two versions, as ``catalog diff`` finds them;
    none unless a shared part's ``order`` changed (parts are sorted by order, then id)."""
    if all(records[n].order == records[after[i]].order for i, n in before.items() if i in after):
        return set()

    def in_order(current: Mapping[str, int]) -> list[tuple[str, int]]:
        return sorted(((i, records[n].order) for i, n in current.items()), key=lambda p: p[::-1])

    return moved_parts(in_order(before), in_order(after))
