"""Writing imported catalog versions, with every distinct body stored once.

An importer hands :class:`CatalogWriter` the bodies and the manifest text of
each version. Bodies go to ``<catalog>/_blobs/<sha256[:2]>/<sha256>.md`` and
the manifest names them as ``../_blobs/...`` (the loader resolves part files
inside the catalog's own folder, and folders starting with ``_`` are not
versions). A body that many versions share is written, hashed and counted
once: the file name is its sha256, so a blob can never hold another text
than its name says, and ``catalog validate`` still checks every part against
its manifest.

Part records that do not change between versions are shared the same way:
:meth:`CatalogWriter.parts_file` stores a TOML file of ``[[part]]`` tables
once under ``<catalog>/_parts/<sha256[:2]>/<sha256>.toml``, for manifests to
name in ``[[parts_from]]`` (see :mod:`catalog.importers.layers`).

Nothing is written for a version the writer refuses: its new bodies are
kept in memory until :meth:`CatalogWriter.write_version` accepts it, so a
refused import leaves the folder as it was. Nothing the loader would refuse
is written: a body, parts file or manifest over
:data:`~catalog._textfile.MAX_FILE_BYTES` is an error when it is stored.

One release is one version folder: :meth:`CatalogWriter.version_folder` names
it by the version already there that is equal to it (PEP 440: ``1.0`` is
``1.0.0``), else by the version's normalised text, so that equal versions
never get two folders that shadow each other.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from packaging.version import (
    InvalidVersion,
    Version,
)

from catalog.engine.compile import (
    body_sha256,
)
from catalog.errors import ImporterError
from catalog.io.loader import MANIFEST_NAME
from catalog.io.textfile import (
    MAX_FILE_BYTES,
    read_capped,
    read_text,
    write_text,
)
from catalog.tokens import TiktokenCounter, TokenCounter

__all__ = [
    "BLOBS_DIR",
    "PARTS_DIR",
    "Body",
    "CatalogWriter",
    "FileStatus",
    "StoreSize",
    "VersionStatus",
]

BLOBS_DIR = "_blobs"
PARTS_DIR = "_parts"

VersionStatus = Literal["written", "unchanged", "replaced"]
FileStatus = Literal["written", "unchanged", "replaced"]


@dataclass(frozen=True, slots=True)
class Body:
    """A stored body: the ``file`` a manifest names, its sha256, token count and
    size in bytes as stored."""

    file: str
    sha256: str
    tokens: int
    size: int = 0


@dataclass(frozen=True, slots=True)
class StoreSize:
    """What one catalog folder holds on disk."""

    versions: int
    manifest_bytes: int
    blobs: int
    blob_bytes: int
    parts_files: int = 0
    parts_bytes: int = 0

    @property
    def total_bytes(self) -> int:
        """Manifests, shared parts files and bodies together."""
        return self.manifest_bytes + self.parts_bytes + self.blob_bytes


class CatalogWriter:
    """Writes versions of catalog ``name`` into ``out/name/``, sharing bodies by content."""

    def __init__(self, out: str | Path, name: str, counter: TokenCounter | None = None) -> None:
        self.folder = Path(out).expanduser() / name
        self.counter = counter or TiktokenCounter()
        self._bodies: dict[str, Body] = {}
        self._on_disk = {
            os.path.relpath(entry.path, self.folder).replace(os.sep, "/")
            for folder in (BLOBS_DIR, PARTS_DIR)
            for entry in self._entries(folder)
        }
        # path -> text, until a version using it is written
        self._pending: dict[str, str] = {}
        self.new_blobs = 0
        self._versions: dict[Version, set[str]] = {}  # version -> its folders here
        for entry in _scan(self.folder):
            if entry.is_dir() and not entry.name.startswith(("_", ".")):
                try:
                    self._versions.setdefault(Version(entry.name), set()).add(entry.name)
                except InvalidVersion:
                    continue

    def _entries(self, folder: str) -> list[os.DirEntry[str]]:
        """The files in ``folder/*/`` (stray files beside the shard folders are not stored)."""
        found: list[os.DirEntry[str]] = []
        for shard in _scan(self.folder / folder):
            if shard.is_dir():
                found.extend(entry for entry in _scan(Path(shard.path)) if entry.is_file())
        return found

    def version_folder(self, version: str) -> str:
        """The folder a release of ``version`` goes to: the one already here whose
        version is equal (``1.0`` for ``1.0.0``), else the normalised version
        (``str(Version(version))``); two equal folders here are an error."""
        try:
            key = Version(version)
        except InvalidVersion:
            return version  # refused with the manifest, by the [catalog] table's check
        found = self._versions.setdefault(key, set())
        if len(found) > 1:
            names = " and ".join(sorted(found))
            raise ImporterError(
                f"versions {names} are equal (PEP 440) and shadow each other",
                file=str(self.folder),
                hint="keep one of the folders (remove the other), then import again",
            )
        if not found:
            found.add(str(key))
        return next(iter(found))

    def _store(self, folder: str, digest: str, suffix: str, text: str) -> str:
        """The path of ``text`` under ``folder``, by its sha256, as a manifest names it;
        written with the next version written unless it is on disk already."""
        file = f"{folder}/{digest[:2]}/{digest}{suffix}"
        if file not in self._on_disk:
            stored = text.replace("\r\n", "\n")
            _check_size(stored, file)
            self._pending[file] = stored
        return f"../{file}"

    def body(self, text: str) -> Body:
        """CatalogPath ``text`` (once) and return how a manifest names it.

        A body not on disk yet is written with the next version written.
        """
        digest = body_sha256(text)
        known = self._bodies.get(digest)
        if known is not None:
            return known
        file = self._store(BLOBS_DIR, digest, ".md", text)
        size = len(text.replace("\r\n", "\n").encode("utf-8"))
        body = Body(file, digest, self.counter(text), size)
        self._bodies[digest] = body
        return body

    def parts_file(self, text: str) -> tuple[str, str]:
        """Store the parts file ``text`` (once) and return the ``file`` and ``sha256``
        a ``[[parts_from]]`` names it by."""
        digest = body_sha256(text)
        return self._store(PARTS_DIR, digest, ".toml", text), digest

    def write_version(
        self,
        version: str,
        manifest: str,
        *,
        force: bool = False,
        difference: Callable[[Path], str | None] | None = None,
    ) -> VersionStatus:
        """Write ``version/catalog.toml`` and the new bodies it names.

        An existing manifest with other content needs ``force``, unless
        ``difference`` says (None) that the manifest at that path holds the same
        catalog; the error says what ``difference`` found (which part differs, in
        a rewritten history: the manifest's own lines name only parts files),
        else the manifest's first differing line.
        """
        path = self.folder / version / MANIFEST_NAME
        _check_size(manifest, f"{version}/{MANIFEST_NAME}")
        status: VersionStatus = "written"
        if path.is_file():
            existing = _read_existing(path)
            found = None if existing == manifest or difference is None else difference(path)
            if existing != manifest and difference is not None and found is None:
                existing = manifest  # says the same in other words: kept as it is
            if existing != manifest and not force:
                raise _exists_error(version, path, existing, manifest, found)
            status = "unchanged" if existing == manifest else "replaced"
        for file, text in self._pending.items():
            _write_atomic(self.folder / file, text)
            self._on_disk.add(file)
            self.new_blobs += file.startswith(BLOBS_DIR)
        self._pending.clear()
        if status != "unchanged":
            _write_atomic(path, manifest)
        return status

    def file_status(self, name: str, text: str, *, force: bool = False) -> FileStatus:
        """What :meth:`write_file` would do with ``text`` as file ``name`` beside the
        versions; another text there is an error unless ``force``."""
        path = self.folder / name
        if not os.path.lexists(path):
            return "written"
        try:
            raw, _ = read_capped(path, MAX_FILE_BYTES)
        except OSError as exc:
            raise ImporterError(
                f"cannot read the existing file: {exc.strerror or exc}",
                file=str(path),
                hint="remove it, or import into another --out folder",
            ) from None
        if raw == text.encode("utf-8"):
            return "unchanged"
        if not force:
            raise ImporterError(
                f"{name} already exists with other text than the import would write",
                file=str(path),
                hint="pass --force to replace it, or import into another --out folder",
            )
        return "replaced"

    def write_file(self, name: str, text: str, *, force: bool = False) -> FileStatus:
        """Write a file beside the versions (a licence, say: the store ignores files);
        an existing one with the same text is kept, one with another text needs
        ``force``."""
        status = self.file_status(name, text, force=force)
        if status != "unchanged":
            _write_atomic(self.folder / name, text)
        return status

    def size(self) -> StoreSize:
        """Versions, manifests and blobs now in the catalog folder."""
        manifests = [
            path
            for entry in _scan(self.folder)
            if entry.is_dir() and not entry.name.startswith(("_", "."))
            if os.path.isfile(path := os.path.join(entry.path, MANIFEST_NAME))
        ]
        manifest_bytes = sum(os.path.getsize(path) for path in manifests)
        blobs = self._entries(BLOBS_DIR)
        blob_bytes = sum(entry.stat().st_size for entry in blobs)
        parts = self._entries(PARTS_DIR)
        parts_bytes = sum(entry.stat().st_size for entry in parts)
        return StoreSize(
            len(manifests), manifest_bytes, len(blobs), blob_bytes, len(parts), parts_bytes
        )


def _scan(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of ``folder``; none when it does not exist or is not a folder."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _check_size(text: str, file: str) -> None:
    """Refuse a file the loader would refuse for its size."""
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise ImporterError(
            f"{file} would be {size} bytes, more than the {MAX_FILE_BYTES} bytes the catalog "
            "loader reads",
            hint="a catalog this large would import but never load; leave the largest parts out",
        )


def _read_existing(path: Path) -> str:
    """The manifest already in a version folder, read as the loader reads it."""
    return read_text(
        path,
        ImporterError,
        "the existing manifest",
        "remove the version folder, or import into another --out folder",
    )


def _exists_error(
    version: str, path: Path, existing: str, manifest: str, found: str | None
) -> ImporterError:
    """The error for version ``version`` existing with other content: what differs
    (``found``: a part, when the caller could tell), else the first differing line."""
    line, was, now = _first_difference(existing, manifest)
    what = found or f"this line reads {was!r}, the import would write {now!r}"
    return ImporterError(
        f"version {version} already exists with a different manifest: {what}",
        file=str(path),
        line=None if found else line,
        hint=("the release changed since it was imported (a rewritten history?): " if found else "")
        + "pass --force to replace it, or import into another --out folder",
    )


def _first_difference(old: str, new: str) -> tuple[int, str, str]:
    """The first line (1-based) where ``old`` and ``new`` differ, and both lines there
    (cut to 100 characters)."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    number = next(
        (
            n
            for n, pair in enumerate(zip(old_lines, new_lines, strict=False), 1)
            if len(set(pair)) > 1
        ),
        min(len(old_lines), len(new_lines)) + 1,
    )
    return number, _line(old_lines, number), _line(new_lines, number)


def _line(lines: list[str], number: int) -> str:
    text = lines[number - 1] if number <= len(lines) else ""
    return text if len(text) <= 100 else text[:99] + "\u2026"


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step (:func:`catalog.io.textfile.write_text`), its
    folder made first: a crash never leaves half a file, and a folder that cannot be
    made or written is an :class:`ImporterError` naming what is in the way."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(path, exc) from None
    write_text(path, text, ImporterError, _WRITE_HINT)


_WRITE_HINT = "check that --out is a folder you can write to"


def _write_error(path: Path, exc: OSError) -> ImporterError:
    """The error for ``path``, naming what is in the way (a file where a folder must go...)."""
    where = Path(exc.filename2 or exc.filename or path)
    # A file where a folder must go: name that file, not the folder that could not be made.
    where = next((p for p in (*reversed(where.parents), where) if p.is_file()), where)
    return ImporterError(
        f"cannot write: {exc.strerror or exc}",
        file=str(where),
        hint=_WRITE_HINT,
    )
