"""Changing some values of a manifest in place, keeping everything else as written.

``catalog stamp`` rewrites each part's ``sha256`` and ``tokens``; ``catalog port``
rewrites ``[catalog]``'s ``base`` and ``version`` and some parts' ``from``,
``sha256`` and ``tokens``. Both edit through :func:`edit_manifest`, which works on
tomlkit's document model rather than on lines: a value is found by its place in
the document, never by a pattern over the text, so a multi-line string that
happens to hold ``[[part]]`` or ``sha256 = ...`` is never touched, and comments,
blank lines, key order and quoting survive.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import tomlkit
import tomlkit.items
from tomlkit.exceptions import TOMLKitError

from catalog.errors import ManifestError

__all__ = ["Edited", "Value", "edit_manifest"]

Value: TypeAlias = str | int
"""A value the package writes into a manifest: a text or a whole number."""


@dataclass(frozen=True, slots=True)
class Edited:
    """A manifest after :func:`edit_manifest`: its new text, and the TOML text each
    changed key held before (``None`` for a key that was added)."""

    text: str
    before: dict[tuple[str | int, ...], str | None]


def edit_manifest(
    text: str,
    *,
    file: str = "catalog.toml",
    catalog: Mapping[str, Value] | None = None,
    parts: Mapping[int, Mapping[str, Value]] | None = None,
) -> Edited:
    """``text`` with keys of ``[catalog]`` set to ``catalog``'s values and keys of
    the ``index``-th part set to ``parts[index]``'s; a key a table lacks is added
    after its last value. ``text`` must already have parsed as TOML (the callers
    parse it with the package's bounded reader first); ``file`` names it in errors."""
    try:
        document = tomlkit.parse(text)
    except TOMLKitError as exc:  # pragma: no cover - the text parsed with tomli first
        raise ManifestError(str(exc), file=file, hint="fix the TOML syntax") from None
    before: dict[tuple[str | int, ...], str | None] = {}
    if catalog:
        table = document.get("catalog")
        if not isinstance(table, tomlkit.items.Table | tomlkit.items.InlineTable):
            raise ManifestError("the manifest has no [catalog] table", file=file)
        _set(table, catalog, ("catalog",), before)
    for index, values in (parts or {}).items():
        _set(_part(document, index, file), values, ("part", index), before)
    return Edited(tomlkit.dumps(document), before)


def _part(document: tomlkit.TOMLDocument, index: int, file: str) -> Any:
    found = document.get("part")
    if not isinstance(found, tomlkit.items.AoT | tomlkit.items.Array) or index >= len(found):
        raise ManifestError(f"the manifest has no part {index}", file=file, key=("part", index))
    return found[index]


def _set(
    table: Any,
    values: Mapping[str, Value],
    where: tuple[str | int, ...],
    before: dict[tuple[str | int, ...], str | None],
) -> None:
    for key, value in values.items():
        if key in table:
            before[(*where, key)] = table.item(key).as_string().strip()
            table[key] = value  # tomlkit keeps the old item's comment and spacing
        else:
            before[(*where, key)] = None
            _add_after_last_value(table, key, value)


def _add_after_last_value(table: Any, key: str, value: Value) -> None:
    """Add ``key`` after the table's last value, not after the comments and blank
    lines that close it: those usually introduce the next table."""
    if not isinstance(table, tomlkit.items.Table):
        table[key] = value
        return
    body = table.value.body
    trailing = []
    while body and body[-1][0] is None:  # comments and blank lines have no key
        trailing.append(body.pop())
    table.append(key, value)
    body.extend(reversed(trailing))
