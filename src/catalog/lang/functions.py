"""The function table: every function an expression may call, with its result shape."""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Final

from catalog.errors import EvaluationError, ExpressionError
from catalog.lang.shapes import (
    ANY,
    SCALAR,
    MappingShape,
    SequenceShape,
    Shape,
    common_shape,
)
from catalog.lang.timefmt import check_format, format_time
from catalog.lang.values import (
    MAX_LIST_LENGTH,
    MAX_TEXT_LENGTH,
    charge,
    charge_walk,
    contains,
    cost,
    get_attribute,
    iterate,
    render_value,
    to_json,
    type_name,
)

__all__ = [
    "FUNCTIONS",
    "NOT_LITERAL",
    "Arg",
    "Function",
    "ShapeRule",
    "check_items",
    "check_length",
]


# --------------------------------------------------------------------------
# The function table

_WORD: Final = re.compile(r"\S+")  # one run of non-space: linear, no backtracking


def _text(value: object, what: str = "text") -> str:
    """A text argument; none counts as empty text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise TypeError(f"expected {what}, got {type_name(value)}")


def _count(value: object) -> int:
    """A count argument: a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected a non-negative whole number, got {value!r}")
    return value


def check_length(length: int, what: str) -> None:
    """Refuse to build a text or list longer than :data:`MAX_TEXT_LENGTH` (``what`` names it)."""
    if length > MAX_TEXT_LENGTH:
        raise EvaluationError(
            f"{what} would be {length} long, more than the limit of {MAX_TEXT_LENGTH}"
        )


def check_items(count: int, what: str) -> None:
    """Refuse to build a list of more than :data:`MAX_LIST_LENGTH` items (``what`` names it)."""
    if count > MAX_LIST_LENGTH:
        raise EvaluationError(
            f"{what} would have {count} items, more than the limit of {MAX_LIST_LENGTH}"
        )


def _listed(items: list[Any], what: str) -> list[Any]:
    check_items(len(items), what)
    return items


def _fn_len(value: object) -> int:
    return 0 if value is None else len(iterate(value))


def _fn_int(value: object) -> int:
    if isinstance(value, str | int | float):
        return int(value)
    raise TypeError(f"cannot convert {type_name(value)} to a number")


def _fn_collapse(value: object) -> str:
    return " ".join(_text(value).split())


def _fn_join(items: object, sep: object = "") -> str:
    parts = [render_value(item) for item in iterate(items)]
    separator = _text(sep, "a text separator")
    check_length(sum(map(len, parts)) + len(separator) * max(len(parts) - 1, 0), "join()")
    return separator.join(parts)


def _fn_split(value: object, sep: object = None) -> list[str]:
    separator = None if sep is None else _text(sep, "a text separator")
    text = _text(value)
    # Count the pieces before building them: a huge list never exists.
    if separator:
        check_items(text.count(separator) + 1, "split()")
    elif len(text) > 2 * MAX_LIST_LENGTH:
        check_items(sum(1 for _ in _WORD.finditer(text)), "split()")
    return text.split(separator)


def _fn_replace(value: object, old: object, new: object) -> str:
    text, old_text, new_text = _text(value), _text(old), _text(new)
    hits = len(text) + 1 if not old_text else text.count(old_text)
    check_length(len(text) + hits * (len(new_text) - len(old_text)), "replace()")
    return text.replace(old_text, new_text)


def _prefixes(value: object) -> str | tuple[str, ...]:
    if isinstance(value, list | tuple):
        charge_walk(value)
        return tuple(_text(item) for item in value)
    return _text(value)


def _fn_truncate(value: object, limit: object, marker: object = "…") -> str:
    text, count, mark = _text(value), _count(limit), _text(marker)
    if len(text) <= count:
        return text
    if count <= len(mark):
        return mark[:count]
    return text[: count - len(mark)] + mark


def _fn_default(value: object, fallback: object) -> object:
    return fallback if value is None or (isinstance(value, str) and not value) else value


def _fn_unique(items: object) -> list[Any]:
    charge_walk(items)  # each item is hashed and compared whole
    hashable: set[Any] = set()
    unhashable: list[Any] = []
    kept: list[Any] = []
    for item in iterate(items):
        try:
            if item in hashable:
                continue
            hashable.add(item)
        except TypeError:
            charge(cost(unhashable))
            if item in unhashable:
                continue
            unhashable.append(item)
        kept.append(item)
    return kept


def _fn_first(items: object) -> Any:
    found = iterate(items)
    return found[0] if found else None


def _fn_last(items: object) -> Any:
    found = iterate(items)
    return found[-1] if found else None


