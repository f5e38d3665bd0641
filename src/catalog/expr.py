"""The condition language: parse, check names, compile once to closures.

One small expression language serves the ``when`` conditions of parts and the
``{{ placeholders }}`` / ``{% blocks %}`` of part bodies. An expression is
parsed with :func:`ast.parse` and every node is checked against a whitelist;
each allowed node type has a handler that builds a Python closure. The
closures are built once, when the catalog loads; evaluating an expression is
then a chain of plain function calls. Python code is never executed.

Grammar
-------
* literals: text (``"a"``, ``'a'``), integers, decimals, ``true``/``false``/
  ``none`` (also ``True``/``False``/``None``), lists and tuples ``[1, "a"]``;
* names, checked against the names the caller declares (an unknown name is an
  error with a did-you-mean hint), and attribute paths ``env.os``, checked
  against the :mod:`catalog.shapes` of those names;
* ``and``, ``or``, ``not`` (short-circuit, Python semantics: ``a or b`` gives
  ``a`` when ``a`` is truthy), comparisons ``== != < <= > >=`` (chains such
  as ``1 < x < 5`` allowed), ``in`` / ``not in``, ``is none`` /
  ``is not none`` (no other ``is``), unary ``-``, binary ``+`` and ``-``,
  ``a if cond else b``, parentheses;
* indexing ``x[0]``, ``x[-1]``, ``x["key"]``, ``x[i]`` (no slices);
* calls of the functions in :data:`FUNCTIONS` only, positional arguments
  only, argument count checked when compiling.

Everything else is refused when compiling, with :class:`ExpressionError`
naming the construct and the 1-based column: names and attributes (and text
keys) starting with ``_``, lambda, comprehensions, ``:=``, f-strings,
``*``/``/``/``**``/``%`` and bit operators, dict and set literals, method
calls, keyword arguments, slices.

Columns count characters from the start of the source, 1-based; in a source
spanning several lines the newlines count as characters too.

Limits
------
* :data:`MAX_SOURCE_LENGTH` (1000) characters, checked before parsing;
* :data:`MAX_NODES` (256) expression nodes;
* :data:`MAX_DEPTH` (32) levels of nesting;
* :data:`MAX_TEXT_LENGTH` (10 million) characters or items for a text or list
  built by ``+``, ``join``, ``replace`` or ``indent`` at evaluation time.

The language has no loops, no recursion and no way to define anything, and
every operation that can grow a value is bounded, so the time and memory an
evaluation takes are bounded by the size of the source and of the data read.

Functions
---------
:data:`FUNCTIONS` is the whole list, each with its argument counts and a
one-line description: ``len str int bool lower upper strip collapse join
split lines replace startswith endswith contains truncate default unique
sorted first last any all min max pluck json indent basename dirname keys
values flatten intersect compact pick escape brackets``. They are lenient
with none, which safe navigation produces: text functions read none as
``""``, list functions as an empty list, and ``first``/``last``/``min``/
``max`` of nothing give none. ``str(x)`` is
:func:`render_value`, so ``str(true)`` is ``"true"``. Results that come
from sets or mappings are sorted (``keys``, ``values``, ``sorted``, ``json``).

Evaluation
----------
* a name missing from the scope is none;
* ``x.attr`` reads, without ever calling :func:`getattr` on an arbitrary
  name: a mapping's key (``x.get("attr")``), a pydantic model's declared or
  computed field (or extra field), a dataclass instance's declared field;
  anything else, and none, gives none (``output_style.name`` is none when
  ``output_style`` is none);
* ``x[i]`` indexes text and lists with a number and mappings with a key; an
  index out of range, a missing key or a none container gives none; a text key
  on a model reads the field as ``x.attr`` does;
* ``x in none`` is false, ``x not in none`` is true;
* an operation that fails on the values it meets (``1 < "a"``, ``"a" - 1``)
  raises :class:`EvaluationError` naming the operation and the operand types;
  a failing function raises :class:`EvaluationError` naming the function.

Results never depend on hash order: functions that read sets or mappings sort.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import enum
import functools
import html
import json as _json
import operator
import re
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Final, NoReturn, TypeAlias

from pydantic import BaseModel

from catalog.brackets import render_brackets
from catalog.errors import CatalogError, EvaluationError, ExpressionError
from catalog.shapes import (
    ANY,
    SCALAR,
    MappingShape,
    SequenceShape,
    Shape,
    common_shape,
    did_you_mean,
)

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_SOURCE_LENGTH",
    "MAX_TEXT_LENGTH",
    "Expression",
    "Function",
    "Scope",
    "compile_expression",
    "iterate",
    "render_value",
    "to_json",
]

MAX_SOURCE_LENGTH: Final = 1000
"""Longest accepted source, in characters; checked before parsing."""
MAX_NODES: Final = 256
"""Most expression nodes (names, literals, operators, calls...) in one expression."""
MAX_DEPTH: Final = 32
"""Deepest nesting of expression nodes."""
MAX_TEXT_LENGTH: Final = 10_000_000
"""Longest text or list that ``+``, ``join``, ``replace`` or ``indent`` may build."""

Scope: TypeAlias = Mapping[str, Any]
"""What an expression is evaluated against: root name -> value."""
_Run: TypeAlias = Callable[[Scope], Any]
_OPERATION_ERRORS: Final = (TypeError, ValueError, ArithmeticError)
_LITERAL_NAMES: Final[Mapping[str, bool | None]] = types.MappingProxyType(
    {"true": True, "false": False, "none": None}
)
_NEWLINE: Final = re.compile(r"\r\n|\r|\n")
_BRACKET: Final = re.compile(r"[()\[\]#]")


# --------------------------------------------------------------------------
# Values: attribute access, indexing, iteration, rendering


def _type_name(value: object) -> str:
    """A reader's name for the type of ``value``, used in error messages."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return "text"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return type(value).__name__


