"""The history index of a catalog kept between calls and between commands.

Building a :class:`~catalog.changes.history.index.HistoryIndex` reads every version's
manifest and shared parts files: about a second for 265 versions of 700
parts, too slow to pay on every ``catalog log``. The index depends on the
manifests alone (a manifest pins its parts files and its bodies by sha256),
so it is kept under the digest of the manifests' texts (:func:`index_key`):
in memory (the last few indexes), and as ``_cache/history.json`` inside the
catalog's folder when the catalog comes from a folder given by ``--path`` or
``CATALOG_PATH`` (never inside an installed package). Folders whose names
start with ``_`` are not versions: the cache is invisible to everything else.

The file is derived data and read as untrusted: bounded, a regular file only
(not a link), validated, and checked for consistency; anything wrong, or a
key that differs, and the index is built again and the file replaced. A link
or another kind of file where the cache goes is left alone and nothing is
written. Deleting ``_cache`` is always safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from pydantic import ValidationError

from catalog.cache import BoundedCache
from catalog.changes.history.index import HistoryIndex, PartRecord, Rename, Run
from catalog.errors import CatalogError
from catalog.io.loader import manifest_text
from catalog.io.textfile import read_text, write_text
from catalog.schema import SchemaModel

if TYPE_CHECKING:
    from catalog.io.catalog_path import VersionRef

__all__ = ["CACHE_DIR", "CACHE_FILE", "FORMAT", "cached_index", "index_key"]

FORMAT: Final = 2
"""Bumped when the index or its file changes meaning: older files are rebuilt (2:
short bodies are paired as renames by shorter shingles)."""
CACHE_DIR = "_cache"
CACHE_FILE = "history.json"
_MEMORY: Final[BoundedCache[str, HistoryIndex]] = BoundedCache(8)  # indexes kept in memory


class _CacheFile(SchemaModel):
    """``_cache/history.json``: a history index as compact arrays."""

    format: Literal[2]
    key: str
    name: str
    # Plain tuples: validated from JSON, where strict mode takes an array for one.
    versions: tuple[str, ...]
    tokenizers: tuple[str, ...]
    # id, sha256, tokens, kind, order, file, assembly, details, seen
    records: tuple[tuple[str, str, int, str, int, str | None, str, str, int], ...]
    runs: tuple[tuple[int, int, int], ...]  # record, start, end
    renames: tuple[tuple[int, str, str, float], ...]  # step, old id, new id, similarity
    moved: tuple[tuple[int, tuple[str, ...]], ...]  # step, ids


def index_key(name: str, refs: Sequence[VersionRef]) -> str:
    """The digest of catalog ``name``'s versions: each folder's name and manifest text."""
    digest = hashlib.sha256(f"history {FORMAT}\0{name}\0".encode())
    for ref in refs:
        text = manifest_text(ref.where)
        digest.update(f"{ref.where.name}\0{len(text)}\0".encode())
        digest.update(text.encode("utf-8"))
    return digest.hexdigest()


def cached_index(
    name: str,
    refs: Sequence[VersionRef],
    build: Callable[[str], HistoryIndex],
    *,
    keep: bool = True,
) -> HistoryIndex:
    """The index of ``refs`` (catalog ``name``'s versions, oldest first): kept in memory
    or on disk under :func:`index_key`, else ``build(key)``, then kept.

    ``keep=False`` neither reads nor writes the file (memory is still used).
    """
    key = index_key(name, refs)
    found = _MEMORY.get(key)
    if found is not None:
        return found
    path = _cache_path(refs) if keep else None
    found = _read(path, key) if path is not None else None
    if found is None:
        found = build(key)
        if path is not None:
            _write(path, found)
    _MEMORY.put(key, found)
    return found


def _cache_path(refs: Sequence[VersionRef]) -> Path | None:
    """Where the file goes: inside a catalog folder on disk that a user's path names."""
    if not refs:
        return None
    folder = refs[0].where.catalog_dir
    if not isinstance(folder, Path) or not refs[0].source.startswith("path "):
        return None
    return folder / CACHE_DIR / CACHE_FILE


def _kind(path: Path) -> int | None:
    """The file type of ``path`` itself (a link is a link); None when absent."""
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except OSError:
        return None


def _read(path: Path, key: str) -> HistoryIndex | None:
    """The index in ``path`` when it is a regular file holding a consistent index of ``key``."""
    if _kind(path) != stat.S_IFREG:
        return None
    try:
        text = read_text(path, CatalogError, "the history cache", "delete it")
        data = _CacheFile.model_validate_json(text)
    except (CatalogError, ValidationError, ValueError):
        return None
    if data.key != key or not _consistent(data):
        return None
    return HistoryIndex(
        name=data.name,
        key=data.key,
        versions=data.versions,
        tokenizers=data.tokenizers,
        records=tuple(PartRecord(*record) for record in data.records),
        runs=tuple(Run(*run) for run in data.runs),
        renames=tuple(Rename(*rename) for rename in data.renames),
        moved={step: frozenset(ids) for step, ids in data.moved},
    )


def _consistent(data: _CacheFile) -> bool:
    """Whether every number in ``data`` points where it may, and no part is in two runs
    of one version."""
    count = len(data.versions)
    if len(data.tokenizers) != count or any(not 0 <= record[8] < count for record in data.records):
        return False
    last_end: dict[str, int] = {}
    for number, start, end in sorted(data.runs, key=lambda run: run[1]):
        if not (0 <= number < len(data.records) and 0 <= start < end <= count):
            return False
        part_id = data.records[number][0]
        if start < last_end.get(part_id, 0):
            return False
        last_end[part_id] = end
    steps = [rename[0] for rename in data.renames] + [step for step, _ in data.moved]
    return all(0 < step < count for step in steps)


def _write(path: Path, index: HistoryIndex) -> None:
    """Write ``index`` to ``path`` when its folder is a real one (made if absent) and the
    file is absent or a regular file; a folder that cannot be written is passed over."""
    folder = path.parent
    if _kind(folder) is None:
        try:
            folder.mkdir()
        except OSError:
            return
    if _kind(folder) != stat.S_IFDIR or _kind(path) not in (None, stat.S_IFREG):
        return
    data = _CacheFile(
        format=FORMAT,
        key=index.key,
        name=index.name,
        versions=index.versions,
        tokenizers=index.tokenizers,
        records=tuple(
            (r.id, r.sha256, r.tokens, r.kind, r.order, r.file, r.assembly, r.details, r.seen)
            for r in index.records
        ),
        runs=tuple((run.record, run.start, run.end) for run in index.runs),
        renames=tuple((r.step, r.old_id, r.new_id, r.similarity) for r in index.renames),
        moved=tuple((step, tuple(sorted(ids))) for step, ids in sorted(index.moved.items())),
    )
    with contextlib.suppress(CatalogError):  # a cache not kept is built again next time
        write_text(path, data.model_dump_json(), CatalogError)
