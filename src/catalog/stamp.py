"""Recording each part's sha256 and token count in its manifest, in place.

Authors edit part bodies; ``catalog stamp`` (and ``scripts/retokenize.py``)
then rewrite the ``sha256`` and ``tokens`` lines of the manifest. The file is
edited line by line, not re-serialised, so comments and layout survive. The
manifest only needs to be valid TOML: stamping works before the hashes exist.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalog._textfile import parse_toml
from catalog.catalog_path import CatalogPath
from catalog.compiled import Catalog, body_sha256
from catalog.errors import CatalogError, ManifestError
from catalog.loader import MANIFEST_NAME, VersionDir, load_base, manifest_text, read_body
from catalog.manifest.models import CatalogInfo, locate_key, parse_manifest
from catalog.tokens import get_counter

__all__ = ["Stamp", "stamp_folder"]

_HEADER = re.compile(r"^\s*\[")
_PART_HEADER = re.compile(r"^\s*\[\[\s*part\s*\]\]\s*(#.*)?$")
# The manifest only has to be TOML here, so the model's default is read, not applied.
_DEFAULT_TOKENIZER = CatalogInfo.model_fields["tokenizer"].default


@dataclass(frozen=True)
class Stamp:
    """One value rewritten by :func:`stamp_folder`."""

    part: str
    key: str
    old: str | None
    new: str


def stamp_folder(
    folder: str | Path, *, write: bool = True, store: CatalogPath | None = None
) -> list[Stamp]:
    """Rewrite ``sha256`` and ``tokens`` of every part in ``folder/catalog.toml``.

    Returns what changed (or would change, with ``write=False``). The result
    is validated before it is written, so a broken manifest is never saved.
    The bodies of ``from`` parts come from the catalog's base, found in
    ``store`` (by default the bundled catalogs, entry points and ``CATALOG_PATH``).
    """
    where = VersionDir(Path(folder).parent, Path(folder).name)
    path = Path(folder) / MANIFEST_NAME
    text = manifest_text(where)
    data = parse_toml(text, str(path), ManifestError, "fix the TOML syntax")
    tokenizer = str(data.get("catalog", {}).get("tokenizer", _DEFAULT_TOKENIZER))
    try:
        counter = get_counter(tokenizer)
    except CatalogError as exc:
        raise exc.located(
            file=str(path),
            line=locate_key(text, ("catalog", "tokenizer")),
            key="catalog.tokenizer",
        ) from None
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if _PART_HEADER.match(line)]
    changes: list[Stamp] = []
    # Work from the last part up so earlier line numbers stay valid after inserts.
    base: Catalog | None = None
    for index in reversed(range(len(starts))):
        part = data["part"][index]
        if "from" in part:
            base = base or _load_base(data, path, text, store)
            try:
                body = base.part(str(part["from"])).body
            except CatalogError as exc:
                raise exc.located(file=str(path), key=f"part[{index}].from") from None
        else:
            body = _read_body(where, path, text, index, part)
        values = {"sha256": f'"{body_sha256(body)}"', "tokens": str(counter(body))}
        end = next(
            (i for i in range(starts[index] + 1, len(lines)) if _HEADER.match(lines[i])),
            len(lines),
        )
        for key in ("tokens", "sha256"):
            stamps = _set_value(lines, starts[index], end, key, values[key], part)
            changes.extend(stamps)
            end += sum(stamp.old is None for stamp in stamps)  # a line was inserted
    new_text = "".join(lines)
    if write and new_text != text:
        parse_manifest(new_text, str(path))
        path.write_text(new_text, encoding="utf-8")
    return list(reversed(changes))


def _read_body(
    where: VersionDir, manifest: Path, text: str, index: int, part: dict[str, Any]
) -> str:
    part_id = str(part.get("id"))
    if "file" not in part:
        raise ManifestError(
            f"part {part_id!r} has neither `file` nor `from`",
            file=str(manifest),
            line=locate_key(text, ("part", index)),
            key=f"part[{index}]",
            hint="name its body file with `file`",
        )
    return read_body(where, part_id, str(part["file"]), index, text, str(manifest))[0]


def _load_base(
    data: dict[str, Any], manifest: Path, text: str, store: CatalogPath | None
) -> Catalog:
    ref = data.get("catalog", {}).get("base")
    if not isinstance(ref, str):
        raise ManifestError(
            "parts use `from` but [catalog] has no `base`",
            file=str(manifest),
            hint='add base = "NAME@SPEC" to [catalog]',
        )
    return load_base(ref, text, str(manifest), None if store is None else store.load)


def _set_value(
    lines: list[str], start: int, end: int, key: str, value: str, part: dict[str, object]
) -> list[Stamp]:
    pattern = re.compile(rf"^(\s*{key}\s*=\s*)([^#\n]*?)(\s*(#.*)?)$")
    for i in range(start + 1, end):
        found = pattern.match(lines[i].rstrip("\n"))
        if found:
            old = found.group(2).strip()
            if old == value:
                return []
            lines[i] = f"{found.group(1)}{value}{found.group(3)}\n"
            return [Stamp(str(part.get("id")), key, old, value)]
    # Insert after the table's last line that is neither blank nor a comment: the
    # comments before the next table belong to it (a section heading, say).
    at = end
    while at > start + 1 and (not lines[at - 1].strip() or lines[at - 1].lstrip().startswith("#")):
        at -= 1
    lines.insert(at, f"{key} = {value}\n")
    return [Stamp(str(part.get("id")), key, None, value)]
