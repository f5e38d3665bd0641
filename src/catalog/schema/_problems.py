"""Pydantic's validation errors in the words of someone writing a file.

Pydantic speaks of tuples, dictionaries, model instances and union members;
a person writing TOML has lists and tables, unknown and missing keys. Every
error becomes a :class:`~catalog.errors.Problem` at a key path of the input
(``part[2].agents[0]``), and a value refused by every member of a union is one
problem that names what it could have been. The first :data:`MAX_WORDED` errors
are worded, the rest only counted: a list of 300,000 wrong items took seconds
to word, where a reader is shown twenty.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from pydantic_core import ErrorDetails

from catalog.errors import CatalogError, Problem, parse_key
from catalog.schema._words import describe_value, figure, one_of
from catalog.text.suggest import guess

__all__ = ["MAX_WORDED", "problems"]

MAX_WORDED = 1000
"""Most of pydantic's errors worded as problems; callers count the rest as omitted."""
_LONGEST_GUESSED = 100  # an unknown key longer than any key is no typo of one

_LIST = "a list (an array)"
_TABLE = "a table (an object)"
_TYPES = {
    "string_type": "text",
    "int_type": "an integer",
    "bool_type": "true or false",
    "float_type": "a number",
    "none_required": "nothing (null)",
}
_LISTS = frozenset({"tuple_type", "list_type", "set_type", "frozen_set_type", "iterable_type"})
_TABLES = frozenset({"dict_type", "model_type", "model_attributes_type", "mapping_type"})
_SHAPES = frozenset({"type", "choice", "list", "table"})
_FLOAT_MAX = f"{sys.float_info.max:g}"
_KEY = "[key]"  # pydantic's mark of a problem with a table's key rather than its value

Loc = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class _Found:
    """One pydantic error placed in the input: its key path, and the union member
    (where the union stands in the input) it belongs to, if any."""

    error: ErrorDetails
    path: Loc
    union: Loc | None
    member: str | None


def problems(
    errors: Sequence[ErrorDetails],
    data: object,
    allowed: Callable[[Loc], Collection[str]] | None = None,
) -> list[Problem]:
    """The problems of the first :data:`MAX_WORDED` of ``errors`` (a ``ValidationError``'s
    ``errors()``, or what a web framework reports from it) about ``data``, in the order
    pydantic found them. Given what gives the keys ``allowed`` in the table at a key
    path (:func:`~catalog.schema._keys.keys_at` of the model ``data`` was checked
    against), an unknown key names the closest one."""
    ordered: list[Problem | Loc] = []
    unions: dict[Loc, list[_Found]] = {}
    for error in errors[:MAX_WORDED]:
        found = _place(error, data)
        if found.union is None:
            ordered.append(_problem(found.error, found.path))
            continue
        if found.union not in unions:
            unions[found.union] = []
            ordered.append(found.union)
        unions[found.union].append(found)
    result: list[Problem] = []
    for item in ordered:
        if isinstance(item, Problem):
            result.append(item)
        else:
            result.extend(_union_problems(item, unions[item]))
    if allowed is None:
        return result
    return [_guessed(p, allowed) if p.kind == "extra" else p for p in result]


def _guessed(problem: Problem, allowed: Callable[[Loc], Collection[str]]) -> Problem:
    """An unknown key's problem naming the closest key ``allowed`` where it stands, if any."""
    key = problem.loc[-1] if problem.loc else None
    if not isinstance(key, str) or len(key) > _LONGEST_GUESSED:
        return problem
    close = guess(key, allowed(problem.loc[:-1]), n=1)
    if not close:
        return problem
    return replace(problem, message=f"unknown key {key!r}; {close}")


def _place(error: ErrorDetails, data: object) -> _Found:
    """Split pydantic's location into keys of the input and union member tags.

    Pydantic's location mixes both: ``("imports", "bool")`` is the key
    ``imports`` and the union member ``bool``. Walking the input tells them
    apart: a key the table holds, a position the list has, is input; the
    last element of a ``missing`` error is the key that is missing.
    """
    node: object = data
    path: list[str | int] = []
    union: Loc | None = None
    member: str | None = None
    loc = error["loc"]
    for index, element in enumerate(loc):
        if element == _KEY:
            continue
        if isinstance(node, Mapping) and element in node:
            path.append(element if isinstance(element, str) else str(element))
            node = node[element]
        elif isinstance(element, int) and isinstance(node, Collection) and 0 <= element < len(node):
            path.append(element)  # a position in a list (or in a set, in the order taken)
            node = node[element] if isinstance(node, Sequence) else None
        elif index == len(loc) - 1 and error["type"] in ("missing", "invalid_key"):
            path.append(element if isinstance(element, str) else str(element))
        elif union is None:
            union, member = tuple(path), str(element)
    return _Found(error, tuple(path), union, member)


