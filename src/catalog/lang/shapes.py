"""Shapes: what a name holds, so expressions can be checked before they run.

A condition such as ``env.oss == "linux"`` should fail when the catalog
loads, not silently evaluate to false for every context. To check names and
attributes at compile time the expression compiler needs to know the *shape*
of every value it may meet:

``ANY``
    anything; every attribute, index and iteration is allowed and unchecked.
``SCALAR``
    text, a number, true/false or none: no attributes.
``RecordShape(fields, name)``
    an object with known attributes (a record, a pydantic model, a
    dataclass, a TypedDict); an unknown attribute is an error with a did-you-mean hint.
``SequenceShape(item)``
    a list, tuple or set; indexing and iterating give ``item``.
``MappingShape(value)``
    a dict; any attribute (a key lookup) or ``["key"]`` index gives ``value``.

:func:`shape_of` derives a shape from a type annotation, so the context
models are the single source of truth for which names exist. Shapes are
immutable and hashable.
"""

from __future__ import annotations

import datetime
import enum
import types
import typing
from collections import abc
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from catalog.errors import ExpressionError
from catalog.lang.values import class_fields, is_model
from catalog.text.suggest import did_you_mean

__all__ = [
    "ANY",
    "SCALAR",
    "AnyShape",
    "MappingShape",
    "RecordShape",
    "ScalarShape",
    "SequenceShape",
    "Shape",
    "common_shape",
    "shape_of",
]


@dataclass(frozen=True, slots=True)
class Shape:
    """What a value looks like to the expression compiler.

    The three questions the compiler asks are :meth:`attribute` (``x.name``),
    :meth:`item` (``x[key]``) and :meth:`element` (``for y in x``). Each answers
    with the shape of the result or raises :class:`ExpressionError`; ``where``
    is the source text of the value, used in the message.
    """

    kind: ClassVar[str] = "value"

    def attribute(self, name: str, *, where: str) -> Shape:
        """Return the shape of ``where.name``."""
        raise ExpressionError(f"'{where}' is {self.kind} and has no attribute '{name}'")

    def item(self, key: int | str | None, *, where: str) -> Shape:
        """Return the shape of ``where[key]``; ``key`` is None when not a literal."""
        raise ExpressionError(f"'{where}' is {self.kind} and cannot be indexed")

    def element(self, *, where: str) -> Shape:
        """Return the shape of the items met when iterating ``where``."""
        raise ExpressionError(f"'{where}' is {self.kind} and cannot be iterated")


@dataclass(frozen=True, slots=True)
class AnyShape(Shape):
    """Anything: attributes, indexing and iteration are allowed and unchecked."""

    kind: ClassVar[str] = "any value"

    def attribute(self, name: str, *, where: str) -> Shape:
        """Anything may have any attribute."""
        return ANY

    def item(self, key: int | str | None, *, where: str) -> Shape:
        """Anything may be indexed."""
        return ANY

    def element(self, *, where: str) -> Shape:
        """Anything may be iterated."""
        return ANY


@dataclass(frozen=True, slots=True)
class ScalarShape(Shape):
    """Text, a number, true/false or none: no attributes.

    Text can be indexed with a number and iterated (giving characters), so
    those are allowed; a text key is refused.
    """

    kind: ClassVar[str] = "a plain value (text, number, true/false or none)"

    def item(self, key: int | str | None, *, where: str) -> Shape:
        """Index text by position; a text key is an error."""
        if isinstance(key, str):
            raise ExpressionError(
                f"'{where}' is {self.kind} and cannot be indexed with the key {key!r}"
            )
        return SCALAR

    def element(self, *, where: str) -> Shape:
        """Iterating text gives characters."""
        return SCALAR


@dataclass(frozen=True, slots=True)
class SequenceShape(Shape):
    """A list, tuple or set whose items have the shape ``item``."""

    item_shape: Shape
    kind: ClassVar[str] = "a list"

    def attribute(self, name: str, *, where: str) -> Shape:
        """A list has no attributes; say how to reach its items."""
        raise ExpressionError(
            f"'{where}' is a list and has no attribute '{name}'",
            hint=f"index it ({where}[0]), loop over it, or use pluck({where}, '{name}')",
        )

    def item(self, key: int | str | None, *, where: str) -> Shape:
        """Index by position; a text key is an error."""
        if isinstance(key, str):
            raise ExpressionError(f"'{where}' is a list and cannot be indexed with the key {key!r}")
        return self.item_shape

    def element(self, *, where: str) -> Shape:
        """Iterating gives the items."""
        return self.item_shape


@dataclass(frozen=True, slots=True)
class MappingShape(Shape):
    """A dict whose values have the shape ``value``: any key may be looked up."""

    value: Shape
    kind: ClassVar[str] = "a mapping"

    def attribute(self, name: str, *, where: str) -> Shape:
        """``m.key`` looks the key up."""
        return self.value

    def item(self, key: int | str | None, *, where: str) -> Shape:
        """``m["key"]`` looks the key up."""
        return self.value

    def element(self, *, where: str) -> Shape:
        """Iterating a mapping gives its keys."""
        return SCALAR