@functools.cache
def _dataclass_fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def _attribute(value: object, name: str) -> Any:
    """``value.name`` by the safe rule: mapping keys and declared fields only."""
    if value is None or name.startswith("_"):
        return None
    cls = type(value)
    if cls is dict:  # the common case first: isinstance against an ABC is slow
        return value.get(name)  # type: ignore[attr-defined]
    if isinstance(value, BaseModel):
        if name in _model_fields(type(value)):
            return getattr(value, name)
        extra = value.model_extra
        return extra.get(name) if extra else None
    if isinstance(value, Mapping):
        return value.get(name)
    if (
        dataclasses.is_dataclass(value)
        and not isinstance(value, type)
        and name in _dataclass_fields(type(value))
    ):
        return getattr(value, name)
    return None


@functools.cache
def _model_fields(cls: type[BaseModel]) -> frozenset[str]:
    return frozenset(cls.model_fields) | frozenset(cls.model_computed_fields)


def _index(container: object, key: object) -> Any:
    """``container[key]``: none when the container is none or the item is missing."""
    if container is None:
        return None
    if isinstance(container, Mapping):
        return container.get(key)
    if isinstance(container, Sequence):
        if isinstance(key, bool) or not isinstance(key, int):
            raise TypeError(
                f"a {_type_name(container)} is indexed by number, not {_type_name(key)}"
            )
        try:
            return container[key]
        except IndexError:
            return None
    if isinstance(key, str) and (
        isinstance(container, BaseModel) or dataclasses.is_dataclass(container)
    ):
        return _attribute(container, key)
    raise TypeError(f"{_type_name(container)} cannot be indexed")


_BUILTIN_SEQUENCES = frozenset({tuple, list, str})
_BUILTIN_CONTAINERS = _BUILTIN_SEQUENCES | {dict, frozenset, set}


def _contains(item: object, container: object) -> bool:
    """``item in container``; false for a none container."""
    if container is None:
        return False
    if type(container) in _BUILTIN_CONTAINERS or isinstance(
        container, str | Mapping | Sequence | AbstractSet
    ):
        return item in container  # type: ignore[operator]
    raise TypeError(f"cannot look for an item in {_type_name(container)}")


def iterate(value: object) -> Sequence[Any]:
    """The items met when looping over ``value`` (for loops and list functions).

    none gives no items, text its characters, a list or tuple its items, a
    mapping its keys (in their order), a set its items sorted. Anything else
    raises :class:`TypeError`.
    """
    if value is None:
        return ()
    if type(value) in _BUILTIN_SEQUENCES or isinstance(value, Sequence):  # exact types: no ABC
        return value  # type: ignore[return-value]
    if isinstance(value, Mapping):
        return list(value)
    if isinstance(value, AbstractSet):
        return sorted(value, key=to_json)
    raise TypeError(f"cannot loop over {_type_name(value)}")


def render_value(value: object) -> str:
    """How a value is written into text.

    none -> ``""``, true/false -> ``"true"``/``"false"``, text as is, numbers
    via :class:`str`, lists and tuples -> their items rendered and joined with
    ``", "``, sets likewise in sorted order, mappings, pydantic models and
    dataclasses -> :func:`to_json`, enums -> their value, anything else via
    :class:`str`.
    """
    if type(value) is str:  # the common case, before any isinstance check
        return value
    if value is None:
        return ""
    if isinstance(value, enum.Enum):
        return render_value(value.value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ", ".join(render_value(item) for item in value)
    if isinstance(value, AbstractSet):
        return ", ".join(sorted(render_value(item) for item in value))
    if isinstance(value, Mapping | BaseModel) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    ):
        return to_json(value)
    return str(value)


def _json_default(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: getattr(value, name) for name in sorted(_dataclass_fields(type(value)))}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, AbstractSet):
        return sorted(value, key=to_json)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    if isinstance(value, bytes):
        raise TypeError("bytes cannot be written as JSON")
    return str(value)


def to_json(value: object) -> str:
    """Deterministic JSON: keys sorted, non-ASCII kept, models via ``model_dump(mode="json")``."""
    return _json.dumps(value, sort_keys=True, ensure_ascii=False, default=_json_default)


# --------------------------------------------------------------------------
# The function table


def _text(value: object, what: str = "text") -> str:
    """A text argument; none counts as empty text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise TypeError(f"expected {what}, got {_type_name(value)}")


def _count(value: object) -> int:
    """A count argument: a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected a non-negative whole number, got {value!r}")
    return value


