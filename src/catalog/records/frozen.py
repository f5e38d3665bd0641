"""Frozen value classes made cheaply: compiled catalogs, shapes, results.

A :class:`Frozen` subclass declares its fields with annotations, as a frozen
dataclass does, and takes them positionally or by keyword. Unlike a
:class:`~catalog.records.Record` it checks nothing: these classes hold what the
package built itself.

Why not ``dataclasses``: a dataclass has several methods written out and
compiled for it when its class statement runs, about 0.6 ms each, and some
thirty of them are made on every ``catalog`` command, a fifth of its start. A
:class:`Frozen` class only records its fields (a few microseconds); every
class shares one ``__init__``, ``__eq__``, ``__hash__`` and ``__repr__`` that
read them. :func:`replace`, :func:`fields`, :func:`asdict` and :func:`astuple`
stand in for their ``dataclasses`` namesakes; :func:`class_fields` answers for
a standard dataclass too.

:class:`Immutable` (no assignment; equality, hash and ``repr`` by field) and
:func:`own_fields` (a class's fields from its annotations) are what
:class:`Frozen` and :class:`~catalog.records.Record` share.
"""

import sys
import typing
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, dataclass_transform

__all__ = [
    "MISSING",
    "Field",
    "Frozen",
    "FrozenInstanceError",
    "Immutable",
    "asdict",
    "astuple",
    "class_fields",
    "field",
    "fields",
    "own_fields",
    "replace",
]

MISSING: Any = object()
"""A field without a default: not ``None``, which is a default like any other."""
_T = TypeVar("_T", bound="Frozen")


class FrozenInstanceError(AttributeError):
    """A field of a frozen object was assigned or deleted."""


class Field:
    """One field of a :class:`Frozen` class: its name and default, and whether
    ``__init__`` takes it, ``repr`` shows it and ``==`` compares it."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr")

    def __init__(
        self,
        *,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | None = None,
        init: bool = True,
        repr: bool = True,
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not None:
            raise TypeError("a field takes a default or a default_factory, not both")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare

    @property
    def required(self) -> bool:
        """Whether this field must be given (it has no default)."""
        return self.default is MISSING and self.default_factory is None

    def get_default(self) -> Any:
        """A fresh default value (a factory is called each time)."""
        if self.default_factory is not None:
            return self.default_factory()
        return self.default

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field with a default made by ``default_factory``, or one that ``__init__``
    does not take, ``repr`` does not show or ``==`` does not compare."""
    return Field(
        default=default, default_factory=default_factory, init=init, repr=repr, compare=compare
    )


def _is_class_var(annotation: Any) -> bool:
    """Whether a class annotation (a string under ``from __future__ import annotations``)
    declares a ``ClassVar`` rather than a field."""
    if isinstance(annotation, str):
        head = annotation.split("[", 1)[0].strip()
        return head == "ClassVar" or head.endswith(".ClassVar")
    return annotation is ClassVar or typing.get_origin(annotation) is ClassVar


_S = TypeVar("_S", bound=Field)


def own_fields(cls: type, spec_type: type[_S], make: Callable[[Any], _S]) -> dict[str, _S]:
    """The fields ``cls``'s own annotations declare (a ``ClassVar`` is none), each the
    ``spec_type`` its class body gives, else ``make(default)`` (:data:`MISSING` without
    one); defaults are taken off the class. A list, dict or set default is refused,
    as dataclasses refuse it: every instance would share the one object."""
    found: dict[str, _S] = {}
    for name, annotation in cls.__annotations__.items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        spec = value if isinstance(value, spec_type) else make(value)
        if isinstance(spec.default, list | dict | set):
            raise TypeError(
                f"{cls.__name__}.{name}: a {type(spec.default).__name__} default would be "
                "one object shared by every instance; use field(default_factory=...)"
            )
        if value is not MISSING:
            delattr(cls, name)
        spec.name = name
        found[name] = spec
    return found


