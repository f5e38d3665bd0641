"""Write imported releases as catalog versions into a catalog folder."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from catalog.errors import CatalogError, ImporterError, RecordError
from catalog.importers.layers import PartLayers
from catalog.importers.piebald.parse import UPSTREAM, ReadmeEntry, UpstreamPart, check_part_ids
from catalog.importers.piebald.read import Release
from catalog.importers.writer import (
    Body,
    CatalogWriter,
    StoreSize,
    VersionStatus,
)
from catalog.io.loader import (
    VersionDir,
    merged_manifest,
    read_manifest,
)
from catalog.schema import (
    validate,
)
from catalog.schema.manifest import (
    NAME_RULE,
    CatalogInfo,
    PartDecl,
    name_problem,
)

__all__ = [
    "REFERENCE_COUNTER",
    "ImportReport",
    "ImportedVersion",
    "import_releases",
]


# Who counted the README's figures, kept as each part's ``reference_tokens``.
REFERENCE_COUNTER = f"Anthropic's token counting API, as published in {UPSTREAM}'s README"


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


def import_releases(
    releases: Iterable[Release],
    *,
    name: str,
    out: str | Path = ".",
    force: bool = False,
    on_version: Callable[[ImportedVersion], None] | None = None,
) -> ImportReport:
    """Write each release as version ``out/name/<version>/`` of catalog ``name``.

    The folder is the version already there that equals the release's (PEP 440:
    ``1.0`` is ``1.0.0``), else the release's normalised version. The newest
    release's licence is written to ``out/name/LICENSE``; a different file
    there, like a version with other content, needs ``force``.
    """
    writer = CatalogWriter(out, name)
    layers = PartLayers(writer)
    tables: dict[tuple[str, str, ReadmeEntry | None], tuple[str, Body]] = {}
    done: list[ImportedVersion] = []
    unshared = 0
    distinct: dict[str, int] = {}  # sha256 -> bytes of the bodies imported now
    license_text = None
    for release in releases:
        if release.license is not None and release.license != license_text:
            writer.file_status("LICENSE", release.license, force=force)
            license_text = release.license
        before = writer.new_blobs
        version = writer.version_folder(release.version)
        manifest, records, bodies = _manifest(release, name, version, writer, tables, layers)
        status = writer.write_version(
            version, manifest, force=force, difference=functools.partial(_difference, records)
        )
        item = ImportedVersion(version, len(release.parts), writer.new_blobs - before, status)
        done.append(item)
        if on_version is not None:
            on_version(item)
        for body in bodies:
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


def _manifest(
    release: Release,
    name: str,
    version: str,
    writer: CatalogWriter,
    tables: dict[tuple[str, str, ReadmeEntry | None], tuple[str, Body]],
    layers: PartLayers,
) -> tuple[str, dict[str, str], list[Body]]:
    """The ``catalog.toml`` of one release as ``version``; each part's table is built
    once per content and stored in the shared parts files ``layers`` names; also the
    part tables, by id, and the parts' bodies."""
    # The summary is the same in every release, so that diffs between releases show
    # no change in it; the release and its commit are said in a comment.
    summary = f"Claude Code's prompt parts, from {UPSTREAM}"
    provenance = f"# Claude Code {release.version} from {UPSTREAM}"
    if release.commit:
        provenance += f", commit {release.commit}"
    info = {
        "name": name,
        "version": version,
        "summary": summary,
        "reference_counter": REFERENCE_COUNTER,
    }
    problem = name_problem(name)
    if problem is not None:
        raise ImporterError(
            f"cannot import as catalog {name!r}: {problem}", hint=f"a catalog name is {NAME_RULE}"
        )
    try:
        validate(CatalogInfo, info)
    except RecordError as exc:
        message = exc.problems[0].message
        raise ImporterError(
            f"cannot import as catalog {name!r} {version!r}: {message}",
            hint="a version is PEP 440, e.g. 2.1.240",
        ) from None
    records: dict[str, str] = {}
    bodies: list[Body] = []
    # The readers check this; a release made by hand is checked too.
    check_part_ids((part.file for part in release.parts), release=release.version)
    for part in sorted(release.parts, key=lambda p: (p.category.order, p.id)):
        entry = release.readme.entries.get(part.file)
        key = (part.file, part.source or part.body, entry)
        if key not in tables:
            body = writer.body(part.body)
            tables[key] = tomli_w.dumps({"part": [_part_table(part, entry, body)]}), body
        records[part.id], body = tables[key]
        bodies.append(body)
    document = {"catalog": info, "parts_from": layers.entries(records)}
    return provenance + "\n" + tomli_w.dumps(document), records, bodies


def _difference(records: dict[str, str], path: Path) -> str | None:
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


def _part_table(part: UpstreamPart, entry: ReadmeEntry | None, body: Body) -> dict[str, Any]:
    category = part.category
    meta = {key: value for key, value in part.header.items() if key != "description"}
    meta.setdefault("name", entry.name if entry else part.id)
    meta["category"] = category.label
    table: dict[str, Any] = {"id": part.id, "file": body.file, "kind": category.kind}
    if category.kind == "tool":
        label = str(meta["name"])
        table["name"] = label.split(": ", 1)[1] if ": " in label else part.id
    table.update(
        description=part.description or (entry.description if entry else ""),
        order=category.order,
        template=False,
        tokens=body.tokens,
        sha256=body.sha256,
        meta=_without_none(meta),
    )
    if entry is not None:
        table["reference_tokens"] = entry.tokens
    try:
        validate(PartDecl, table)
    except RecordError as exc:
        raise ImporterError(
            f"cannot import {part.file}: {exc.problems[0].message}", hint="check its header"
        ) from None
    return table


def _without_none(value: Any) -> Any:
    """TOML has no null: drop None values from mappings and lists."""
    if isinstance(value, Mapping):
        return {str(k): _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value if v is not None]
    return value
