"""The history index of a catalog kept between calls and between commands.

Building a :class:`~catalog.changes.history.index.HistoryIndex` reads every version's
manifest and shared parts files: about a second for 265 versions of 700
parts, too slow to pay on every ``catalog log``. The index depends on the
manifests alone (a manifest pins its parts files and its bodies by sha256),
so it is kept under the digest of the manifests' texts (:func:`index_key`):
in memory (the last few indexes), and as a file named by that digest in the
user's own cache folder (:func:`cache_folder`), never in a catalog's folder.

Trusted for nothing by construction: the only files read are ones this user's
processes wrote, in a folder of this user that no one else may write (checked on
every read: a folder or a file of another owner, writable by others, or a link is
neither read nor written). What a catalog brings with it is never read: a
``_cache/history.json`` inside a catalog folder (earlier versions wrote one) is
ignored with a :class:`CacheWarning`. A file is still bounded, validated, checked
for consistency and for the very versions it describes; anything wrong and the
index is built again and the file replaced. Deleting the cache folder is always
safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from pydantic import ValidationError

from catalog.cache import BoundedCache
from catalog.changes.history.index import HistoryIndex, PartRecord, Rename, Run
from catalog.errors import CatalogError
from catalog.io.loader import manifest_text
from catalog.io.textfile import read_text, write_text
from catalog.io.userdirs import private_folder, user_cache_dir
from catalog.schema import SchemaModel

if TYPE_CHECKING:
    from catalog.io.catalog_path import VersionRef

__all__ = [
    "CACHE_DIR",
    "CACHE_FILE",
    "FORMAT",
    "MAX_CACHE_FILES",
    "CacheWarning",
    "cache_folder",
    "cached_index",
    "index_key",
]

FORMAT: Final = 2
"""Bumped when the index or its file changes meaning: older files are rebuilt (2:
short bodies are paired as renames by shorter shingles)."""
CACHE_DIR = "_cache"
CACHE_FILE = "history.json"
"""Where earlier versions kept the cache inside a catalog folder: ignored, with a warning."""
MAX_CACHE_FILES: Final = 64
"""Most index files kept in the cache folder; the least recently written go first."""
_MEMORY: Final[BoundedCache[str, HistoryIndex]] = BoundedCache(8)  # indexes kept in memory
_warned: set[str] = set()  # the files ignored, each said once a process


class CacheWarning(UserWarning):
    """A history cache that is not read: one a catalog folder carries, or one in a
    cache folder that others may write. The index is built instead."""


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


def cache_folder() -> Path:
    """The folder of the history cache files: ``history`` in the user's cache folder
    (:func:`~catalog.io.userdirs.user_cache_dir`, ``$XDG_CACHE_HOME`` when set)."""
    return user_cache_dir() / "history"


def cached_index(
    name: str,
    refs: Sequence[VersionRef],
    build: Callable[[str], HistoryIndex],
    *,
    keep: bool = True,
) -> HistoryIndex:
    """The index of ``refs`` (catalog ``name``'s versions, oldest first): kept in memory
    or in the user's cache folder under :func:`index_key`, else ``build(key)``, then kept.

    ``keep=False`` neither reads nor writes a file (memory is still used).
    """
    _ignore_shipped(refs)
    key = index_key(name, refs)
    found = _MEMORY.get(key)
    if found is not None:
        return found
    path = _cache_path(key) if keep else None
    found = _read(path, key, name, refs) if path is not None else None
    if found is None:
        found = build(key)
        if path is not None:
            _write(path, found)
    _MEMORY.put(key, found)
    return found


def _ignore_shipped(refs: Sequence[VersionRef]) -> None:
    """Warn, once a process, of a history cache inside the catalog's folder: whoever
    wrote the catalog could have written it, so it is not read."""
    folder = refs[0].where.catalog_dir if refs else None
    if not isinstance(folder, Path):
        return
    shipped = folder / CACHE_DIR / CACHE_FILE
    if str(shipped) in _warned or _kind(shipped) is None:
        return
    _warned.add(str(shipped))
    warnings.warn(
        f"{shipped}: ignored: a history cache inside a catalog folder is never read "
        f"(whoever wrote the catalog could have written it); the history is built from "
        f"the manifests and kept in {cache_folder()}; delete {folder / CACHE_DIR}",
        CacheWarning,
        stacklevel=4,
    )


def _cache_path(key: str) -> Path | None:
    """The file of ``key`` in the cache folder, made when absent; None (with a warning,
    once) when the folder cannot be made or others may write it."""
    folder = cache_folder()
    try:
        private = private_folder(folder, check=2)
    except OSError:
        return None
    if not private:
        if str(folder) not in _warned:
            _warned.add(str(folder))
            warnings.warn(
                f"{folder}: the history cache is not used: this folder or its parent is "
                "a link, another user's, or writable by others; make it yours alone "
                "(chmod 700) or set XDG_CACHE_HOME to a folder of your own",
                CacheWarning,
                stacklevel=4,
            )
        return None
    return folder / f"{key}.json"


def _mine(path: Path) -> bool:
    """Whether ``path`` itself is a regular file (not a link) of this user."""
    try:
        found = os.lstat(path)
    except OSError:
        return False
    owner = found.st_uid == os.getuid() if hasattr(os, "getuid") else True
    return stat.S_ISREG(found.st_mode) and owner


def _kind(path: Path) -> int | None:
    """The file type of ``path`` itself (a link is a link); None when absent."""
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except OSError:
        return None


def _read(path: Path, key: str, name: str, refs: Sequence[VersionRef]) -> HistoryIndex | None:
    """The index in ``path`` when it is a regular file of this user holding a consistent
    index of ``key``: catalog ``name`` in the versions of ``refs``."""
    if not _mine(path):
        return None
    try:
        text = read_text(path, CatalogError, "the history cache", "delete it")
        data = _CacheFile.model_validate_json(text)
    except (CatalogError, ValidationError, ValueError):
        return None
    versions = tuple(ref.where.name for ref in refs)
    if data.key != key or data.name != name or data.versions != versions:
        return None
    if not _consistent(data):
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
    """Write ``index`` to ``path`` (in the private cache folder) unless something else
    than a regular file is there, then keep the :data:`MAX_CACHE_FILES` newest files."""
    if _kind(path) not in (None, stat.S_IFREG):
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
    _prune(path.parent)


def _prune(folder: Path) -> None:
    """Delete the least recently written index files past :data:`MAX_CACHE_FILES`."""
    try:
        files = [
            (entry.stat().st_mtime, entry.path)
            for entry in os.scandir(folder)
            if entry.name.endswith(".json")
        ]
    except OSError:
        return
    files.sort(reverse=True)
    for _, stale in files[MAX_CACHE_FILES:]:
        with contextlib.suppress(OSError):
            os.unlink(stale)
