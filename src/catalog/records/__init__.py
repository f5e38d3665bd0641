"""Frozen, validated records: the data classes of manifests, contexts and locks.

A :class:`Record` subclass declares its fields with annotations, as a
dataclass does. Building one (``Context(tools=["Read"])`` or
:meth:`Record.model_validate` on a parsed TOML table) checks every field
against its annotation, turns lists into tuples (``tuple[X, ...]``; a
``list[X]`` field keeps a list) and tables into nested records, refuses
unknown keys and reports every problem at once as a
:class:`~catalog.errors.RecordError` whose messages speak of lists, tables
and keys, the words of someone writing a file. Unlike pydantic's default
mode, values are not converted from one type to another: ``"5"`` is not an
integer and ``"yes"`` is not true (only an integer is taken for a float).
Mutable defaults are refused as dataclasses refuse them: use
``field(default_factory=...)``.

Why not pydantic: these classes are built on every ``catalog`` command, and
importing pydantic and building its models cost several times the rest of a
command's start. The records keep the part of pydantic's interface this
package relies on (``model_validate``, ``model_dump``, ``model_copy``,
``model_fields``, ``model_fields_set``, ``model_json_schema``) so code written
against the earlier pydantic models keeps working.

Constraints are ``Annotated`` metadata: :class:`Pattern`, :class:`Bounds`,
:class:`Length` and :class:`Check` (a function returning the value or raising
``ValueError``). A record's own cross-field checks go in ``_check``; a
record that also accepts another form of input (a bare string, say) turns it
into a table in ``_before``.
"""

# No ``from __future__ import annotations`` here: Record's own annotations would be
# strings, evaluated again by get_type_hints for every record class on every start.
import datetime
import math
import sys
import types
import typing
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self, Union, dataclass_transform

from catalog.errors import CatalogError, Problem, RecordError, parse_key
from catalog.records.constraints import (
    Bounds,
    Check,
    Length,
    Pattern,
    broken,
    describe_value,
    figure,
    rule_schema,
)
from catalog.records.frozen import MISSING as _MISSING
from catalog.records.frozen import Field, Immutable, own_fields

__all__ = [
    "Bounds",
    "Check",
    "FieldInfo",
    "Length",
    "Pattern",
    "Record",
    "describe_value",
    "field",
    "json_schema",
]

_BAD: Any = object()  # a validator's result when it recorded a problem

Validator = Callable[[Any, tuple[str | int, ...], list[Problem]], Any]


class FieldInfo(Field):
    """One field of a record: its name, the key files write it as, its default (a
    record shows and compares every field: ``init``, ``repr`` and ``compare`` keep
    their defaults)."""

    __slots__ = ("_annotation", "alias", "owner")

    def __init__(
        self,
        *,
        default: Any = _MISSING,
        default_factory: Callable[[], Any] | None = None,
        alias: str | None = None,
    ) -> None:
        super().__init__(default=default, default_factory=default_factory)
        self.alias = alias
        self.owner: type[Record] | None = None
        self._annotation: Any = _MISSING

    @property
    def key(self) -> str:
        """The key this field is written as in a file."""
        return self.alias or self.name

    @property
    def annotation(self) -> Any:
        """The field's type, its string annotation resolved on first use."""
        if self._annotation is _MISSING:
            assert self.owner is not None
            self._annotation = _hints(self.owner)[self.name]
        return self._annotation


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    alias: str | None = None,
) -> Any:
    """A field's default made by ``default_factory``, or its key in files when not its name."""
    return FieldInfo(default=default, default_factory=default_factory, alias=alias)


