"""Values as the expression language sees them: limits, attribute access, indexing,
iteration, and rendering into text or JSON.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, TypeVar

from pydantic import BaseModel

from catalog.errors import EvaluationBudgetError

__all__ = [
    "ITEM_COST",
    "MAX_DEPTH",
    "MAX_EVALUATION_COST",
    "MAX_LIST_LENGTH",
    "MAX_NODES",
    "MAX_SOURCE_LENGTH",
    "MAX_TEXT_LENGTH",
    "NODE_COST",
    "SEARCHED_FREELY",
    "Path",
    "Scope",
    "afford",
    "budgeted",
    "charge",
    "charge_compare",
    "charge_walk",
    "class_fields",
    "cost",
    "equal",
    "fields_of",
    "is_model",
    "iterate",
    "one_budget",
    "read_attribute",
    "render_value",
    "spent",
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
MAX_LIST_LENGTH: Final = 1_000_000
"""Longest list that ``split``, ``lines``, ``flatten`` or ``+`` may build."""
MAX_EVALUATION_COST: Final = 50_000_000
"""Most work one evaluation may do, in units: see :func:`charge`."""
ITEM_COST: Final = 16
"""Units one list or mapping item costs (a character of text costs one)."""
NODE_COST: Final = 16
"""Units evaluating one node of an expression costs where a loop repeats it: about
the work of copying sixteen characters."""

_T = TypeVar("_T")

Scope: TypeAlias = Mapping[str, Any]
"""What an expression is evaluated against: root name -> value."""
Run: TypeAlias = Callable[[Scope], Any]
Path: TypeAlias = tuple[str, ...]
"""A name and the attributes read from it: ``("env", "os")`` for ``env.os``."""
OPERATION_ERRORS: Final = (TypeError, ValueError, ArithmeticError)
LITERAL_NAMES: Final[Mapping[str, bool | None]] = types.MappingProxyType(
    {"true": True, "false": False, "none": None}
)


# --------------------------------------------------------------------------
# Values: attribute access, indexing, iteration, rendering


def type_name(value: object) -> str:
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


def get_attribute(value: object, name: str) -> Any:
    """``value.name`` by the safe rule: mapping keys and declared fields only."""
    if name.startswith("_"):
        return None
    return read_attribute(value, name)


def read_attribute(value: object, name: str) -> Any:
    """:func:`get_attribute` for a ``name`` known not to start with ``_`` (the
    compiler refuses such names in expressions)."""
    if value is None:
        return None
    cls = type(value)
    if cls is dict:  # the common case first: isinstance against an ABC is slow
        return value.get(name)  # type: ignore[attr-defined]
    access = _ACCESS.get(cls) or _access(cls)  # the lookup inline: reads are many
    if name in access.fields:
        return getattr(value, name)
    if access.kind == "mapping":
        return value.get(name)  # type: ignore[attr-defined]
    if access.kind == "model":  # a pydantic model may hold names it does not declare
        extra = getattr(value, "model_extra", None)
        return extra.get(name) if extra else None
    return None


@dataclass(frozen=True, eq=False, slots=True)
class _Access:
    """How expressions read a value of one class. ``kind`` is ``model`` (a record or
    a pydantic model), ``dataclass`` (the package's frozen classes included),
    ``mapping`` or ``other``; ``fields`` are the names read as attributes."""

    kind: str
    fields: frozenset[str] = frozenset()


_ACCESS: dict[type, _Access] = {}


def _access(cls: type) -> _Access:
    """:class:`_Access` of ``cls``, worked out once: expressions read the same few
    classes (the context's records, ``part``, ``agent``) over and over."""
    found = _ACCESS.get(cls)
    if found is not None:
        return found
    if is_model(cls):
        declared: Any = cls
        computed = getattr(declared, "model_computed_fields", {})
        found = _Access("model", frozenset(declared.model_fields) | frozenset(computed))
    elif issubclass(cls, Mapping):
        found = _Access("mapping")
    else:
        names = class_fields(cls)
        found = _Access("other") if names is None else _Access("dataclass", frozenset(names))
    _ACCESS[cls] = found
    return found


def fields_of(cls: type) -> frozenset[str]:
    """The names :func:`get_attribute` reads from instances of ``cls`` as attributes:
    the declared fields of a record, a pydantic model or a dataclass; none else."""
    return _access(cls).fields


def is_model(cls: type) -> bool:
    """Whether ``cls`` is a pydantic model (it declares its fields in ``model_fields``)."""
    return issubclass(cls, BaseModel)


def class_fields(cls: type) -> tuple[str, ...] | None:
    """The field names of a dataclass, else None."""
    if dataclasses.is_dataclass(cls):
        return tuple(spec.name for spec in dataclasses.fields(cls))
    return None


def get_item(container: object, key: object) -> Any:
    """``container[key]``: none when the container is none or the item is missing."""
    if container is None:
        return None
    if isinstance(container, Mapping):
        return container.get(key)
    if isinstance(container, Sequence):
        if isinstance(key, bool) or not isinstance(key, int):
            raise TypeError(f"a {type_name(container)} is indexed by number, not {type_name(key)}")
        try:
            return container[key]
        except IndexError:
            return None
    if isinstance(key, str) and _access(type(container)).kind in ("model", "dataclass"):
        return get_attribute(container, key)
    raise TypeError(f"{type_name(container)} cannot be indexed")


_BUILTIN_SEQUENCES = frozenset({tuple, list, str})
_BUILTIN_CONTAINERS = _BUILTIN_SEQUENCES | {dict, frozenset, set}
_SEARCHED: Final = frozenset({list, tuple, str})  # `in` reads them item by item
_SCALARS: Final = frozenset({bool, int, float, type(None)})
SEARCHED_FREELY: Final = 64
"""Longest list or text ``in`` searches without charging the evaluation budget."""


_PLAIN: Final = _SCALARS | {str}


def equal(a: object, b: object) -> bool:
    """``a == b``, a list and a tuple holding equal items being equal at any depth: the
    language has one kind of list, held as a tuple when it comes from the context and as
    a list when an expression builds it (``["Bash"]``, ``split(...)``, ``+``). Walks
    both at once, stopping at the first difference, as Python's ``==`` does."""
    if type(a) in _PLAIN or type(b) in _PLAIN:  # the common case: a text, a number, none
        return a == b
    pending: list[tuple[object, object]] = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, list | tuple) and isinstance(y, list | tuple):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, Mapping) and isinstance(y, Mapping):
            if x.keys() != y.keys():
                return False
            pending.extend((x[key], y[key]) for key in x)
        elif x != y:
            return False
    return True