def _check_length(length: int, what: str) -> None:
    if length > MAX_TEXT_LENGTH:
        raise EvaluationError(
            f"{what} would be {length} long, more than the limit of {MAX_TEXT_LENGTH}"
        )


def _fn_len(value: object) -> int:
    return 0 if value is None else len(iterate(value))


def _fn_int(value: object) -> int:
    if isinstance(value, str | int | float):
        return int(value)
    raise TypeError(f"cannot convert {_type_name(value)} to a number")


def _fn_collapse(value: object) -> str:
    return " ".join(_text(value).split())


def _fn_join(items: object, sep: object = "") -> str:
    parts = [render_value(item) for item in iterate(items)]
    separator = _text(sep, "a text separator")
    _check_length(sum(map(len, parts)) + len(separator) * max(len(parts) - 1, 0), "join()")
    return separator.join(parts)


def _fn_split(value: object, sep: object = None) -> list[str]:
    return _text(value).split(None if sep is None else _text(sep, "a text separator"))


def _fn_replace(value: object, old: object, new: object) -> str:
    text, old_text, new_text = _text(value), _text(old), _text(new)
    hits = len(text) + 1 if not old_text else text.count(old_text)
    _check_length(len(text) + hits * (len(new_text) - len(old_text)), "replace()")
    return text.replace(old_text, new_text)


def _prefixes(value: object) -> str | tuple[str, ...]:
    if isinstance(value, list | tuple):
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
    hashable: set[Any] = set()
    unhashable: list[Any] = []
    kept: list[Any] = []
    for item in iterate(items):
        try:
            if item in hashable:
                continue
            hashable.add(item)
        except TypeError:
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
    return min(found) if found else None


def _fn_max(items: object) -> Any:
    found = iterate(items)
    return max(found) if found else None


def _fn_pluck(items: object, name: object) -> list[Any]:
    field = _text(name, "a field name")
    return [_attribute(item, field) for item in iterate(items)]


def _fn_indent(value: object, width: object) -> str:
    text, count = _text(value), _count(width)
    lines = text.splitlines(keepends=True)
    filled = sum(1 for line in lines if line.rstrip("\r\n"))
    _check_length(len(text) + count * filled, "indent()")
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
        return sorted(mapping)
    raise TypeError(f"expected a mapping, got {_type_name(mapping)}")


def _fn_values(mapping: object) -> list[Any]:
    if mapping is None:
        return []
    if isinstance(mapping, Mapping):
        return [mapping[key] for key in sorted(mapping)]
    raise TypeError(f"expected a mapping, got {_type_name(mapping)}")


def _fn_flatten(items: object) -> list[Any]:
    flat: list[Any] = []
    for item in iterate(items):
        if isinstance(item, list | tuple):
            flat.extend(item)
        else:
            flat.append(item)
    _check_length(len(flat), "flatten()")
    return flat


def _fn_intersect(items: object, other: object) -> list[Any]:
    pool = iterate(other)
    return [item for item in iterate(items) if item in pool]


def _fn_compact(items: object) -> list[Any]:
    return [item for item in iterate(items) if not _empty(item)]


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, str | list | tuple) and not value)


def _fn_pick(mapping: object, names: object) -> list[Any]:
    if mapping is None:
        return []
    if not isinstance(mapping, Mapping):
        raise TypeError(f"expected a mapping, got {_type_name(mapping)}")
    return [mapping[name] for name in iterate(names) if name in mapping]


def _fn_escape(value: object) -> str:
    return html.escape(render_value(value), quote=True)


def _fn_brackets(template: object, bindings: object) -> str:
    if bindings is not None and not isinstance(bindings, Mapping):
        raise TypeError(f"expected a mapping of bindings, got {_type_name(bindings)}")
    text = render_brackets(_text(template, "a template text"), bindings or {}, render_value)
    _check_length(len(text), "brackets()")
    return text


@dataclasses.dataclass(frozen=True, slots=True)
class Function:
    """One callable of the expression language."""

    name: str
    min_args: int
    max_args: int
    doc: str
    call: Callable[..., Any] = dataclasses.field(repr=False)


def _fn_lower(value: object) -> str:
    return _text(value).lower()


def _fn_upper(value: object) -> str:
    return _text(value).upper()


def _fn_strip(value: object) -> str:
    return _text(value).strip()


def _fn_lines(value: object) -> list[str]:
    return _text(value).splitlines()


def _fn_startswith(value: object, prefix: object) -> bool:
    return _text(value).startswith(_prefixes(prefix))


def _fn_endswith(value: object, suffix: object) -> bool:
    return _text(value).endswith(_prefixes(suffix))


def _fn_contains(container: object, item: object) -> bool:
    return _contains(item, container)


def _fn_sorted(items: object) -> list[Any]:
    return sorted(iterate(items))


def _fn_any(items: object) -> bool:
    return any(iterate(items))


def _fn_all(items: object) -> bool:
    return all(iterate(items))


def _fn_basename(path: object) -> str:
    return _split_path(path)[1]


