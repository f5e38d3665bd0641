"""How a message names a value: ``a number (5)``, ``text ('x')``, ``a list``.

Messages about files speak the words of someone writing TOML or JSON, not
Python's type names; a long text or a huge number is not written out whole.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence

__all__ = ["describe_value", "figure", "one_of"]

_HUGE = "a number of over 40 digits"


def describe_value(value: object) -> str:
    """A value as a message names it: ``a number (5)``, ``text ('x')``, ``a list``."""
    if isinstance(value, bool):
        return f"true/false ({str(value).lower()})"
    if isinstance(value, int | float):
        shown = figure(value)
        return shown if shown == _HUGE else f"a number ({shown})"
    if isinstance(value, str):
        return f"text ({value!r})" if len(value) <= 40 else "text"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    if value is None:
        return "nothing (null)"
    if isinstance(value, datetime.datetime):  # TOML's other values: dates and times
        return f"a date and time ({value.isoformat()})"
    if isinstance(value, datetime.date):
        return f"a date ({value.isoformat()})"
    if isinstance(value, datetime.time):
        return f"a time ({value.isoformat()})"
    name = type(value).__name__  # a value only Python code can give
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def figure(value: int | float) -> str:
    """A number as a message writes it; one too long to read (or to convert) is not written."""
    return _HUGE if isinstance(value, int) and abs(value) >= 10**40 else str(value)


def one_of(alternatives: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    if len(alternatives) == 1:
        return alternatives[0]
    return f"{', '.join(alternatives[:-1])} or {alternatives[-1]}"
