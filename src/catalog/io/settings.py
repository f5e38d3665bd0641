"""Values given as text, read as the variable they set declares: ``--set KEY=VALUE`` on
the command line and the arguments of a prompt of ``catalog mcp`` are read alike.

Every spelling of a variable (``--set NAME=`` and ``--set variables.NAME=``) is read
one way, the way a context file and the Python API read it: ``bool``, ``int``,
``float`` and ``map`` as JSON (a ``bool`` is ``true`` or ``false``: ``no`` or ``1`` is
refused); ``list`` as a JSON list or else comma-separated; ``str`` as given. Anything
else for a field of the context is read as JSON when it parses (and is not absurdly
deep), else as text.
"""

from __future__ import annotations

from typing import Any

from catalog.errors import ContextError
from catalog.io.textfile import too_deep

__all__ = ["guessed_value", "tool_list", "typed_value"]

_WRITE = {
    "bool": "true or false",
    "int": "a whole number, e.g. 3",
    "float": "a number, e.g. 0.5",
    "map": 'a JSON object, e.g. {"a": 1}',
}


def guessed_value(raw: str) -> Any:
    """``raw`` read as JSON when it parses (and is not absurdly deep), else as text."""
    import json  # on first use: most commands never read or write JSON

    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, a number too long, too deep
        return raw
    return raw if too_deep(value) else value


def typed_value(raw: str, type_name: str, key: str, *, given: str = "--set") -> Any:
    """``raw`` read as a value of the declared type ``type_name`` of variable ``key``
    (``NAME`` or ``variables.NAME``); a :class:`ContextError` saying ``{given}
    KEY=RAW: not a valid TYPE`` and what to write otherwise."""
    text = raw.strip()
    if type_name == "str":
        return raw
    value = guessed_value(text)
    if type_name == "list":
        return (
            value if isinstance(value, list) else [v.strip() for v in text.split(",") if v.strip()]
        )
    if type_name == "bool" and isinstance(value, bool):
        return value
    if type_name == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if type_name == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if type_name == "map" and isinstance(value, dict):
        return value
    raise ContextError(
        f"{given} {key}={raw!r}: not a valid {type_name}",
        key=f"variables.{key.removeprefix('variables.')}",
        hint=f"write {_WRITE.get(type_name, 'a ' + type_name)} (values are read as JSON)",
    )


def tool_list(text: str) -> list[str]:
    """The enabled tools of ``A,B,...``: each name stripped, empty ones left out."""
    return [name.strip() for name in text.split(",") if name.strip()]