def _fn_dirname(path: object) -> str:
    return _split_path(path)[0]


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
    Function("join", 1, 2, 'join(seq, sep=""): the items rendered, joined by sep', _fn_join),
    Function("split", 1, 2, "split(s, sep=none): s cut at sep (default: whitespace)", _fn_split),
    Function("lines", 1, 1, "lines(s): the lines of s, without line ends", _fn_lines),
    Function("replace", 3, 3, "replace(s, old, new): every old in s replaced", _fn_replace),
    Function("startswith", 2, 2, "startswith(s, p): s starts with p (or one of a list)",
             _fn_startswith),
    Function("endswith", 2, 2, "endswith(s, p): s ends with p (or one of a list)", _fn_endswith),
    Function("contains", 2, 2, "contains(c, x): x in c; false when c is none", _fn_contains),
    Function("truncate", 2, 3, 'truncate(s, n, marker="…"): at most n characters, marker included',
             _fn_truncate),
    Function("default", 2, 2, 'default(x, d): d when x is none or "", else x', _fn_default),
    Function("unique", 1, 1, "unique(seq): first occurrences only, order kept", _fn_unique),
    Function("sorted", 1, 1, "sorted(seq): the items in ascending order", _fn_sorted),
    Function("first", 1, 1, "first(seq): the first item; none when empty", _fn_first),
    Function("last", 1, 1, "last(seq): the last item; none when empty", _fn_last),
    Function("any", 1, 1, "any(seq): some item is truthy", _fn_any),
    Function("all", 1, 1, "all(seq): every item is truthy (true when empty)", _fn_all),
    Function("min", 1, 1, "min(seq): the smallest item; none when empty", _fn_min),
    Function("max", 1, 1, "max(seq): the largest item; none when empty", _fn_max),
    Function("pluck", 2, 2, 'pluck(seq, "field"): that field of every item', _fn_pluck),
    Function("json", 1, 1, "json(x): deterministic JSON (sorted keys, non-ASCII kept)", to_json),
    Function("indent", 2, 2, "indent(s, n): n spaces before every non-empty line", _fn_indent),
    Function("basename", 1, 1, "basename(path): the last component ('/' or '\\')", _fn_basename),
    Function("dirname", 1, 1, "dirname(path): all before the last component", _fn_dirname),
    Function("keys", 1, 1, "keys(m): the keys of a mapping, sorted", _fn_keys),
    Function("values", 1, 1, "values(m): the values of a mapping, by sorted key", _fn_values),
    Function("flatten", 1, 1, "flatten(seq): items of nested lists one level up", _fn_flatten),
    Function("intersect", 2, 2, "intersect(a, b): the items of a that are in b, order of a",
             _fn_intersect),
    Function("compact", 1, 1, 'compact(seq): without none, "" and empty lists', _fn_compact),
    Function("pick", 2, 2, "pick(m, keys): the values of m for the keys it has, in keys order",
             _fn_pick),
    Function("escape", 1, 1, "escape(x): x as text with & < > \" ' escaped for XML/HTML",
             _fn_escape),
    Function("brackets", 2, 2, "brackets(text, bindings): a user's [type:name] template rendered",
             _fn_brackets),
)})
# fmt: on
"""Every function an expression may call, by name; nothing else is callable."""


# --------------------------------------------------------------------------
# Result shapes of functions, so that ``first(skills).name`` is checked too


@dataclasses.dataclass(frozen=True, slots=True)
class _Arg:
    shape: Shape
    literal: object
    where: str


_NOT_LITERAL: Final = object()


def _shape_scalar(args: Sequence[_Arg]) -> Shape:
    return SCALAR


def _shape_texts(args: Sequence[_Arg]) -> Shape:
    return SequenceShape(SCALAR)


def _shape_same_list(args: Sequence[_Arg]) -> Shape:
    return SequenceShape(args[0].shape.element(where=args[0].where))


def _shape_element(args: Sequence[_Arg]) -> Shape:
    return args[0].shape.element(where=args[0].where)


def _shape_iterable(args: Sequence[_Arg]) -> Shape:
    args[0].shape.element(where=args[0].where)
    return SCALAR


def _shape_default(args: Sequence[_Arg]) -> Shape:
    return common_shape(arg.shape for arg in args)


def _shape_values(args: Sequence[_Arg]) -> Shape:
    shape = args[0].shape
    return SequenceShape(shape.value if isinstance(shape, MappingShape) else ANY)


def _shape_pluck(args: Sequence[_Arg]) -> Shape:
    item = args[0].shape.element(where=args[0].where)
    field = args[1].literal
    if isinstance(field, str):
        if field.startswith("_"):
            raise ExpressionError(f"field names starting with '_' are not allowed: {field!r}")
        return SequenceShape(item.attribute(field, where=f"{args[0].where}[...]"))
    return SequenceShape(ANY)


def _shape_flatten(args: Sequence[_Arg]) -> Shape:
    item = args[0].shape.element(where=args[0].where)
    return SequenceShape(item.item_shape if isinstance(item, SequenceShape) else ANY)