class _Step(typing.NamedTuple):
    """How one field is filled: the key input gives it by, its check, its default."""

    name: str
    key: str
    check: Validator
    info: FieldInfo
    required: bool


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of ``cls`` (string ones evaluated), once per class.

    ``typing.get_type_hints`` rebuilds every annotation it is given, a fifth of
    reading a first manifest: it runs only when some annotation is text.
    """
    found = _HINTS.get(cls)
    if found is None:
        merged: dict[str, Any] = {}
        for klass in reversed(cls.__mro__[:-1]):  # object has no annotations
            merged.update(klass.__annotations__)
        if any(_unresolved(annotation) for annotation in merged.values()):
            merged = typing.get_type_hints(cls, include_extras=True)
        found = _HINTS[cls] = merged
    return found


def _unresolved(annotation: Any) -> bool:
    """Whether an annotation is, or holds, a name still written as text."""
    if isinstance(annotation, str | typing.ForwardRef):
        return True
    origin = typing.get_origin(annotation)
    if origin is Literal:  # its arguments are values, texts among them
        return False
    args = typing.get_args(annotation)
    if origin is Annotated:  # only the type: the metadata is no annotation
        args = args[:1]
    return any(_unresolved(arg) for arg in args)


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Record(Immutable):
    """Base of the package's frozen data classes; see the module's docstring."""

    model_fields: ClassVar[dict[str, FieldInfo]] = {}
    _plan: ClassVar[tuple[_Step, ...] | None] = None
    _keys: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = dict(cls.model_fields)
        own = own_fields(cls, FieldInfo, lambda default: FieldInfo(default=default))
        for name, info in own.items():
            info.owner = cls
            fields[name] = info
        cls.model_fields = fields
        cls._compared = cls._shown = tuple(fields)
        cls._keys = {info.key: name for name, info in fields.items()}
        cls._plan = None

    def __init__(self, **data: Any) -> None:
        problems: list[Problem] = []
        _fill(self, data, (), problems)
        if problems:
            raise RecordError(problems)

    # -- pydantic's interface, the part this package uses

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """Check ``data`` (a mapping, or already an instance) and build the record."""
        problems: list[Problem] = []
        result = _validate_record(cls, data, (), problems)
        if problems:
            raise RecordError(problems)
        return typing.cast(Self, result)

    @property
    def model_fields_set(self) -> frozenset[str]:
        """The fields the input gave (the others took their defaults)."""
        found: frozenset[str] = self.__dict__["_fields_set"]
        return found

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with ``update``'s fields replaced (not checked again, as with pydantic)."""
        copy = object.__new__(type(self))
        state = dict(self.__dict__)
        if update:
            state.update(update)
            state["_fields_set"] = state["_fields_set"] | frozenset(update)
        copy.__dict__.update(state)
        return copy

    def model_dump(
        self,
        *,
        mode: Literal["python", "json"] = "python",
        include: Iterable[str] | None = None,
        exclude: Iterable[str] | None = None,
        by_alias: bool = False,
        exclude_defaults: bool = False,
        exclude_none: bool = False,
        exclude_unset: bool = False,
    ) -> dict[str, Any]:
        """The record as plain data: nested records as dicts, tuples as lists in JSON mode.

        ``include`` and ``exclude`` name fields of this record (not of nested ones).
        """
        options = (mode == "json", by_alias, exclude_defaults, exclude_none, exclude_unset)
        names = set(self.model_fields if include is None else include)
        return _dump_record(self, names.difference(exclude or ()), options)

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """A JSON Schema (draft 2020-12) of the record's input, for editors."""
        return json_schema(cls)

    # -- hooks for subclasses

    @classmethod
    def _before(cls, data: Any) -> Any:
        """Input in another form than a table, turned into one (by default, as given);
        raise ``ValueError`` to refuse it."""
        return data

    def _check(self) -> None:
        """Cross-field checks once every field is valid; raise ``ValueError`` to refuse."""


# -- validation


def _plan_of(cls: type[Record]) -> tuple[_Step, ...]:
    plan = cls.__dict__.get("_plan")
    if plan is None:
        hints = _hints(cls)
        steps = []
        for name, info in cls.model_fields.items():
            try:
                check = _validator(hints[name])
            except TypeError as exc:
                raise TypeError(f"{cls.__name__}.{name}: {exc}") from None
            steps.append(_Step(name, info.key, check, info, info.required))
        plan = cls._plan = tuple(steps)
    return plan


