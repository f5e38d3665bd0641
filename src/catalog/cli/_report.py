"""How the command line tells its errors and warnings: text for a person, JSON for a program.

In text, an error is ``catalog: error: FILE:LINE:COLUMN: KEY: MESSAGE``, each
further problem of the same input on a line of its own, and the hint last; a
warning is ``catalog: warning: ...``. With ``--format json`` every message on
stderr is one JSON object on one line (JSON Lines): ``{"error": ..., "file":
..., "line": ..., "column": ..., "key": ..., "hint": ..., "others": [...]}`` or
``{"warning": ...}``, so a program reads stderr as it reads stdout. The exit
status is the same either way. Hidden characters are shown as ``<U+XXXX>`` in
text and escaped in JSON.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from catalog.errors import CatalogError
from catalog.text.visible import json_visible, visible, visible_line

__all__ = ["error_data", "wants_json", "write_error", "write_warning"]


def wants_json(argv: Sequence[str]) -> bool:
    """Whether the command line asks for ``--format json`` (the last ``--format`` given
    wins), read from the words themselves: an error may come before they are parsed."""
    chosen = None
    words = list(argv)
    for index, word in enumerate(words):
        if word == "--":
            break
        if word == "--format" and index + 1 < len(words):
            chosen = words[index + 1]
        elif word.startswith("--format="):
            chosen = word.partition("=")[2]
    return chosen == "json"


def error_data(error: CatalogError) -> dict[str, Any]:
    """``error`` as the JSON object a program reads: every field, null when unknown."""
    return {
        "error": error.message,
        "file": error.file,
        "line": error.line,
        "column": error.column,
        "key": error.key,
        "hint": error.hint,
        "others": [
            {key: value for key, value in error_data(other).items() if key != "others"}
            for other in error.others
        ],
    }


def write_error(error: CatalogError, *, as_json: bool) -> None:
    """Write ``error`` to stderr, as text or as one line of JSON."""
    if as_json:
        _write_json(error_data(error))
    else:
        sys.stderr.write(f"catalog: error: {visible(str(error))}\n")


def write_warning(text: str, *, as_json: bool) -> None:
    """Write a warning to stderr, as one line of text or of JSON."""
    if as_json:
        _write_json({"warning": text})
    else:
        sys.stderr.write(f"catalog: warning: {visible_line(text)}\n")


def _write_json(data: dict[str, Any]) -> None:
    import json  # on first use: most commands never read or write JSON

    sys.stderr.write(json_visible(json.dumps(data, ensure_ascii=False, sort_keys=True)) + "\n")