def contains(item: object, container: object) -> bool:
    """``item in container``; false for a none container.

    Spends what the search may touch: a text searched for a text, both; a list, an
    item's cost for each of its items and, for each, what comparing ``item`` with it
    may read; a mapping or a set, what hashing ``item`` reads."""
    if container is None:
        return False
    kind = type(container)
    if kind in _BUILTIN_CONTAINERS or isinstance(container, str | Mapping | Sequence | AbstractSet):
        if kind is str:
            if type(item) is str and len(container) + len(item) > SEARCHED_FREELY:  # type: ignore[arg-type]
                charge(len(container) + len(item))  # type: ignore[arg-type]
        elif kind in _SEARCHED or (
            isinstance(container, Sequence) and not isinstance(container, str)
        ):
            _charge_search(item, container)  # type: ignore[arg-type]
        elif type(item) not in _SCALARS:
            charge_walk(item)
        if isinstance(item, list | tuple) and isinstance(container, list | tuple):
            return any(equal(item, other) for other in container)
        return item in container  # type: ignore[operator]
    raise TypeError(f"cannot look for an item in {type_name(container)}")


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
        charge_walk(value, factor=len(value).bit_length() + 1)  # written out, then sorted
        return sorted(value, key=to_json)
    raise TypeError(f"cannot loop over {type_name(value)}")


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
    if _access(type(value)).kind != "other":  # a mapping, a record or a dataclass
        return to_json(value)
    return str(value)


def _json_default(value: object) -> object:
    access = _access(type(value))
    if access.kind == "model":
        return value.model_dump(mode="json")  # type: ignore[attr-defined]
    if access.kind == "dataclass":
        return {name: getattr(value, name) for name in sorted(access.fields)}
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
    import json  # on first use: most commands never read or write JSON

    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=_json_default)


# --------------------------------------------------------------------------
# The evaluation budget


