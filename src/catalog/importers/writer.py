"""Writing imported catalog versions, with every distinct body stored once.

An importer hands :class:`CatalogWriter` the bodies and the manifest text of
each version. Bodies go to ``<catalog>/_blobs/<sha256[:2]>/<sha256>.md`` and
the manifest names them as ``../_blobs/...`` (the loader resolves part files
inside the catalog's own folder, and folders starting with ``_`` are not
versions). A body that many versions share is written, hashed and counted
once: the file name is its sha256, so a blob can never hold another text
than its name says, and ``catalog validate`` still checks every part against
its manifest.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from catalog.compiled import body_sha256
from catalog.errors import ImporterError
from catalog.loader import MANIFEST_NAME
from catalog.tokens import TiktokenCounter, TokenCounter

__all__ = ["BLOBS_DIR", "Body", "CatalogWriter", "StoreSize", "VersionStatus"]

BLOBS_DIR = "_blobs"

VersionStatus = Literal["written", "unchanged", "replaced"]


@dataclass(frozen=True)
class Body:
    """A stored body: the ``file`` a manifest names, its sha256 and token count."""

    file: str
    sha256: str
    tokens: int


@dataclass(frozen=True)
class StoreSize:
    """What one catalog folder holds on disk."""

    versions: int
    manifest_bytes: int
    blobs: int
    blob_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.manifest_bytes + self.blob_bytes


class CatalogWriter:
    """Writes versions of catalog ``name`` into ``out/name/``, sharing bodies by content."""

    def __init__(self, out: str | Path, name: str, counter: TokenCounter | None = None) -> None:
        self.folder = Path(out).expanduser() / name
        self.counter = counter or TiktokenCounter()
        self._bodies: dict[str, Body] = {}
        self._on_disk = self._existing_blobs()
        self.new_blobs = 0

    def _existing_blobs(self) -> set[str]:
        found: set[str] = set()
        blobs = self.folder / BLOBS_DIR
        if blobs.is_dir():
            for shard in os.scandir(blobs):
                if shard.is_dir():
                    found.update(entry.name.removesuffix(".md") for entry in os.scandir(shard))
        return found

    def body(self, text: str) -> Body:
        """Store ``text`` (once) and return how a manifest names it."""
        digest = body_sha256(text)
        known = self._bodies.get(digest)
        if known is not None:
            return known
        file = f"{BLOBS_DIR}/{digest[:2]}/{digest}.md"
        if digest not in self._on_disk:
            _write_atomic(self.folder / file, text.replace("\r\n", "\n"))
            self._on_disk.add(digest)
            self.new_blobs += 1
        body = Body(f"../{file}", digest, self.counter(text))
        self._bodies[digest] = body
        return body

    def write_version(self, version: str, manifest: str, *, force: bool = False) -> VersionStatus:
        """Write ``version/catalog.toml``; an existing different one needs ``force``."""
        path = self.folder / version / MANIFEST_NAME
        status: VersionStatus = "written"
        if path.is_file():
            if path.read_text(encoding="utf-8") == manifest:
                return "unchanged"
            if not force:
                raise ImporterError(
                    f"version {version} already exists with a different manifest",
                    file=str(path),
                    hint="pass --force to replace it, or import into another --out folder",
                )
            status = "replaced"
        _write_atomic(path, manifest)
        return status

    def write_file(self, name: str, text: str) -> None:
        """Write a file beside the versions (a licence, say): the store ignores files."""
        _write_atomic(self.folder / name, text)

    def size(self) -> StoreSize:
        """Versions, manifests and blobs now in the catalog folder."""
        manifests = [
            path
            for entry in os.scandir(self.folder)
            if entry.is_dir() and not entry.name.startswith(("_", "."))
            if os.path.isfile(path := os.path.join(entry.path, MANIFEST_NAME))
        ]
        manifest_bytes = sum(os.path.getsize(path) for path in manifests)
        blob_bytes = 0
        blobs = self.folder / BLOBS_DIR
        count = 0
        if blobs.is_dir():
            for shard in os.scandir(blobs):
                for entry in os.scandir(shard):
                    blob_bytes += entry.stat().st_size
                    count += 1
        return StoreSize(len(manifests), manifest_bytes, count, blob_bytes)


def _write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # mkstemp creates 0600; catalogs are meant to be shared
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