_RESULT_SHAPES: Final[Mapping[str, Callable[[Sequence[_Arg]], Shape]]] = {
    "split": _shape_texts,
    "lines": _shape_texts,
    "keys": _shape_texts,
    "values": _shape_values,
    "unique": _shape_same_list,
    "sorted": _shape_same_list,
    "first": _shape_element,
    "last": _shape_element,
    "min": _shape_element,
    "max": _shape_element,
    "any": _shape_iterable,
    "all": _shape_iterable,
    "join": _shape_iterable,
    "default": _shape_default,
    "pluck": _shape_pluck,
    "flatten": _shape_flatten,
    "intersect": _shape_same_list,
    "compact": _shape_same_list,
    "pick": _shape_values,
}


# --------------------------------------------------------------------------
# The compiler


@dataclasses.dataclass(frozen=True, slots=True)
class Expression:
    """A compiled expression: call it with a scope to evaluate it.

    ``names`` holds the root names the expression reads, ``shape`` the shape
    of its result (``ANY`` when unknown). ``evaluate`` is the compiled closure
    itself: hot loops call it directly to skip one call level.
    """

    source: str
    names: frozenset[str]
    shape: Shape
    evaluate: _Run = dataclasses.field(repr=False, compare=False)

    def __call__(self, scope: Scope) -> Any:
        """Evaluate against ``scope``; raises :class:`EvaluationError` on bad values."""
        return self.evaluate(scope)


@dataclasses.dataclass(frozen=True, slots=True)
class _Node:
    """A compiled sub-expression: its closure, shape and literal value if it is one."""

    run: _Run
    shape: Shape
    literal: object = _NOT_LITERAL


def _single_comparison(left: _Node, step: tuple[str, Callable[[Any, Any], Any], _Run, int]) -> _Run:
    """The closure for ``a OP b`` (no chain): the common case, with a literal left side inlined."""
    symbol, function, operand, column = step

    def fail(a: object, b: object) -> EvaluationError:
        return EvaluationError(
            f"cannot apply '{symbol}' to {_type_name(a)} and {_type_name(b)}", column=column
        )

    if left.literal is not _NOT_LITERAL:
        constant = left.literal

        def run_literal(scope: Scope) -> Any:
            right = operand(scope)
            try:
                return function(constant, right)
            except _OPERATION_ERRORS:
                raise fail(constant, right) from None

        return run_literal
    first = left.run

    def run(scope: Scope) -> Any:
        a, b = first(scope), operand(scope)
        try:
            return function(a, b)
        except _OPERATION_ERRORS:
            raise fail(a, b) from None

    return run


_REFUSED: Final[Mapping[type[ast.AST], str]] = {
    ast.Lambda: "lambda",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.NamedExpr: "assignment (:=)",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string",
    ast.Starred: "unpacking with *",
    ast.Dict: "a dict literal",
    ast.Set: "a set literal",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Slice: "a slice",
}
_OPERATOR_SYMBOLS: Final[Mapping[type[ast.AST], str]] = {
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.Invert: "~",
    ast.UAdd: "+",
}
_COMPARISONS: Final[Mapping[type[ast.cmpop], tuple[str, Callable[[Any, Any], Any]]]] = {
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
    ast.In: ("in", _contains),
    ast.NotIn: ("not in", lambda item, container: not _contains(item, container)),
    ast.Is: ("is", lambda value, _none: value is None),
    ast.IsNot: ("is not", lambda value, _none: value is not None),
}


def compile_expression(source: str, names: Mapping[str, Shape]) -> Expression:
    """Parse, check and compile ``source`` once.

    ``names`` maps every name the expression may use to its shape. Raises
    :class:`ExpressionError` (with ``column``) for anything malformed, unsafe
    or unknown; no other exception escapes for any input text.
    """
    text = source.strip()
    base = len(source) - len(source.lstrip())
    if not text:
        raise ExpressionError("empty expression", column=1)
    if len(text) > MAX_SOURCE_LENGTH:
        raise ExpressionError(
            f"expression is {len(text)} characters long, "
            f"more than the limit of {MAX_SOURCE_LENGTH}",
            column=base + 1,
        )
    tree = _parse(text, base)
    count = sum(isinstance(node, ast.expr) for node in ast.walk(tree))
    if count > MAX_NODES:
        raise ExpressionError(
            f"expression has {count} parts, more than the limit of {MAX_NODES}",
            column=base + 1,
            hint="split it, or move the logic into the context",
        )
    compiler = _Compiler(text, base, names)
    compiler.check_brackets(tree)
    node = compiler.compile(tree.body, 1)
    return Expression(source, frozenset(compiler.used), node.shape, node.run)


