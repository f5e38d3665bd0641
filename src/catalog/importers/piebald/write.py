"""Write imported releases as catalog versions into a catalog folder."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from catalog.errors import ImporterError, RecordError
from catalog.importers.layers import PartLayers
from catalog.importers.piebald.parse import UPSTREAM, ReadmeEntry, UpstreamPart, check_part_ids
from catalog.importers.piebald.read import Release
from catalog.importers.report import (
    BuiltVersion,
    ImportedVersion,
    ImportReport,
    catalog_table,
    write_versions,
)
from catalog.importers.writer import Body, CatalogWriter
from catalog.schema import (
    validate,
)
from catalog.schema.manifest import (
    PartDecl,
)

__all__ = [
    "REFERENCE_COUNTER",
    "ImportReport",
    "ImportedVersion",
    "import_releases",
]


# Who counted the README's figures, kept as each part's ``reference_tokens``.
REFERENCE_COUNTER = f"Anthropic's token counting API, as published in {UPSTREAM}'s README"


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

    def built() -> Iterator[BuiltVersion]:
        for release in releases:
            version = writer.version_folder(release.version)
            manifest, records, bodies = _manifest(release, name, version, writer, tables, layers)
            yield BuiltVersion(version, manifest, records, tuple(bodies), release.license)

    return write_versions(writer, built(), force=force, on_version=on_version)


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
    info = catalog_table(name, version, summary=summary, reference_counter=REFERENCE_COUNTER)
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