def _problem(error: ErrorDetails, path: Loc) -> Problem:
    """One pydantic error as a problem at ``path``."""
    kind, value, ctx = error["type"], error["input"], error.get("ctx") or {}
    if kind == "missing":
        return Problem(path, "missing", f"missing required key {path[-1]!r}")
    if kind in ("extra_forbidden", "invalid_key"):
        return Problem(
            path, "extra", f"unknown key {str(path[-1])!r}; remove it or check its spelling"
        )
    if kind == "float_type" and isinstance(value, int) and not isinstance(value, bool):
        message = f"must be between -{_FLOAT_MAX} and {_FLOAT_MAX}, not {figure(value)}"
        return Problem(path, "bounds", message)
    words = _expected(error)
    if words is not None:
        return Problem(path, _kind(kind), f"must be {one_of(words)}, not {describe_value(value)}")
    if kind in ("value_error", "assertion_error"):
        cause = ctx.get("error")
        if isinstance(cause, CatalogError):
            return Problem((*path, *parse_key(cause.key or "")), "value", cause.message, cause)
        if isinstance(cause, Exception):
            return Problem(path, "value", str(cause), cause)
    return _constraint(kind, value, ctx, path) or Problem(path, "value", error["msg"])


def _kind(kind: str) -> str:
    if kind == "literal_error":
        return "choice"
    if kind in _LISTS:
        return "list"
    return "table" if kind in _TABLES else "type"


def _expected(error: ErrorDetails) -> list[str] | None:
    """What the value had to be, as messages list it, for an error about its shape."""
    kind = error["type"]
    if kind in _TYPES:
        return [_TYPES[kind]]
    if kind == "literal_error":
        return _choices(str((error.get("ctx") or {}).get("expected", "")))
    if kind in _LISTS:
        return [_LIST]
    return [_TABLE] if kind in _TABLES else None


def _choices(expected: str) -> list[str]:
    """Pydantic's ``'a', 'b, c' or 3`` split into its choices (a comma inside quotes stays)."""
    items: list[str] = []
    start = index = 0
    quote = ""
    while index < len(expected):
        char = expected[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        else:
            separator = next((s for s in (", ", " or ") if expected.startswith(s, index)), "")
            if separator:
                items.append(expected[start:index])
                index += len(separator)
                start = index
                continue
        index += 1
    items.append(expected[start:])
    return items


def _constraint(kind: str, value: object, ctx: dict[str, object], path: Loc) -> Problem | None:
    """A refused pattern, bound or length as a problem; None for another kind of error."""
    if kind == "string_pattern_mismatch":
        message = f"must match the pattern {ctx['pattern']!r}, not {describe_value(value)}"
        return Problem(path, "pattern", message)
    bounds = {
        "greater_than": ("greater than", "gt"),
        "greater_than_equal": ("at least", "ge"),
        "less_than": ("less than", "lt"),
        "less_than_equal": ("at most", "le"),
    }
    if kind in bounds and isinstance(value, int | float):
        words, key = bounds[kind]
        return Problem(path, "bounds", f"must be {words} {ctx[key]}, not {figure(value)}")
    if kind in ("string_too_short", "too_short"):
        least = ctx.get("min_length")
        unit = "character" if kind == "string_too_short" else "item"
        return Problem(path, "length", f"must have at least {least} {unit}{'s' * (least != 1)}")
    if kind in ("string_too_long", "too_long") and isinstance(value, str | Sequence):
        unit = "characters" if kind == "string_too_long" else "items"
        most = ctx.get("max_length")
        return Problem(path, "length", f"must have at most {most} {unit}, not {len(value)}")
    return None


def _union_problems(root: Loc, found: list[_Found]) -> list[Problem]:
    """A union's problems: those of the first member whose shape the value has (it was
    meant to be that one), else one problem naming every member."""
    members: dict[str | None, list[_Found]] = {}
    for each in found:
        members.setdefault(each.member, []).append(each)
    for member in members.values():
        located = [_problem(each.error, each.path) for each in member]
        if any(p.loc != root or p.kind not in _SHAPES for p in located):
            return located
    first = next(iter(members.values()))[0]
    words = [w for member in members.values() for w in _expected(member[0].error) or ()]
    message = f"must be {one_of(words)}, not {describe_value(first.error['input'])}"
    return [Problem(root, _kind(first.error["type"]), message)]
