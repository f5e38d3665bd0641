"""Recording each part's sha256 and token count in its manifest, in place.

Authors edit part bodies; ``catalog stamp`` (and ``scripts/retokenize.py``)
then rewrite the ``sha256`` and ``tokens`` values of the manifest. The file
is edited through :func:`catalog.io.manifest_edit.edit_manifest`, which sets
those values where they stand and keeps comments and layout, and replaced in
one step (:func:`catalog.io.textfile.write_text`), so an interrupted stamp
leaves the old manifest whole. The manifest only needs
to be valid TOML: stamping works before the hashes exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import Version

from catalog.engine.catalog import Catalog
from catalog.engine.compile import body_sha256
from catalog.errors import CatalogError, ManifestError, RecordError
from catalog.io.catalog_path import CatalogPath, parse_ref
from catalog.io.loader import (
    MANIFEST_NAME,
    VersionDir,
    manifest_text,
    read_body,
    read_manifest,
    version_folder,
)
from catalog.io.manifest_edit import Value, edit_manifest
from catalog.io.manifests import parse_manifest
from catalog.io.positions import key_lines
from catalog.io.textfile import parse_toml, write_text
from catalog.schema import validate
from catalog.schema.manifest import CatalogInfo
from catalog.tokens import TokenCounter, get_counter

__all__ = ["Stamp", "stamp_folder"]

# The manifest only has to be TOML here, so the model's default is read, not applied.
_DEFAULT_TOKENIZER = CatalogInfo.model_fields["tokenizer"].default


@dataclass(frozen=True, slots=True)
class Stamp:
    """One value rewritten by :func:`stamp_folder`."""

    part: str
    key: str
    old: str | None
    new: str


def stamp_folder(
    folder: str | Path, *, write: bool = True, catalog_path: CatalogPath | None = None
) -> list[Stamp]:
    """Rewrite ``sha256`` and ``tokens`` of every part in ``folder/catalog.toml``.

    Returns what changed (or would change, with ``write=False``). The result
    is validated before it is written, so a broken manifest is never saved.
    The bodies of ``from`` parts come from the catalog's base, found in
    ``catalog_path`` (by default the bundled catalogs, entry points and ``CATALOG_PATH``).
    """
    checked = version_folder(folder)
    where = VersionDir(checked.parent, checked.name)
    path = checked / MANIFEST_NAME
    text = manifest_text(where)
    data = parse_toml(text, str(path), ManifestError, "fix the TOML syntax")
    _check_catalog_table(data, text, str(path))
    try:
        values = _values(where, data, catalog_path)
        changes, new_text = _rewrite(text, str(path), data, values)
    except CatalogError as exc:
        raise exc.located(file=str(path), lines=key_lines(text)) from None
    if write and new_text != text:
        parse_manifest(new_text, str(path))
        write_text(path, new_text, ManifestError, "make room or fix the cause, then stamp again")
    return changes


def _check_catalog_table(data: dict[str, Any], text: str, file: str) -> None:
    """Refuse a ``[catalog]`` table that is wrong on its own (a base that is the catalog
    itself, say) before stamping reads bodies or looks for the base: the parts may
    well lack their stamps, but nothing else may be wrong."""
    try:
        validate(CatalogInfo, data.get("catalog", {}))
    except RecordError as exc:
        error = exc.as_error(ManifestError, "fix the [catalog] table")
        raise error.located(file=file, key="catalog", lines=key_lines(text)) from None


def _values(
    where: VersionDir, data: dict[str, Any], catalog_path: CatalogPath | None
) -> list[dict[str, Value]]:
    """The ``sha256`` and ``tokens`` each part should have, in part order."""
    counter = _counter(data)
    base: Catalog | None = None
    values: list[dict[str, Value]] = []
    for index, part in enumerate(data.get("part", ())):
        if "from" in part:
            base = base or _load_base(data, catalog_path)
            try:
                body = base.part(str(part["from"])).body
            except CatalogError as exc:
                raise exc.located(key=("part", index, "from")) from None
        elif "file" in part:
            body = read_body(where, str(part.get("id")), str(part["file"]), index)[0]
        else:
            raise ManifestError(
                f"part {str(part.get('id'))!r} has neither `file` nor `from`",
                key=("part", index),
                hint="name its body file with `file`",
            )
        values.append({"tokens": counter(body), "sha256": body_sha256(body)})
    return values


def _counter(data: dict[str, Any]) -> TokenCounter:
    tokenizer = str(data.get("catalog", {}).get("tokenizer", _DEFAULT_TOKENIZER))
    try:
        return get_counter(tokenizer)
    except CatalogError as exc:
        raise exc.located(key=("catalog", "tokenizer")) from None


def _load_base(data: dict[str, Any], catalog_path: CatalogPath | None) -> Catalog:
    ref = data.get("catalog", {}).get("base")
    if not isinstance(ref, str):
        raise ManifestError(
            "parts use `from` but [catalog] has no `base`",
            hint='add base = "NAME@SPEC" to [catalog]',
        )
    # This version is the start of the chain of bases, so a base leading back to it is
    # reported as the cycle it is, not as this manifest's missing stamps.
    info = data["catalog"]  # checked by _check_catalog_table
    own = f"{info['name']}@{Version(info['version'])}"
    try:
        catalog_path = catalog_path or CatalogPath()
        found = catalog_path.find(*parse_ref(ref))
        return catalog_path.load_manifest(read_manifest(found.where), chain=(own, found.label))
    except CatalogError as exc:
        raise exc.located(key=("catalog", "base")) from None


def _rewrite(
    text: str, file: str, data: dict[str, Any], values: list[dict[str, Value]]
) -> tuple[list[Stamp], str]:
    """The stamps and the text with each part's values replaced (or added after the
    last value of its table, where missing)."""
    parts = data.get("part", ())
    wanted = {
        index: {key: value for key, value in new.items() if part.get(key) != value}
        for index, (part, new) in enumerate(zip(parts, values, strict=True))
    }
    edited = edit_manifest(text, file=file, parts={i: new for i, new in wanted.items() if new})
    changes = [
        Stamp(str(parts[index].get("id")), key, edited.before[("part", index, key)], _toml(value))
        for index, new in wanted.items()
        for key, value in new.items()
    ]
    return changes, edited.text


def _toml(value: Value) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)
