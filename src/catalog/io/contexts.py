"""Reading a context file (``--context``): TOML, or JSON by its name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from catalog.errors import ContextError, RecordError
from catalog.io.positions import key_lines
from catalog.io.textfile import parse_json, parse_toml, read_text
from catalog.schema import validate
from catalog.schema.context import Context, context_error

__all__ = ["load_context"]


def load_context(path: str | Path) -> Context:
    """Read a context from a ``.json`` file, or a TOML file (any other name); a problem
    names the file, and its line when the file is TOML."""
    file = Path(path)
    text = read_text(file, ContextError, "the context file", "check the path given with --context")
    data: Any
    is_json = file.suffix.lower() == ".json"
    looks_json = text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")
    if is_json:
        hint = "fix the JSON syntax"
        if not looks_json:
            hint += "; a file whose name ends in .json is read as JSON (TOML goes in a .toml file)"
        data = parse_json(text, str(file), ContextError, hint)
    else:
        hint = "fix the TOML syntax"
        if looks_json:
            hint += "; this looks like JSON, which is read from a file whose name ends in .json"
        elif file.suffix.lower() != ".toml":
            hint += "; a context file is read as TOML unless its name ends in .json"
        data = parse_toml(text, str(file), ContextError, hint)
    if not isinstance(data, dict):
        raise ContextError(
            "the context must be a table/object at the top level",
            file=str(file),
            hint='write its fields as keys of one object: {"tools": ["Bash"]}',
        )
    try:
        return validate(Context, data)
    except RecordError as exc:
        raise context_error(exc, str(file), None if is_json else key_lines(text)) from None