class Immutable:
    """What every frozen object of the package shares, :class:`Frozen` ones and
    :class:`~catalog.records.Record` ones: fields that cannot be assigned or deleted,
    equality and a hash by the fields ``_compared`` names, and a ``repr`` showing
    those ``_shown`` names. Each subclass sets both when it is made."""

    __slots__ = ()
    _compared: ClassVar[tuple[str, ...]] = ()
    _shown: ClassVar[tuple[str, ...]] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(
            f"cannot assign to field {name!r}: {type(self).__name__} is frozen"
        )

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        mine, theirs = self.__dict__, other.__dict__
        return all(mine[name] == theirs[name] for name in self._compared)

    def __hash__(self) -> int:
        state = self.__dict__
        return hash(tuple(state[name] for name in self._compared))

    def __repr__(self) -> str:
        state = self.__dict__
        shown = ", ".join(f"{name}={state[name]!r}" for name in self._shown)
        return f"{type(self).__qualname__}({shown})"


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(field,))
class Frozen(Immutable):
    """Base of the package's frozen value classes; see the module's docstring.

    ``class Name(Frozen, eq=False)`` keeps identity for ``==`` and ``hash``, as
    ``@dataclass(eq=False)`` does. A ``__post_init__`` method runs after the
    fields are set; it may set fields ``__init__`` does not take with
    ``object.__setattr__``.
    """

    __frozen_fields__: ClassVar[tuple[Field, ...]] = ()
    _init_fields: ClassVar[tuple[Field, ...]] = ()
    _init_order: ClassVar[tuple[str, ...]] = ()
    _init_names: ClassVar[frozenset[str]] = frozenset()
    _post_init: ClassVar[bool] = False
    _later_fields: ClassVar[tuple[Field, ...]] = ()

    def __init_subclass__(cls, *, eq: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        every = {spec.name: spec for spec in cls.__frozen_fields__}
        every.update(own_fields(cls, Field, lambda default: Field(default=default)))
        specs = tuple(every.values())
        cls.__frozen_fields__ = specs
        cls._init_fields = tuple(spec for spec in specs if spec.init)
        cls._init_order = tuple(spec.name for spec in cls._init_fields)
        cls._init_names = frozenset(cls._init_order)
        cls._post_init = hasattr(cls, "__post_init__")
        cls._later_fields = tuple(spec for spec in specs if not spec.init)
        cls._compared = tuple(spec.name for spec in specs if spec.compare)
        cls._shown = tuple(spec.name for spec in specs if spec.repr)
        type.__setattr__(cls, "__match_args__", tuple(spec.name for spec in cls._init_fields))
        seen_default = ""
        for spec in cls._init_fields:
            if not spec.required:
                seen_default = spec.name
            elif seen_default:
                raise TypeError(
                    f"{cls.__name__}: field {spec.name!r} has no default but follows "
                    f"{seen_default!r}, which has one"
                )
        if "__eq__" not in cls.__dict__:
            cls.__eq__ = Immutable.__eq__ if eq else object.__eq__  # type: ignore[method-assign]
        if "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
            cls.__hash__ = Immutable.__hash__ if eq else object.__hash__  # type: ignore[method-assign]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        names = cls._init_order
        if len(args) > len(names):
            raise TypeError(
                f"{cls.__name__}() takes {len(names)} positional arguments but {len(args)} "
                "were given"
            )
        state = self.__dict__
        if args:
            state.update(zip(names, args, strict=False))
        if kwargs:
            for name in kwargs:
                if name not in cls._init_names:
                    raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
                if name in state:
                    raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
            state.update(kwargs)
        if len(state) < len(names):
            for spec in cls._init_fields[len(args) :]:
                if spec.name not in state:
                    state[spec.name] = _default(cls, spec)
        for spec in cls._later_fields:
            state[spec.name] = _default(cls, spec)
        if cls._post_init:
            self.__post_init__()  # type: ignore[attr-defined]


def _default(cls: type, spec: Field) -> Any:
    if not spec.required:
        return spec.get_default()
    if spec.init:
        raise TypeError(f"{cls.__name__}() missing required argument: {spec.name!r}")
    return None  # set by __post_init__


def fields(item: "Frozen | type[Frozen]") -> tuple[Field, ...]:
    """The fields of a :class:`Frozen` class or instance, in declaration order."""
    return item.__frozen_fields__


def class_fields(cls: type) -> tuple[str, ...] | None:
    """The field names of a :class:`Frozen` class or a standard dataclass, else None.

    A standard dataclass can only exist once some code has imported
    ``dataclasses``, so this package never imports it for the question.
    """
    if issubclass(cls, Frozen):
        return tuple(spec.name for spec in cls.__frozen_fields__)
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is not None and dataclasses.is_dataclass(cls):
        return tuple(spec.name for spec in dataclasses.fields(cls))
    return None


def replace(item: _T, /, **changes: Any) -> _T:
    """A copy of ``item`` with ``changes``, built through ``__init__`` (and
    ``__post_init__``) as :func:`dataclasses.replace` builds one."""
    cls = type(item)
    for name in changes:
        if name not in cls._init_names:
            raise TypeError(f"{cls.__name__}: {name!r} cannot be replaced")
    state = item.__dict__
    given = {spec.name: state[spec.name] for spec in cls._init_fields}
    given.update(changes)
    return cls(**given)


def asdict(item: Frozen) -> dict[str, Any]:
    """``item``'s fields as a dict, with nested frozen objects, lists, tuples and dicts
    turned into plain data, as :func:`dataclasses.asdict` does."""
    return {spec.name: _plain(item.__dict__[spec.name]) for spec in item.__frozen_fields__}


def astuple(item: Frozen) -> tuple[Any, ...]:
    """``item``'s fields as a tuple, in declaration order, as :func:`dataclasses.astuple`
    makes one."""
    return tuple(_plain(item.__dict__[spec.name]) for spec in item.__frozen_fields__)


def _plain(value: Any) -> Any:
    if isinstance(value, Frozen):
        return asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_plain(item) for item in value))
    if isinstance(value, list | tuple):
        return type(value)(_plain(item) for item in value)
    if isinstance(value, dict):
        return {_plain(key): _plain(item) for key, item in value.items()}
    return value
