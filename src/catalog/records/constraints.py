"""The constraints a record's field may carry as ``Annotated`` metadata, and their words.

:class:`Pattern`, :class:`Bounds` and :class:`Length` are checked by
:func:`broken` and written into JSON Schema by :func:`rule_schema`;
:class:`Check` runs a function. :func:`describe_value` names a value the way
every message of the records does (``a number (5)``, ``text ('x')``).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "Bounds",
    "Check",
    "Length",
    "Pattern",
    "broken",
    "describe_value",
    "figure",
    "rule_schema",
]


class Pattern:
    """The text must match ``pattern``, searched as JSON Schema does (``^...$`` for a whole
    match); its ``$`` is the very end, as in JSON Schema and pydantic, not before a final
    newline as Python's ``re`` has it."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        # Compiled on first use: a record class is made on every start, many of its
        # fields are never given.
        self._search: Callable[[str], re.Match[str] | None] | None = None

    def matches(self, value: str) -> bool:
        """Whether ``value`` matches (a ``$`` does not let a trailing newline through)."""
        search = self._search
        if search is None:
            search = self._search = re.compile(_end_anchors(self.pattern)).search
        return search(value) is not None


def _end_anchors(pattern: str) -> str:
    r"""``pattern`` with each ``$`` anchor (not an escaped one, not one in ``[...]``) as ``\Z``."""
    out: list[str] = []
    index, in_set = 0, False
    while index < len(pattern):
        char = pattern[index]
        step = 2 if char == "\\" else 1
        if char == "[" and not in_set:
            in_set = True
            step += pattern.startswith("^", index + step)  # a ']' first in a set is literal
            step += pattern.startswith("]", index + step)
        elif char == "]":
            in_set = False
        piece = pattern[index : index + step]
        out.append(r"\Z" if char == "$" and not in_set else piece)
        index += step
    return "".join(out)


class Bounds:
    """A number's limits: above ``gt``, at least ``ge``, at most ``le``."""

    def __init__(
        self, *, gt: float | None = None, ge: float | None = None, le: float | None = None
    ) -> None:
        self.gt, self.ge, self.le = gt, ge, le


class Length:
    """A text's length limits, in characters."""

    def __init__(self, *, min: int | None = None, max: int | None = None) -> None:
        self.min, self.max = min, max


class Check:
    """A function run on the checked value: returns it (or a replacement), or raises
    ``ValueError`` (a :class:`~catalog.errors.CatalogError` may name a key below the
    value's). Any other exception is a bug in the function and propagates."""

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.function = function


def broken(rule: Any, value: Any) -> tuple[str, str] | None:
    """The kind and message of the constraint ``rule`` that ``value`` breaks, if any.

    A constraint is on a value that is there: ``None`` (of ``Annotated[str | None, ...]``)
    breaks none.
    """
    if value is None:
        return None
    if isinstance(rule, Pattern) and not rule.matches(value):
        return "pattern", f"must match the pattern {rule.pattern!r}, not {describe_value(value)}"
    if isinstance(rule, Bounds):
        if rule.gt is not None and not value > rule.gt:
            return "bounds", f"must be greater than {rule.gt}, not {figure(value)}"
        if rule.ge is not None and not value >= rule.ge:
            return "bounds", f"must be at least {rule.ge}, not {figure(value)}"
        if rule.le is not None and not value <= rule.le:
            return "bounds", f"must be at most {rule.le}, not {figure(value)}"
    if isinstance(rule, Length):
        if rule.min is not None and len(value) < rule.min:
            return "length", f"must have at least {rule.min} character{'s' * (rule.min != 1)}"
        if rule.max is not None and len(value) > rule.max:
            return "length", f"must have at most {rule.max} characters, not {len(value)}"
    return None


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


_HUGE = "a number of over 40 digits"


def figure(value: int | float) -> str:
    """A number as a message writes it; one too long to read (or to convert) is not written."""
    return _HUGE if isinstance(value, int) and abs(value) >= 10**40 else str(value)


def rule_schema(rule: Any) -> dict[str, Any]:
    if isinstance(rule, Pattern):
        return {"pattern": rule.pattern}
    if isinstance(rule, Bounds):
        found = {"exclusiveMinimum": rule.gt, "minimum": rule.ge, "maximum": rule.le}
        return {key: value for key, value in found.items() if value is not None}
    if isinstance(rule, Length):
        return {
            key: value
            for key, value in {"minLength": rule.min, "maxLength": rule.max}.items()
            if value is not None
        }
    return {}
