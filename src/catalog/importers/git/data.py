"""Prompts kept inside a data file: one text per entry of a JSON, TOML or YAML file.

A repository may keep prompts as fields of a data file (Codex's per-model
``base_instructions`` in ``models.json``). A ``[[data]]`` rule
(:class:`~catalog.importers.git.rules.DataDecl`) names the file and a path to
the field, keys joined by ``.``, ``*`` standing for every entry of a table
or a list: ``models.*.base_instructions``. Each text found becomes one part,
named by the entry's key (or index) at the last ``*``, or by the value of the
entry's field ``key`` (``slug``). An entry whose field is absent, or not
text, gives no part. The walk follows the path only, and stops at
:data:`MAX_ENTRIES` entries: a file of shared anchors (YAML aliases) cannot
make it long (and YAML's anchors and aliases are refused, as everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from catalog.errors import ImporterError
from catalog.importers.git.rules import DataDecl
from catalog.io.textfile import MAX_FILE_BYTES, parse_json, parse_toml
from catalog.io.yamltext import YamlError, load_yaml

__all__ = ["MAX_ENTRIES", "DataEntry", "data_entries", "data_format"]

MAX_ENTRIES: Final = 10_000
"""Most entries one path may visit in one data file."""

_FORMATS: Final = {".json": "json", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml"}


@dataclass(frozen=True, slots=True)
class DataEntry:
    """One text found: the entry's name and the text."""

    name: str
    text: str


def data_format(decl: DataDecl, path: str) -> str:
    """The format of data file ``path``: the rule's ``format``, else the file's extension."""
    found = decl.format or _FORMATS.get(path[path.rfind(".") :].lower())
    if found is None:
        raise ImporterError(
            f"cannot tell the format of {path}",
            hint='give it in the [[data]] rule: format = "json", "toml" or "yaml"',
        )
    return found


def data_entries(text: str, where: str, decl: DataDecl, fmt: str) -> list[DataEntry]:
    """The texts ``decl.path`` leads to in ``text`` (the data file ``where``, in
    ``fmt``), in the file's order."""
    data = _parse(text, where, fmt)
    steps = decl.path.split(".")
    stars = [i for i, step in enumerate(steps) if step == "*"]
    last_star = stars[-1] if stars else -1
    # Each: the node reached, the entry's name, and the entry at the last '*'.
    found: list[tuple[Any, str, Any]] = [(data, steps[-1], None)]
    visited = 0
    for index, step in enumerate(steps):
        following: list[tuple[Any, str, Any]] = []
        for node, name, entry in found:
            for key, child in _children(node, step):
                visited += 1
                if visited > MAX_ENTRIES:
                    raise ImporterError(
                        f"the path {decl.path!r} visits more than {MAX_ENTRIES} entries",
                        file=where,
                        hint="give a narrower path in the [[data]] rule",
                    )
                if index == last_star:
                    following.append((child, key, child))
                else:
                    following.append((child, name, entry))
        found = following
    entries = []
    for value, name, entry in found:
        if not isinstance(value, str):
            continue
        if decl.key is not None:
            named = entry.get(decl.key) if isinstance(entry, dict) else None
            if not isinstance(named, str | int) or isinstance(named, bool):
                raise ImporterError(
                    f"entry {name!r} of {decl.path!r} has no field {decl.key!r} to name it",
                    file=where,
                    hint="give every entry that field, or leave `key` out of the [[data]] "
                    "rule to name entries by their keys",
                )
            name = str(named)
        entries.append(DataEntry(name, text=value))
    return entries


def _children(node: Any, step: str) -> list[tuple[str, Any]]:
    """The entries of ``node`` that ``step`` names: all for ``*``, else the one by key
    (or index, in a list); none when there is no such entry."""
    if isinstance(node, dict):
        if step == "*":
            return [(str(key), value) for key, value in node.items()]
        return [(step, node[step])] if step in node else []
    if isinstance(node, list):
        if step == "*":
            return [(str(i), value) for i, value in enumerate(node)]
        if step.isdigit() and int(step) < len(node):
            return [(step, node[int(step)])]
    return []


def _parse(text: str, where: str, fmt: str) -> Any:
    hint = "the data file must be valid here, or the [[data]] rule must not name it"
    if fmt == "json":
        return parse_json(text, where, ImporterError, hint)
    if fmt == "toml":
        return parse_toml(text, where, ImporterError, hint)
    try:
        return load_yaml(text, max_bytes=MAX_FILE_BYTES)
    except YamlError as exc:
        raise ImporterError(str(exc), file=where, line=exc.line, hint=hint) from None
