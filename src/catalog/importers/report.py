"""What an import did, and what differs in a version imported before.

Every importer reports the same way (:class:`ImportReport`, one
:class:`ImportedVersion` per release), and every importer meets a version
folder that is already there: :func:`version_difference` tells whether it
holds the same parts however its manifest shares them, and otherwise which
part differs, for :meth:`~catalog.importers.writer.CatalogWriter.write_version`
to say.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalog.errors import CatalogError, ImporterError, RecordError
from catalog.importers.writer import Body, CatalogWriter, StoreSize, VersionStatus
from catalog.io.loader import VersionDir, merged_manifest, read_manifest
from catalog.schema import validate
from catalog.schema.manifest import NAME_RULE, CatalogInfo, PartDecl, name_problem

__all__ = [
    "BuiltVersion",
    "ImportReport",
    "ImportedVersion",
    "catalog_table",
    "version_difference",
    "write_versions",
]


@dataclass(frozen=True, slots=True)
class BuiltVersion:
    """One release made ready to write: its version folder, manifest, part records
    (id -> ``[[part]]`` TOML), bodies, and the licence it comes with."""

    version: str
    manifest: str
    records: dict[str, str]
    bodies: tuple[Body, ...]
    license: str | None = None


@dataclass(frozen=True, slots=True)
class ImportedVersion:
    """What importing one release did."""

    version: str
    parts: int
    new_bodies: int
    status: VersionStatus


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did, and what the catalog folder holds now.

    ``shared_bytes`` and ``unshared_bytes`` measure the same thing, the bodies
    of the versions imported now (UTF-8 bytes, as stored): each distinct body
    once (as ``_blobs/`` holds them), and one copy per version (as plain
    version folders would). ``size`` is the whole folder on disk, earlier
    imports included.
    """

    folder: Path
    versions: tuple[ImportedVersion, ...]
    size: StoreSize
    unshared_bytes: int
    shared_bytes: int = 0
    distinct_bodies: int = 0


def version_difference(records: dict[str, str], path: Path) -> str | None:
    """What differs between the version at ``path`` (its ``catalog.toml``) and the
    parts ``records`` holds, however its manifest shares them (an import of another
    range of releases lays the shared parts files out differently): None when
    nothing does, "" when the version there cannot be read."""
    try:
        existing = merged_manifest(read_manifest(VersionDir(path.parent.parent, path.parent.name)))
    except CatalogError:
        return ""
    old = {part.id: part.model_dump(by_alias=True, exclude_unset=True) for part in existing.part}
    new = {
        pid: validate(PartDecl, tomllib.loads(table)["part"][0]).model_dump(
            by_alias=True, exclude_unset=True
        )
        for pid, table in records.items()
    }
    if old == new:
        return None
    return _parts_differ(old, new)


def _parts_differ(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> str:
    """The first of the parts that differ between two versions' records, in words, and
    how many more do: what a rewritten history changed in a release."""
    said: list[str] = []
    for pid in sorted(old.keys() | new.keys()):
        if pid not in new:
            said.append(f"part {pid!r} is there, not in this release")
        elif pid not in old:
            said.append(f"this release adds part {pid!r}")
        elif old[pid] != new[pid]:
            keys = sorted(
                k for k in old[pid].keys() | new[pid].keys() if old[pid].get(k) != new[pid].get(k)
            )
            said.append(f"part {pid!r} has another {_keys_in_words(keys)}")
    more = f" (and {len(said) - 1} more part(s))" if len(said) > 1 else ""
    return said[0] + more


def _keys_in_words(keys: list[str]) -> str:
    """Changed record keys as a reader says them: the body (its sha256, with the
    file and tokens that follow from it), then the other keys."""
    if "sha256" not in keys:
        return ", ".join(keys)
    rest = [key for key in keys if key not in ("sha256", "file", "tokens")]
    return ", ".join(["body", *rest])


def catalog_table(name: str, version: str, **keys: str) -> dict[str, str]:
    """The ``[catalog]`` table of version ``version`` of catalog ``name`` (with ``keys``),
    checked: a name or version the loader would refuse is an error before anything is
    written."""
    problem = name_problem(name)
    if problem is not None:  # said in words, with a name that would do
        raise ImporterError(
            f"cannot import as catalog {name!r}: {problem}", hint=f"a catalog name is {NAME_RULE}"
        )
    info = {"name": name, "version": version, **keys}
    try:
        validate(CatalogInfo, info)
    except RecordError as exc:
        raise ImporterError(
            f"cannot import as catalog {name!r} {version!r}: {exc.problems[0].message}",
            hint="a version is PEP 440, e.g. 2.1.240",
        ) from None
    return info


def write_versions(
    writer: CatalogWriter,
    built: Iterable[BuiltVersion],
    *,
    force: bool = False,
    on_version: Callable[[ImportedVersion], None] | None = None,
) -> ImportReport:
    """Write each version ``built`` gives (oldest first) with ``writer``.

    A version already there with the same parts is kept as it is; with other
    parts it needs ``force``. The newest licence given is written to
    ``LICENSE`` beside the versions; another text there needs ``force`` too,
    and is refused before any version is written.
    """
    done: list[ImportedVersion] = []
    unshared = 0
    distinct: dict[str, int] = {}  # sha256 -> bytes of the bodies imported now
    license_text = None
    for item in built:
        if item.license is not None and item.license != license_text:
            writer.file_status("LICENSE", item.license, force=force)
            license_text = item.license
        before = writer.new_blobs
        status = writer.write_version(
            item.version,
            item.manifest,
            force=force,
            difference=functools.partial(version_difference, item.records),
        )
        imported = ImportedVersion(
            item.version, len(item.records), writer.new_blobs - before, status
        )
        done.append(imported)
        if on_version is not None:
            on_version(imported)
        for body in item.bodies:
            unshared += body.size
            distinct[body.sha256] = body.size
    if license_text is not None:
        writer.write_file("LICENSE", license_text, force=force)
    return ImportReport(
        writer.folder,
        tuple(done),
        writer.size(),
        unshared,
        sum(distinct.values()),
        len(distinct),
    )