class _Budget:
    """Units of work left to one evaluation (one condition, one body render)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_EVALUATION_COST


_CURRENT: Final[ContextVar[_Budget | None]] = ContextVar("catalog_budget", default=None)


def cost(value: object) -> int:
    """The units ``value`` costs to read or build: its length for text,
    :data:`ITEM_COST` per item for a list or a mapping, one for anything else."""
    kind = type(value)
    if kind is str:
        return len(value)  # type: ignore[arg-type]
    if kind in _BUILTIN_CONTAINERS:
        return ITEM_COST * len(value)  # type: ignore[arg-type]
    if kind in _SCALARS or not isinstance(value, Mapping | Sequence | AbstractSet):
        return 1
    return ITEM_COST * len(value)


def charge(units: int) -> None:
    """Spend ``units`` of the running evaluation's budget (nothing when none runs).

    Function calls charge what they read and build, ``+`` what it joins,
    ``in`` the container it searches, body renders what they write and each
    loop iteration. Past :data:`MAX_EVALUATION_COST`, raises
    :class:`~catalog.errors.EvaluationBudgetError`: nested ``replace``, ``split``
    of huge generated texts or loops over them stop there instead of burning
    CPU and memory.
    """
    budget = _CURRENT.get()
    if budget is not None:
        budget.left -= units
        if budget.left < 0:
            budget.left = 0  # every later charge fails too
            raise EvaluationBudgetError(
                f"more work than the evaluation budget of {MAX_EVALUATION_COST} units "
                f"(a character of text is one, a list item {ITEM_COST})",
                hint="build smaller texts and lists: the budget is fixed",
            )


def _walked(value: object, limit: int) -> int:
    """What reading ``value`` whole costs (:func:`cost` of it and of everything it
    holds, at any depth), counted until it passes ``limit``: the walk itself stops
    there, so it never does more work than the budget it is checked against."""
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        kind = type(item)
        if isinstance(item, str):
            total += len(item)
        elif kind in _SCALARS:
            total += 1
        elif isinstance(item, Mapping):
            total += ITEM_COST * len(item)
            if total <= limit:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, Sequence | AbstractSet) and not isinstance(item, str | bytes):
            total += ITEM_COST * len(item)
            if total <= limit:
                stack.extend(item)
        elif _access(kind).kind in ("model", "dataclass"):
            names = _access(kind).fields
            total += ITEM_COST * len(names)
            stack.extend(getattr(item, name) for name in names)
        else:
            total += len(str(item)) if isinstance(item, bytes) else 1
    return total


def charge_walk(value: object, *, factor: int = 1, base: int = 0) -> None:
    """Spend ``base`` and ``factor`` times what reading ``value`` whole costs, at every
    depth (nothing when no budget runs): for an operation that compares, hashes or
    sorts what it is given, whose work grows with everything its operands hold."""
    budget = _CURRENT.get()
    if budget is None:
        return
    limit = (budget.left - base) // max(factor, 1) + 1
    charge(base + factor * _walked(value, max(limit, 0)))


def _charge_search(item: object, items: Sequence[Any]) -> None:
    """Spend what looking for ``item`` in the list ``items`` may read: an item's cost
    for each, and comparing ``item`` with each of them (no more than all they hold)."""
    count = len(items)
    if type(item) in _SCALARS:
        if count > SEARCHED_FREELY:
            charge(ITEM_COST * count)
        return
    budget = _CURRENT.get()
    if budget is None:
        return
    each = _walked(item, budget.left // max(count, 1) + 1)
    compared = min(count * each, _walked(items, count * each))
    if ITEM_COST * count + compared > SEARCHED_FREELY:
        charge(ITEM_COST * count + compared)


def charge_compare(a: object, b: object) -> None:
    """Spend what comparing ``a`` with ``b`` may read (``==``, ``<``...): the smaller of
    the two, as comparing stops at the shorter one, when both are texts or both
    containers; nothing for a number, none or true, or a text against a container,
    compared at once. Up to :data:`SEARCHED_FREELY` units are not charged."""
    kind_a, kind_b = type(a), type(b)
    if kind_a in _SCALARS or kind_b in _SCALARS:
        return
    if kind_a is str or kind_b is str:
        if kind_a is kind_b:
            units = min(len(a), len(b))  # type: ignore[arg-type]
            if units > SEARCHED_FREELY:
                charge(units)
        return
    budget = _CURRENT.get()
    if budget is None:
        return
    units = _walked(a, budget.left + 1)
    units = min(units, _walked(b, units))
    if units > SEARCHED_FREELY:
        charge(units)


def one_budget(function: Callable[..., _T], *args: Any) -> _T:
    """``function(*args)``, every evaluation it runs spending one budget: the running
    one, or a fresh one. An assembly runs so, so that its work is bounded by one
    budget whatever the number of its parts."""
    if _CURRENT.get() is not None:
        return function(*args)
    token = _CURRENT.set(_Budget())
    try:
        return function(*args)
    finally:
        _CURRENT.reset(token)


def afford(units: int) -> bool:
    """Spend ``units`` of the running budget when it has them, and say whether it had
    (true when no budget runs). A remembered result spends what computing it spent,
    so that an evaluation's budget runs out alike whether it was remembered or not;
    when it cannot, the caller computes it, to fail where computing fails."""
    budget = _CURRENT.get()
    if budget is None:
        return True
    if budget.left < units:
        return False
    budget.left -= units
    return True


def spent() -> int:
    """The units the running budget has spent so far (0 when none runs)."""
    budget = _CURRENT.get()
    return 0 if budget is None else MAX_EVALUATION_COST - budget.left


def budgeted(run: Callable[[Scope], Any], where: str) -> Callable[[Scope], Any]:
    """``run`` under a fresh budget, or the running one when called inside another
    evaluation (a placeholder inside a body render shares the render's budget).

    A spent budget raised inside ``run`` is said to be spent in ``where`` (the
    expression, or "the body") unless an inner evaluation named itself.
    """

    def guarded(scope: Scope) -> Any:
        token = None if _CURRENT.get() is not None else _CURRENT.set(_Budget())
        try:
            return run(scope)
        except EvaluationBudgetError as exc:
            if exc.expression is None:
                exc.expression = where
                exc.message = f"{exc.message}, in {where}"
                exc.args = (exc.message,)
            raise
        finally:
            if token is not None:
                _CURRENT.reset(token)

    return guarded