def _fn_min(items: object) -> Any:
    found = iterate(items)
    charge_walk(found, factor=2)
    return min(found) if found else None


def _fn_max(items: object) -> Any:
    found = iterate(items)
    charge_walk(found, factor=2)
    return max(found) if found else None


def _fn_pluck(items: object, name: object) -> list[Any]:
    field = _text(name, "a field name")
    return [get_attribute(item, field) for item in iterate(items)]


def _fn_indent(value: object, width: object) -> str:
    text, count = _text(value), _count(width)
    lines = text.splitlines(keepends=True)
    filled = sum(1 for line in lines if line.rstrip("\r\n"))
    check_length(len(text) + count * filled, "indent()")
    pad = " " * count
    return "".join(pad + line if line.rstrip("\r\n") else line for line in lines)


def _split_path(value: object) -> tuple[str, str]:
    """(directory part, final component); '/' and '\\' both separate."""
    path = _text(value, "a path")
    cut = max(path.rfind("/"), path.rfind("\\")) + 1
    head = path[:cut]
    if head.strip("/\\"):
        head = head.rstrip("/\\")
    return head, path[cut:]


def _fn_keys(mapping: object) -> list[Any]:
    if mapping is None:
        return []
    if isinstance(mapping, Mapping):
        charge_walk(tuple(mapping), factor=_sorting(len(mapping)))
        return sorted(mapping)
    raise TypeError(f"expected a mapping, got {type_name(mapping)}")


def _fn_values(mapping: object) -> list[Any]:
    if mapping is None:
        return []
    if isinstance(mapping, Mapping):
        return [mapping[key] for key in sorted(mapping)]
    raise TypeError(f"expected a mapping, got {type_name(mapping)}")


def _fn_flatten(items: object) -> list[Any]:
    flat: list[Any] = []
    for item in iterate(items):
        if isinstance(item, list | tuple):
            flat.extend(item)
        else:
            flat.append(item)
    check_length(len(flat), "flatten()")
    return _listed(flat, "flatten()")


def _fn_intersect(items: object, other: object) -> list[Any]:
    pool = iterate(other)
    charge_walk(pool)
    charge_walk(items)
    try:
        lookup: AbstractSet[Any] | Sequence[Any] = frozenset(pool)
    except TypeError:  # unhashable items (lists, mappings): each look-up reads the pool
        lookup = pool
    else:
        try:
            return [item for item in iterate(items) if item in lookup]
        except TypeError:
            pass  # an unhashable item, in no set of hashable ones: the loop passes over it
    kept = []
    for item in iterate(items):
        if lookup is pool:
            charge(cost(pool))
        try:
            found = item in lookup
        except TypeError:  # an unhashable item is in no set of hashable ones
            found = False
        if found:
            kept.append(item)
    return kept


def _fn_compact(items: object) -> list[Any]:
    return [item for item in iterate(items) if not _empty(item)]


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, str | list | tuple) and not value)


def _fn_pick(mapping: object, names: object) -> list[Any]:
    if mapping is None:
        return []
    if not isinstance(mapping, Mapping):
        raise TypeError(f"expected a mapping, got {type_name(mapping)}")
    charge_walk(names)
    return [mapping[name] for name in iterate(names) if name in mapping]


def _fn_escape(value: object) -> str:
    import html  # only this function needs it: a few milliseconds to import otherwise

    return html.escape(render_value(value), quote=True)


_BRACKET_TESTS = ("nonblank", "defined")


def _fn_brackets(template: object, bindings: object, test: object = "nonblank") -> str:
    if bindings is not None and not isinstance(bindings, Mapping):
        raise TypeError(f"expected a mapping of bindings, got {type_name(bindings)}")
    if test not in _BRACKET_TESTS:
        known = ", ".join(map(repr, _BRACKET_TESTS))
        raise ValueError(f"the test must be one of {known}, not {test!r}")
    # Imported on first use: only catalogs with bracket templates call brackets().
    from catalog.lang.brackets import render_brackets

    return render_brackets(
        _text(template, "a template text"),
        bindings or {},
        render_value,
        max_output=MAX_TEXT_LENGTH,
        defined=test == "defined",
    )