def _parse(text: str, base: int) -> ast.Expression:
    """``ast.parse`` in eval mode, every failure turned into :class:`ExpressionError`.

    Warnings raised while parsing (an invalid escape such as ``"\\d"``) are
    errors too: a condition should not be accepted with a complaint on stderr.
    """
    try:
        with warnings.catch_warnings():
            # Invalid escapes and the like become syntax errors, not stderr noise.
            warnings.simplefilter("error")
            return ast.parse(text, mode="eval")
    except SyntaxError as exc:
        column = _syntax_column(text, exc)
        hint = None
        if "&&" in text or "||" in text:
            hint = "write 'and' / 'or' instead of '&&' / '||'"
        elif _NEWLINE.search(text) and _parses(_NEWLINE.sub(" ", text)):
            hint = "wrap an expression written on several lines in parentheses"
        message = exc.msg or "invalid syntax"
        raise ExpressionError(f"syntax error: {message}", column=base + column, hint=hint) from None
    except (ValueError, RecursionError, MemoryError, Warning) as exc:
        raise ExpressionError(f"cannot parse the expression: {exc}", column=base + 1) from None


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _syntax_column(text: str, exc: SyntaxError) -> int:
    """The 1-based character column of a :class:`SyntaxError`, counted from the source start."""
    if not exc.lineno:
        return 1
    if not exc.offset:  # the source ended too early
        return len(text) + 1
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    line = min(exc.lineno, len(starts)) - 1
    return min(starts[line] + exc.offset - 1, len(text)) + 1