def _fill(
    record: Record, data: Mapping[str, Any], loc: tuple[str | int, ...], problems: list[Problem]
) -> None:
    """Check ``data`` field by field into ``record``, then its own cross-field checks."""
    cls = type(record)
    keys = cls._keys
    state = record.__dict__
    given: set[str] = set()
    count = len(problems)
    for name, key, check, info, required in _plan_of(cls):
        value = data.get(key, _MISSING)
        if value is _MISSING:
            if required:
                problems.append(Problem((*loc, key), "missing", f"missing required key {key!r}"))
            else:
                state[name] = info.get_default()
            continue
        given.add(name)
        state[name] = check(value, (*loc, key), problems)
    if len(data) > len(given):  # a key no field has (any key that is not text among them)
        for key in data:
            if not isinstance(key, str) or key not in keys:
                problems.append(
                    Problem(
                        (*loc, str(key)),
                        "extra",
                        f"unknown key {str(key)!r}; remove it or check its spelling",
                    )
                )
    state["_fields_set"] = frozenset(given)
    if len(problems) == count:
        try:
            record._check()
        except ValueError as exc:
            problems.append(_refused(loc, exc))


def _refused(loc: tuple[str | int, ...], exc: ValueError) -> Problem:
    """A check's ``ValueError`` as a problem; a package error's own key path goes after ``loc``."""
    if isinstance(exc, CatalogError):
        return Problem((*loc, *parse_key(exc.key or "")), "value", exc.message, exc)
    return Problem(loc, "value", str(exc), exc)


def _validate_record(
    cls: type[Record], value: Any, loc: tuple[str | int, ...], problems: list[Problem]
) -> Any:
    if isinstance(value, cls):
        return value
    try:
        value = cls._before(value)
    except ValueError as exc:
        problems.append(_refused(loc, exc))
        return _BAD
    if not isinstance(value, Mapping):
        problems.append(Problem(loc, "table", f"must be {_TABLE}, not {describe_value(value)}"))
        return _BAD
    record = object.__new__(cls)
    _fill(record, value, loc, problems)
    return record


def _validator(annotation: Any) -> Validator:
    """The checking function of one annotation, built once per record class."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return _constrained(_validator(args[0]), annotation.__metadata__)
    if annotation is Any or annotation is object:
        return lambda value, loc, problems: value
    if origin is Literal:
        return _literal(args)
    if origin is Union or origin is types.UnionType:
        return _union(args)
    if _is_sequence(annotation):
        kind = list if list in (origin, annotation) else tuple
        return _sequence(_validator(_item_type(annotation)), kind)
    if origin in (dict, Mapping) or annotation in (dict, Mapping):
        key, item = (_validator(args[0]), _validator(args[1])) if args else (_validator(Any),) * 2
        return _mapping(key, item)
    if isinstance(annotation, type) and issubclass(annotation, Record):
        record = annotation
        return lambda value, loc, problems: _validate_record(record, value, loc, problems)
    if annotation in _SCALARS:
        return _scalar(*_SCALARS[annotation])
    if annotation is type(None) or annotation is None:
        return _scalar(lambda value: value is None, "none", None)
    raise TypeError(f"records cannot check values of type {annotation!r}")


def _is_sequence(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (tuple, list, Sequence) or annotation in (tuple, list)


def _item_type(annotation: Any) -> Any:
    """The type of a list's items: ``X`` of ``tuple[X, ...]``, ``list[X]``, ``Sequence[X]``."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is tuple and args and (len(args) != 2 or args[1] is not ...):
        raise TypeError(
            f"records cannot check a tuple of fixed length ({annotation!r}); write tuple[X, ...]"
        )
    return args[0] if args else Any


_LIST = "a list (an array)"
_TABLE = "a table (an object)"
# The types a scalar takes (true and false are never numbers), in words, and its conversion.
_SCALARS: dict[Any, tuple[Callable[[Any], bool], str, Callable[[Any], Any] | None]] = {
    str: (lambda value: isinstance(value, str), "text", None),
    bool: (lambda value: isinstance(value, bool), "true or false", None),
    int: (
        lambda value: isinstance(value, int) and not isinstance(value, bool),
        "an integer",
        None,
    ),
    float: (
        lambda value: isinstance(value, int | float) and not isinstance(value, bool),
        "a number",
        float,
    ),
}
_FLOAT_MAX = f"{sys.float_info.max:g}"