# --------------------------------------------------------------------------
# Result shapes of functions, so that ``first(skills).name`` is checked too


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument as the shape rules see it: its shape, its literal value (or
    :data:`NOT_LITERAL`) and its source text for messages."""

    shape: Shape
    literal: object
    where: str


NOT_LITERAL: Final = object()
"""The ``literal`` of an argument that is not a literal."""

ShapeRule = Callable[[Sequence[Arg]], Shape]
"""What a function's result shape is, given its arguments' (may raise ExpressionError)."""


def _shape_scalar(args: Sequence[Arg]) -> Shape:
    return SCALAR


def _shape_texts(args: Sequence[Arg]) -> Shape:
    return SequenceShape(SCALAR)


def _shape_same_list(args: Sequence[Arg]) -> Shape:
    return SequenceShape(args[0].shape.element(where=args[0].where))


def _shape_element(args: Sequence[Arg]) -> Shape:
    return args[0].shape.element(where=args[0].where)


def _shape_iterable(args: Sequence[Arg]) -> Shape:
    args[0].shape.element(where=args[0].where)
    return SCALAR


def _shape_default(args: Sequence[Arg]) -> Shape:
    return common_shape(arg.shape for arg in args)


def _shape_values(args: Sequence[Arg]) -> Shape:
    shape = args[0].shape
    return SequenceShape(shape.value if isinstance(shape, MappingShape) else ANY)


def _shape_pluck(args: Sequence[Arg]) -> Shape:
    item = args[0].shape.element(where=args[0].where)
    field = args[1].literal
    if isinstance(field, str):
        if field.startswith("_"):
            raise ExpressionError(f"field names starting with '_' are not allowed: {field!r}")
        return SequenceShape(item.attribute(field, where=f"{args[0].where}[...]"))
    return SequenceShape(ANY)


def _shape_flatten(args: Sequence[Arg]) -> Shape:
    item = args[0].shape.element(where=args[0].where)
    return SequenceShape(item.item_shape if isinstance(item, SequenceShape) else ANY)


def _shape_strftime(args: Sequence[Arg]) -> Shape:
    fmt = args[1].literal
    if isinstance(fmt, str):
        check_format(fmt)  # an unknown directive written in the expression fails at load
    return SCALAR


@dataclass(frozen=True, slots=True)
class Function:
    """One callable of the expression language: its argument counts, a one-line
    description, the Python callable and the rule giving its result's shape
    (a plain value unless said otherwise), so that ``first(skills).name`` is
    checked too."""

    name: str
    min_args: int
    max_args: int
    doc: str
    call: Callable[..., Any] = field(repr=False)
    shape: ShapeRule = field(default=_shape_scalar, repr=False)


def _fn_lower(value: object) -> str:
    return _text(value).lower()


def _fn_upper(value: object) -> str:
    return _text(value).upper()


def _fn_strip(value: object) -> str:
    return _text(value).strip()


def _fn_lines(value: object) -> list[str]:
    text = _text(value)
    check_items(text.count("\n") + 1, "lines()")
    return _listed(text.splitlines(), "lines()")


def _fn_startswith(value: object, prefix: object) -> bool:
    return _text(value).startswith(_prefixes(prefix))


def _fn_endswith(value: object, suffix: object) -> bool:
    return _text(value).endswith(_prefixes(suffix))


def _fn_contains(container: object, item: object) -> bool:
    return contains(item, container)


def _sorting(count: int) -> int:
    """How many times over sorting ``count`` items may read each: about log2 of it."""
    return count.bit_length() + 1


def _fn_sorted(items: object) -> list[Any]:
    found = iterate(items)
    charge_walk(found, factor=_sorting(len(found)))
    return sorted(found)


def _fn_any(items: object) -> bool:
    return any(iterate(items))


def _fn_all(items: object) -> bool:
    return all(iterate(items))


def _fn_basename(path: object) -> str:
    return _split_path(path)[1]


def _fn_dirname(path: object) -> str:
    return _split_path(path)[0]


def _fn_expanduser(path: object, home: object) -> str:
    text, folder = _text(path, "a path"), _text(home, "a home folder")
    if folder and (text == "~" or text.startswith(("~/", "~\\"))):
        return folder.rstrip("/\\") + text[1:]
    return text


def _fn_strftime(value: object, fmt: object, zone: object = "") -> str:
    text = format_time(value, _text(fmt, "a format text"), _text(zone, "a zone name"))
    check_length(len(text), "strftime()")
    return text


# fmt: off
FUNCTIONS: Final[Mapping[str, Function]] = types.MappingProxyType({f.name: f for f in (
    Function("len", 1, 1, "len(x): number of items or characters; 0 for none", _fn_len),
    Function("str", 1, 1, "str(x): x as it would be written into text", render_value),
    Function("int", 1, 1, "int(x): text or a decimal as a whole number", _fn_int),
    Function("bool", 1, 1, "bool(x): whether x is truthy", bool),
    Function("lower", 1, 1, "lower(s): s in lower case", _fn_lower),
    Function("upper", 1, 1, "upper(s): s in upper case", _fn_upper),
    Function("strip", 1, 1, "strip(s): s without leading and trailing whitespace", _fn_strip),
    Function("collapse", 1, 1, "collapse(s): whitespace runs as one space, stripped", _fn_collapse),
    Function("join", 1, 2, 'join(seq, sep=""): the items rendered, joined by sep', _fn_join,
             shape=_shape_iterable),
    Function("split", 1, 2, "split(s, sep=none): s cut at sep (default: whitespace)", _fn_split,
             shape=_shape_texts),
    Function("lines", 1, 1, "lines(s): the lines of s, without line ends", _fn_lines,
             shape=_shape_texts),
    Function("replace", 3, 3, "replace(s, old, new): every old in s replaced", _fn_replace),
    Function("startswith", 2, 2, "startswith(s, p): s starts with p (or one of a list)",
             _fn_startswith),
    Function("endswith", 2, 2, "endswith(s, p): s ends with p (or one of a list)", _fn_endswith),
    Function("contains", 2, 2, "contains(c, x): x in c; false when c is none", _fn_contains),
    Function("truncate", 2, 3, 'truncate(s, n, marker="…"): at most n characters, marker included',
             _fn_truncate),
    Function("default", 2, 2, 'default(x, d): d when x is none or "", else x', _fn_default,
             shape=_shape_default),
    Function("unique", 1, 1, "unique(seq): first occurrences only, order kept", _fn_unique,
             shape=_shape_same_list),
    Function("sorted", 1, 1, "sorted(seq): the items in ascending order", _fn_sorted,
             shape=_shape_same_list),
    Function("first", 1, 1, "first(seq): the first item; none when empty", _fn_first,
             shape=_shape_element),
    Function("last", 1, 1, "last(seq): the last item; none when empty", _fn_last,
             shape=_shape_element),
    Function("any", 1, 1, "any(seq): some item is truthy", _fn_any, shape=_shape_iterable),
    Function("all", 1, 1, "all(seq): every item is truthy (true when empty)", _fn_all,
             shape=_shape_iterable),
    Function("min", 1, 1, "min(seq): the smallest item; none when empty", _fn_min,
             shape=_shape_element),
    Function("max", 1, 1, "max(seq): the largest item; none when empty", _fn_max,
             shape=_shape_element),
    Function("pluck", 2, 2, 'pluck(seq, "field"): that field of every item', _fn_pluck,
             shape=_shape_pluck),
    Function("json", 1, 1, "json(x): deterministic JSON (sorted keys, non-ASCII kept)", to_json),
    Function("indent", 2, 2, "indent(s, n): n spaces before every non-empty line", _fn_indent),
    Function("basename", 1, 1, "basename(path): the last component ('/' or '\\')", _fn_basename),
    Function("dirname", 1, 1, "dirname(path): all before the last component", _fn_dirname),
    Function("keys", 1, 1, "keys(m): the keys of a mapping, sorted", _fn_keys, shape=_shape_texts),
    Function("values", 1, 1, "values(m): the values of a mapping, by sorted key", _fn_values,
             shape=_shape_values),
    Function("flatten", 1, 1, "flatten(seq): items of nested lists one level up", _fn_flatten,
             shape=_shape_flatten),
    Function("intersect", 2, 2, "intersect(a, b): the items of a that are in b, order of a",
             _fn_intersect, shape=_shape_same_list),
    Function("compact", 1, 1, 'compact(seq): without none, "" and empty lists', _fn_compact,
             shape=_shape_same_list),
    Function("pick", 2, 2, "pick(m, keys): the values of m for the keys it has, in keys order",
             _fn_pick, shape=_shape_values),
    Function("escape", 1, 1, "escape(x): x as text with & < > \" ' escaped for XML/HTML",
             _fn_escape),
    Function("brackets", 2, 3, 'brackets(text, bindings, test="nonblank"): a user\'s [type:name] '
             'template rendered; [if] holds for a non-blank value, or with "defined" for any '
             "value but none", _fn_brackets),
    Function("expanduser", 2, 2, 'expanduser(path, home): a leading "~" of path as the folder '
             "home (unchanged when home is empty)", _fn_expanduser),
    Function("strftime", 2, 3, 'strftime(t, format, zone=""): an ISO 8601 time written by a '
             "fixed, locale-free subset of strftime (%A, %B %-d, %Y at %I:%M:%S %p %Z)",
             _fn_strftime, shape=_shape_strftime),
)})
# fmt: on
"""Every function an expression may call, by name; nothing else is callable."""