class _Compiler:
    """Walks a whitelist of AST node types, building one closure per node."""

    def __init__(self, text: str, base: int, names: Mapping[str, Shape]) -> None:
        self._text = text
        self._base = base
        self._names = names
        self._starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.used: set[str] = set()

    # -- positions and errors

    def _offset(self, lineno: int, col: int) -> int:
        """Character offset in the text of an AST (line, UTF-8 byte column) position."""
        start = self._starts[lineno - 1]
        end = self._starts[lineno] if lineno < len(self._starts) else len(self._text)
        prefix = self._text[start:end].encode("utf-8")[:col]
        return start + len(prefix.decode("utf-8", "ignore"))

    def column(self, node: ast.AST) -> int:
        """1-based column of ``node`` in the caller's source."""
        lineno: int = getattr(node, "lineno", 1)
        col: int = getattr(node, "col_offset", 0)
        return self._base + self._offset(lineno, col) + 1

    def _end(self, node: ast.expr) -> int:
        return self._offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def where(self, node: ast.expr) -> str:
        """The source text of ``node``, whitespace collapsed, for messages."""
        start = self._offset(node.lineno, node.col_offset)
        return " ".join(self._text[start : self._end(node)].split())

    def _between(self, left: ast.expr, right: ast.expr, symbol: str) -> int:
        """Column of ``symbol`` written between two operands (the operator's position)."""
        start, stop = self._end(left), self._offset(right.lineno, right.col_offset)
        found = self._text.find(symbol, start, stop)
        return self._base + (found if found >= 0 else start) + 1

    def check_brackets(self, tree: ast.Expression) -> None:
        """Refuse brackets nested deeper than :data:`MAX_DEPTH`.

        Parentheses leave no node in the tree, so ``((((1))))`` is measured
        on the text, skipping string literals and comments.
        """
        strings: list[tuple[int, int]] = []
        for span in sorted(
            (self._offset(node.lineno, node.col_offset), self._end(node))
            for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr)
            or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))
        ):
            if not strings or span[0] >= strings[-1][1]:  # drop spans inside an f-string
                strings.append(span)
        starts = [start for start, _ in strings]
        depth, skip_to = 0, 0
        for found in _BRACKET.finditer(self._text):
            at = found.start()
            inside = bisect.bisect_right(starts, at) - 1
            if at < skip_to or (inside >= 0 and at < strings[inside][1]):
                continue
            char = found.group()
            if char == "#":
                newline = self._text.find("\n", at)
                skip_to = len(self._text) if newline < 0 else newline
            elif char in "([":
                depth += 1
                if depth > MAX_DEPTH:
                    self.fail(
                        f"brackets are nested more than {MAX_DEPTH} levels deep",
                        self._base + at + 1,
                    )
            else:
                depth -= 1

    def fail(self, message: str, column: int, hint: str | None = None) -> NoReturn:
        raise ExpressionError(message, column=column, hint=hint)

    def at(self, error: ExpressionError, column: int) -> ExpressionError:
        """``error`` (raised by a shape check) placed at ``column``."""
        return ExpressionError(error.message, column=column, hint=error.hint)

    def _check_name(self, name: str, column: int) -> None:
        if name.startswith("_"):
            self.fail(f"names starting with '_' are not allowed: '{name}'", column)

    # -- dispatch

    def compile(self, node: ast.expr, depth: int) -> _Node:
        """Compile one node; the match is the whitelist, anything else is refused."""
        if depth > MAX_DEPTH:
            self.fail(f"expression is nested more than {MAX_DEPTH} levels deep", self.column(node))
        match node:
            case ast.Constant():
                return self._constant(node)
            case ast.Name():
                return self._name(node)
            case ast.Attribute():
                return self._attribute(node, depth)
            case ast.Subscript():
                return self._subscript(node, depth)
            case ast.BoolOp():
                return self._bool_op(node, depth)
            case ast.UnaryOp():
                return self._unary(node, depth)
            case ast.BinOp():
                return self._binary(node, depth)
            case ast.Compare():
                return self._compare(node, depth)
            case ast.IfExp():
                return self._if(node, depth)
            case ast.Call():
                return self._call(node, depth)
            case ast.List() | ast.Tuple():
                return self._sequence(node, depth)
        what = _REFUSED.get(type(node), type(node).__name__)
        self.fail(f"{what} is not allowed", self.column(node))

    # -- handlers

    def _constant(self, node: ast.Constant) -> _Node:
        value = node.value
        if value is not None and not isinstance(value, str | int | float):
            kind = "'...'" if value is Ellipsis else f"a {type(value).__name__} literal"
            self.fail(f"{kind} is not allowed", self.column(node))
        return _Node(lambda scope: value, SCALAR, value)

    def _name(self, node: ast.Name) -> _Node:
        name = node.id
        if name in _LITERAL_NAMES:
            value = _LITERAL_NAMES[name]
            return _Node(lambda scope: value, SCALAR, value)
        column = self.column(node)
        self._check_name(name, column)
        shape = self._names.get(name)
        if shape is None:
            hint = did_you_mean(name, self._names, what="known names")
            if name in FUNCTIONS:
                hint = f"'{name}' is a function: call it, as in {name}(...); {hint}"
            self.fail(f"unknown name '{name}'", column, hint)
        self.used.add(name)
        return _Node(lambda scope: scope.get(name), shape)

    def _attribute(self, node: ast.Attribute, depth: int) -> _Node:
        name = node.attr
        column = self._base + self._end(node) - len(name) + 1
        self._check_name(name, column)
        inner = self.compile(node.value, depth + 1)
        try:
            shape = inner.shape.attribute(name, where=self.where(node.value))
        except ExpressionError as exc:
            raise self.at(exc, column) from None
        run = inner.run
        return _Node(lambda scope: _attribute(run(scope), name), shape)

    def _subscript(self, node: ast.Subscript, depth: int) -> _Node:
        key_node = node.slice
        if isinstance(key_node, ast.Tuple):
            self.fail("indexing with several keys is not allowed", self.column(key_node))
        inner = self.compile(node.value, depth + 1)
        key = self.compile(key_node, depth + 1)
        literal = key.literal
        if isinstance(literal, str) and literal.startswith("_"):
            self.fail(f"keys starting with '_' are not allowed: {literal!r}", self.column(key_node))
        shape_key = (
            literal if isinstance(literal, str | int) and not isinstance(literal, bool) else None
        )
        try:
            shape = inner.shape.item(shape_key, where=self.where(node.value))
        except ExpressionError as exc:
            raise self.at(exc, self.column(key_node)) from None
        run_value, run_key, column = inner.run, key.run, self.column(node)

        def run(scope: Scope) -> Any:
            container, index = run_value(scope), run_key(scope)
            try:
                return _index(container, index)
            except _OPERATION_ERRORS as exc:
                raise EvaluationError(f"cannot index: {exc}", column=column) from None

        return _Node(run, shape)

    def _bool_op(self, node: ast.BoolOp, depth: int) -> _Node:
        parts = tuple(self.compile(value, depth + 1) for value in node.values)
        runs = tuple(part.run for part in parts)
        shape = common_shape(part.shape for part in parts)
        if isinstance(node.op, ast.And):

            def run(scope: Scope) -> Any:
                value = None
                for part in runs:
                    value = part(scope)
                    if not value:
                        return value
                return value

        else:

            def run(scope: Scope) -> Any:
                value = None
                for part in runs:
                    value = part(scope)
                    if value:
                        return value
                return value

        return _Node(run, shape)

    def _unary(self, node: ast.UnaryOp, depth: int) -> _Node:
        if isinstance(node.op, ast.Not):
            operand = self.compile(node.operand, depth + 1).run
            return _Node(lambda scope: not operand(scope), SCALAR)
        if not isinstance(node.op, ast.USub):
            symbol = _OPERATOR_SYMBOLS[type(node.op)]
            self.fail(
                f"unary operator '{symbol}' is not allowed",
                self.column(node),
                "only unary - is supported",
            )
        inner = self.compile(node.operand, depth + 1)
        if isinstance(inner.literal, int | float) and not isinstance(inner.literal, bool):
            negated = -inner.literal
            return _Node(lambda scope: negated, SCALAR, negated)
        value_run, column = inner.run, self.column(node)

        def run(scope: Scope) -> Any:
            value = value_run(scope)
            try:
                return -value
            except _OPERATION_ERRORS:
                raise EvaluationError(
                    f"cannot apply unary '-' to {_type_name(value)}", column=column
                ) from None

        return _Node(run, SCALAR)

    def _binary(self, node: ast.BinOp, depth: int) -> _Node:
        adding = isinstance(node.op, ast.Add)
        if not adding and not isinstance(node.op, ast.Sub):
            symbol = _OPERATOR_SYMBOLS[type(node.op)]
            self.fail(
                f"operator '{symbol}' is not allowed",
                self._between(node.left, node.right, symbol),
                "filters are not supported: call a function instead, as in upper(x)"
                if symbol == "|"
                else "only + and - are supported",
            )
        left = self.compile(node.left, depth + 1)
        right = self.compile(node.right, depth + 1)
        symbol = "+" if adding else "-"
        column = self._between(node.left, node.right, symbol)
        run_left, run_right = left.run, right.run
        shape = left.shape if left.shape == right.shape else ANY

        def run(scope: Scope) -> Any:
            a, b = run_left(scope), run_right(scope)
            try:
                if not adding:
                    return a - b
                if isinstance(a, str | list | tuple) and isinstance(b, str | list | tuple):
                    _check_length(len(a) + len(b), "the result of '+'")
                    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
                        # A context's tuples and a literal's lists join as one list.
                        return [*a, *b]
                return a + b
            except _OPERATION_ERRORS:
                raise EvaluationError(
                    f"cannot apply '{symbol}' to {_type_name(a)} and {_type_name(b)}", column=column
                ) from None

        return _Node(run, shape)

    def _compare(self, node: ast.Compare, depth: int) -> _Node:
        left_node = self.compile(node.left, depth + 1)
        first = left_node.run
        steps: list[tuple[str, Callable[[Any, Any], Any], _Run, int]] = []
        previous = node.left
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            symbol, function = _COMPARISONS[type(op)]
            column = self._between(previous, comparator, symbol.split()[0])
            if isinstance(op, ast.Is | ast.IsNot) and not _is_none(comparator):
                self.fail(
                    f"'{symbol}' is only allowed with none (x {symbol} none)",
                    column,
                    "use == or != to compare values",
                )
            steps.append((symbol, function, self.compile(comparator, depth + 1).run, column))
            previous = comparator
        chain = tuple(steps)
        if len(chain) == 1:
            return _Node(_single_comparison(left_node, chain[0]), SCALAR)

        def run(scope: Scope) -> Any:
            left = first(scope)
            result: Any = True
            for symbol, function, operand, column in chain:
                right = operand(scope)
                try:
                    result = function(left, right)
                except _OPERATION_ERRORS:
                    raise EvaluationError(
                        f"cannot apply '{symbol}' to {_type_name(left)} and {_type_name(right)}",
                        column=column,
                    ) from None
                if not result:
                    return result
                left = right
            return result

        return _Node(run, SCALAR)

    def _if(self, node: ast.IfExp, depth: int) -> _Node:
        test = self.compile(node.test, depth + 1).run
        body = self.compile(node.body, depth + 1)
        orelse = self.compile(node.orelse, depth + 1)
        run_body, run_else = body.run, orelse.run
        shape = body.shape if body.shape == orelse.shape else ANY
        return _Node(lambda scope: run_body(scope) if test(scope) else run_else(scope), shape)

    def _call(self, node: ast.Call, depth: int) -> _Node:
        func = node.func
        column = self.column(func)
        if not isinstance(func, ast.Name):
            kind = "methods" if isinstance(func, ast.Attribute) else "the result of an expression"
            self.fail(
                f"calling {kind} is not allowed",
                column,
                f"only these functions can be called: {', '.join(sorted(FUNCTIONS))}",
            )
        name = func.id
        self._check_name(name, column)
        function = FUNCTIONS.get(name)
        if function is None:
            self.fail(
                f"unknown function '{name}'",
                column,
                did_you_mean(name, FUNCTIONS, what="functions"),
            )
        if node.keywords:
            keyword = node.keywords[0]
            self.fail(
                f"{name}() takes no keyword arguments",
                self.column(keyword),
                "pass arguments by position",
            )
        count = len(node.args)
        if not function.min_args <= count <= function.max_args:
            expected = (
                str(function.min_args)
                if function.min_args == function.max_args
                else f"{function.min_args} to {function.max_args}"
            )
            self.fail(
                f"{name}() takes {expected} argument{'' if expected == '1' else 's'}, "
                f"{count} given",
                column,
                function.doc,
            )
        args = [self.compile(arg, depth + 1) for arg in node.args]
        rule = _RESULT_SHAPES.get(name, _shape_scalar)
        try:
            shape = rule(
                [
                    _Arg(a.shape, a.literal, self.where(n))
                    for a, n in zip(args, node.args, strict=True)
                ]
            )
        except ExpressionError as exc:
            raise self.at(exc, column) from None
        runs, call = tuple(arg.run for arg in args), function.call

        def run(scope: Scope) -> Any:
            values = [arg(scope) for arg in runs]
            try:
                return call(*values)
            except CatalogError as exc:
                raise EvaluationError(f"{name}(): {exc.message}", column=column) from None
            except Exception as exc:
                raise EvaluationError(f"{name}(): {exc}", column=column) from None

        return _Node(run, shape)

    def _sequence(self, node: ast.List | ast.Tuple, depth: int) -> _Node:
        items = [self.compile(item, depth + 1) for item in node.elts]
        runs = tuple(item.run for item in items)
        shape = SequenceShape(common_shape(item.shape for item in items))
        if isinstance(node, ast.Tuple):
            return _Node(lambda scope: tuple(item(scope) for item in runs), shape)
        return _Node(lambda scope: [item(scope) for item in runs], shape)


def _is_none(node: ast.expr) -> bool:
    """Whether ``node`` is the none literal (``None`` or ``none``)."""
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Name) and node.id == "none"