def _scalar(
    test: Callable[[Any], bool], what: str, convert: Callable[[Any], Any] | None
) -> Validator:
    def check(value: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
        if not test(value):
            problems.append(Problem(loc, "type", f"must be {what}, not {describe_value(value)}"))
            return _BAD
        if convert is None:
            return value
        try:
            return convert(value)
        except OverflowError:  # an integer past the largest float
            message = f"must be between -{_FLOAT_MAX} and {_FLOAT_MAX}, not {figure(value)}"
            problems.append(Problem(loc, "bounds", message))
            return _BAD

    return check


def _or(alternatives: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    if len(alternatives) == 1:
        return alternatives[0]
    return f"{', '.join(alternatives[:-1])} or {alternatives[-1]}"


def _literal(choices: tuple[Any, ...]) -> Validator:
    allowed = _or([repr(c) for c in choices])

    def check(value: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
        if any(value == c and type(value) is type(c) for c in choices):
            return value
        problems.append(Problem(loc, "choice", f"must be {allowed}, not {describe_value(value)}"))
        return _BAD

    return check


def _expected(annotation: Any) -> list[str]:
    """What a value must be to fit ``annotation``, as messages say it (``'a'``, ``text``)."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _expected(typing.get_args(annotation)[0])
    if origin is Literal:
        return [repr(c) for c in typing.get_args(annotation)]
    if annotation in _SCALARS:
        return [_SCALARS[annotation][1]]
    return [_LIST] if _is_sequence(annotation) else [_TABLE]


_SHAPE_KINDS = frozenset({"type", "choice", "list", "table"})


def _union(members: tuple[Any, ...]) -> Validator:
    """The value fits the first member that takes it. When none does, the problems of the
    first member whose shape it has (a table for a record) say most; when it has the shape
    of none, one problem lists every member (``must be true or false, 'after' or 'inline'``).
    """
    optional = type(None) in members
    kept = [m for m in members if m is not type(None)]
    checks = [_validator(m) for m in kept]
    expected = _or([what for member in kept for what in _expected(member)])

    def check(value: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
        if value is None and optional:
            return None
        refused: list[Problem] = []
        for each in checks:
            found: list[Problem] = []
            result = each(value, loc, found)
            if not found:
                return result
            if any(p.loc != loc or p.kind not in _SHAPE_KINDS for p in found):
                problems.extend(found)
                return _BAD
            refused += found
        if len(checks) == 1:
            problems.extend(refused)
        else:
            message = f"must be {expected}, not {describe_value(value)}"
            problems.append(Problem(loc, refused[0].kind, message))
        return _BAD

    return check


def _sequence(item: Validator, kind: type[tuple[Any, ...]] | type[list[Any]]) -> Validator:
    def check(value: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
        if isinstance(value, set | frozenset):  # from Python code: in a fixed order
            value = _in_order(value)
        elif not isinstance(value, list | tuple):
            problems.append(Problem(loc, "list", f"must be {_LIST}, not {describe_value(value)}"))
            return _BAD
        return kind([item(each, (*loc, index), problems) for index, each in enumerate(value)])

    return check


def _in_order(items: set[Any] | frozenset[Any]) -> list[Any]:
    """A set's items sorted, so that a prompt built from it is the same every run (by
    their ``repr`` when they do not compare, texts and numbers mixed say)."""
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def _mapping(key: Validator, item: Validator) -> Validator:
    def check(value: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
        if not isinstance(value, Mapping):
            problems.append(Problem(loc, "table", f"must be {_TABLE}, not {describe_value(value)}"))
            return _BAD
        checked = {}
        for k, v in value.items():
            where = (*loc, k if isinstance(k, str) else str(k))  # an int would read as [index]
            name = key(k, where, problems)
            checked[name] = item(v, where, problems)
        return checked

    return check


def _constrained(inner: Validator, metadata: Sequence[Any]) -> Validator:
    def check(value: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
        count = len(problems)
        value = inner(value, loc, problems)
        for rule in metadata:
            if len(problems) != count:
                return _BAD
            problem = broken(rule, value)
            if problem is not None:
                problems.append(Problem(loc, *problem))
            elif isinstance(rule, Check):
                try:
                    value = rule.function(value)
                except ValueError as exc:
                    problems.append(_refused(loc, exc))
        return value if len(problems) == count else _BAD

    return check


# -- dumping


_DumpOptions = tuple[bool, bool, bool, bool, bool]


def _dump_record(
    record: Record, include: Collection[str] | None, options: _DumpOptions
) -> dict[str, Any]:
    _, by_alias, exclude_defaults, exclude_none, exclude_unset = options
    data: dict[str, Any] = {}
    given = record.model_fields_set
    for name, info in record.model_fields.items():
        if include is not None and name not in include:
            continue
        if exclude_unset and name not in given:
            continue
        value = getattr(record, name)
        if exclude_none and value is None:
            continue
        if exclude_defaults and not info.required and value == info.get_default():
            continue
        data[info.key if by_alias else name] = _dump_value(value, options)
    return data


def _dump_value(value: Any, options: _DumpOptions) -> Any:
    if isinstance(value, Record):
        return _dump_record(value, None, options)
    if isinstance(value, Mapping):
        return {k: _dump_value(v, options) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [_dump_value(v, options) for v in value]
        return items if options[0] or isinstance(value, list) else tuple(items)
    return _json_scalar(value) if options[0] else value


def _json_scalar(value: Any) -> Any:
    """A value TOML may hold that JSON has no type for, written as pydantic's JSON mode
    writes it (so hashes of dumps stay what they were): dates and times in ISO 8601
    (``Z`` for UTC), an infinite or undefined number as null."""
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[: -len("+00:00")] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# -- JSON Schema


def json_schema(cls: type[Record]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``cls``'s input; nested records go in ``$defs``."""
    definitions = _Definitions()
    schema = _record_schema(cls, definitions)
    if definitions.schemas:
        schema["$defs"] = dict(sorted(definitions.schemas.items()))
    return schema


class _Definitions:
    """The ``$defs`` of one schema, each record class under a name of its own."""

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}
        self._names: dict[type[Record], str] = {}

    def ref(self, cls: type[Record]) -> dict[str, Any]:
        """A reference to ``cls``'s schema, written into ``$defs`` on first use."""
        name = self._names.get(cls)
        if name is None:
            name = cls.__name__
            if name in self.schemas:  # another record of that name: this one by its full name
                name = f"{cls.__module__}.{cls.__qualname__}"
            self._names[cls] = name
            self.schemas[name] = {}  # a record that nests itself stops here
            self.schemas[name] = _record_schema(cls, self)
        return {"$ref": f"#/$defs/{name}"}


def _record_schema(cls: type[Record], definitions: _Definitions) -> dict[str, Any]:
    hints = _hints(cls)
    properties: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        each = _schema(hints[name], definitions)
        default = info.get_default() if not info.required else _MISSING
        if default is not _MISSING and not isinstance(default, Record):
            each["default"] = _dump_value(default, (True, True, False, False, False))
        properties[info.key] = each
    schema: dict[str, Any] = {"title": cls.__name__, "type": "object", "properties": properties}
    if cls.__doc__:
        schema["description"] = " ".join(cls.__doc__.split("\n\n")[0].split())
    required = [info.key for info in cls.model_fields.values() if info.required]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    also = getattr(cls, "_also_accepts", ())  # inherited with the _before that reads it
    return {"anyOf": [*also, schema]} if also else schema


def _schema(annotation: Any, definitions: _Definitions) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        constrained = _schema(args[0], definitions)
        for rule in annotation.__metadata__:
            constrained.update(rule_schema(rule))
        return constrained
    if origin is Literal:
        return {"enum": list(args)}
    if origin is Union or origin is types.UnionType:
        return {"anyOf": [_schema(arg, definitions) for arg in args]}
    if _is_sequence(annotation):
        return {"type": "array", "items": _schema(_item_type(annotation), definitions)}
    if origin in (dict, Mapping) or annotation in (dict, Mapping):
        schema: dict[str, Any] = {"type": "object"}
        if args:
            names = _schema(args[0], definitions)
            if set(names) - {"type"}:
                schema["propertyNames"] = names
            schema["additionalProperties"] = _schema(args[1], definitions)
        return schema
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return definitions.ref(annotation)
    return dict(_JSON_TYPES.get(annotation, {}))


_JSON_TYPES: dict[Any, dict[str, str]] = {
    str: {"type": "string"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    type(None): {"type": "null"},
}