@dataclass(frozen=True, slots=True)
class RecordShape(Shape):
    """An object with a fixed set of attributes, called ``name`` in messages."""

    fields: Mapping[str, Shape]
    name: str
    kind: ClassVar[str] = "a record"

    def __init__(self, fields: Mapping[str, Shape], name: str) -> None:
        # A read-only copy: the caller's dict may change, the shape must not.
        object.__setattr__(self, "fields", types.MappingProxyType(dict(fields)))
        object.__setattr__(self, "name", name)

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.fields.items(), key=lambda kv: kv[0]))))

    def attribute(self, name: str, *, where: str) -> Shape:
        """Return the field's shape; an unknown field is an error with a did-you-mean."""
        try:
            return self.fields[name]
        except KeyError:
            raise ExpressionError(
                f"'{where}' ({self.name}) has no attribute '{name}'",
                hint=did_you_mean(name, self.fields, what=f"attributes of {self.name}"),
            ) from None

    def item(self, key: int | str | None, *, where: str) -> Shape:
        """``r["field"]`` is ``r.field``; a number key is an error."""
        if isinstance(key, str):
            return self.attribute(key, where=where)
        if isinstance(key, int):
            raise ExpressionError(f"'{where}' ({self.name}) cannot be indexed with a number")
        return ANY

    def element(self, *, where: str) -> Shape:
        """A record is not a collection."""
        raise ExpressionError(
            f"'{where}' ({self.name}) is a record and cannot be iterated",
            hint="loop over one of its list attributes instead",
        )


ANY: typing.Final[Shape] = AnyShape()
SCALAR: typing.Final[Shape] = ScalarShape()

_SCALAR_TYPES: typing.Final = (
    str,
    bytes,
    int,
    float,
    bool,
    enum.Enum,
    PurePath,
    datetime.date,
    datetime.time,
    datetime.timedelta,
)
_SEQUENCE_ORIGINS: typing.Final = frozenset(
    {
        list,
        tuple,
        set,
        frozenset,
        abc.Sequence,
        abc.MutableSequence,
        abc.Set,
        abc.MutableSet,
        abc.Collection,
        abc.Iterable,
    }
)
_MAPPING_ORIGINS: typing.Final = frozenset({dict, abc.Mapping, abc.MutableMapping})


def shape_of(annotation: object) -> Shape:
    """Derive the shape of values of type ``annotation``.

    * a record, pydantic model, dataclass or TypedDict -> :class:`RecordShape`
      of its fields (pydantic computed fields included), recursively; a model that
      refers to itself gets ``ANY`` at the point where it recurs, since a shape
      is a finite, hashable value;
    * ``list``/``tuple``/``set``/``frozenset``/``Sequence``/``Iterable`` of X ->
      :class:`SequenceShape`; ``tuple[X, Y]`` joins X and Y as for unions;
    * ``dict``/``Mapping`` of X -> :class:`MappingShape`;
    * ``Optional[X]`` -> the shape of X (None is allowed everywhere at run
      time: attribute access on None gives None); a union of several types ->
      their common shape if they all have the same one, else ``ANY``;
    * ``Literal``, str, int, float, bool, None, enums, paths, dates -> ``SCALAR``;
    * ``Annotated[X, ...]`` -> the shape of X; ``Any`` and anything unknown -> ``ANY``.
    """
    return _shape_of(annotation, frozenset())


def _shape_of(annotation: object, expanding: frozenset[type]) -> Shape:
    if annotation is None or annotation is type(None):
        return SCALAR
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Annotated:
        return _shape_of(args[0], expanding)
    if origin is Literal:
        return SCALAR
    if origin is Union or origin is types.UnionType:
        members = [arg for arg in args if arg is not type(None)]
        return common_shape(_shape_of(arg, expanding) for arg in members) if members else SCALAR
    if origin in _SEQUENCE_ORIGINS:
        if origin is tuple and args and args[-1] is not Ellipsis:
            return SequenceShape(common_shape(_shape_of(arg, expanding) for arg in args))
        return SequenceShape(_shape_of(args[0], expanding) if args else ANY)
    if origin in _MAPPING_ORIGINS:
        return MappingShape(_shape_of(args[1], expanding) if len(args) == 2 else ANY)
    if isinstance(annotation, type):
        return _shape_of_class(annotation, expanding)
    return ANY


def _shape_of_class(cls: type, expanding: frozenset[type]) -> Shape:
    if cls in expanding:
        return ANY
    inner = expanding | {cls}
    if is_model(cls):
        fields = {
            name: _shape_of(info.annotation, inner)
            for name, info in typing.cast(Any, cls).model_fields.items()
        }
        for name, computed in getattr(cls, "model_computed_fields", {}).items():
            fields[name] = _shape_of(computed.return_type, inner)
        return RecordShape(fields, cls.__name__)
    names = class_fields(cls)
    if names is not None or _is_typeddict(cls):
        hints = _type_hints(cls)
        return RecordShape(
            {n: _shape_of(hints.get(n, Any), inner) for n in (names or hints)}, cls.__name__
        )
    if issubclass(cls, _SCALAR_TYPES):
        return SCALAR
    if issubclass(cls, (list, tuple, set, frozenset)):
        return SequenceShape(ANY)
    if issubclass(cls, dict):
        return MappingShape(ANY)
    return ANY


def _is_typeddict(cls: type) -> bool:
    """A TypedDict from ``typing`` or ``typing_extensions`` (pydantic needs the latter < 3.12)."""
    return issubclass(cls, dict) and hasattr(cls, "__required_keys__")


def _type_hints(cls: type) -> dict[str, object]:
    """Resolved annotations of ``cls``; unresolvable forward references count as Any."""
    try:
        return dict(typing.get_type_hints(cls, include_extras=True))
    except (NameError, TypeError, AttributeError):
        return {}


def common_shape(shapes: typing.Iterable[Shape]) -> Shape:
    """The shape covering all of ``shapes``: their common one, else ``ANY`` (also when empty)."""
    distinct = set(shapes)
    return distinct.pop() if len(distinct) == 1 else ANY
