"""Rows: the values a body reads, read from a scope at once.

A compiled body knows the paths it reads (``env.cwd``, ``tools``:
:attr:`catalog.lang.Template.reads`). :func:`row_reader` makes what reads the
values at those paths from a scope in one step, as a tuple in the order of its
keys (each path written with dots: ``"env.cwd"``); the fields of one name that
its value's class declares (the context's records: ``env.cwd``, ``env.os``) are
read together, in one call. That tuple keys what :mod:`catalog.lang.memo`
remembers, and the row made of it (its values by key) is what a body compiled
for rows renders from: every ``{{ env.cwd }}`` of the body is one look-up, and
no value is read twice.

Values are read as the expression language reads them
(:func:`~catalog.lang.values.get_attribute`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from catalog.lang.values import Path, Scope, fields_of, get_attribute

__all__ = ["Row", "RowReader", "Values", "path_key", "row_reader", "row_roots"]

Values: TypeAlias = tuple[object, ...]
"""The values at a row's paths, in the order of its keys."""
Row: TypeAlias = Mapping[str, Any]
"""The values at a body's paths by key: what a body compiled for rows renders from."""


def path_key(path: Path) -> str:
    """The key of ``path`` in a row: its names joined with dots (no name holds one)."""
    return ".".join(path)


def row_roots(paths: Collection[Path]) -> frozenset[str]:
    """The names of ``paths`` read only through their attributes (``env`` of
    ``env.cwd``): a row holds the values of their paths, not the names' own."""
    whole = {path[0] for path in paths if len(path) == 1}
    return frozenset(path[0] for path in paths if len(path) > 1 and path[0] not in whole)


@dataclass(frozen=True, slots=True)
class RowReader:
    """Reads the values at some paths from a scope: ``read(scope)`` gives them in the
    order of ``keys``; :meth:`row` makes the row of what it read. ``by_name`` is set
    when every path is a name read whole: the scope itself then holds the row."""

    keys: tuple[str, ...]
    read: Callable[[Scope], Values]
    by_name: bool = False

    def row(self, values: Values) -> dict[str, Any]:
        """``values`` (as ``read`` gives them) by key."""
        return dict(zip(self.keys, values, strict=True))


def row_reader(paths: Collection[Path]) -> RowReader:
    """The reader of the values at ``paths``: the names read whole first, then the
    paths of each name read by its attributes (see :func:`row_roots`)."""
    whole = tuple(sorted({path[0] for path in paths if len(path) == 1}))
    tails: dict[str, list[Path]] = {}
    for root, *rest in sorted(paths):
        if rest and root not in whole:
            tails.setdefault(root, []).append(tuple(rest))
    keys = whole + tuple(path_key((root, *tail)) for root, found in tails.items() for tail in found)
    groups = tuple(_attributes(root, tuple(found)) for root, found in tails.items())
    if not whole and len(groups) == 1:
        return RowReader(keys, groups[0])
    if len(whole) == 1 and not groups:
        name = whole[0]
        return RowReader(keys, lambda scope: (scope.get(name),), by_name=True)

    def read(scope: Scope) -> Values:
        values = tuple(map(scope.get, whole))
        for group in groups:
            values += group(scope)
        return values

    return RowReader(keys, read, by_name=not groups)


def _attributes(root: str, tails: tuple[Path, ...]) -> Callable[[Scope], Values]:
    """The reader of ``root.a.b`` for each of ``tails``: all at once when they are
    single fields the root's value declares, else each as the expression language
    reads it."""
    names = tuple(tail[0] for tail in tails if len(tail) == 1)
    together = _fields(names) if len(names) == len(tails) else None
    declaring: dict[type, bool] = {}  # whether a class declares every one of names

    def read(scope: Scope) -> Values:
        value = scope.get(root)
        kind = type(value)
        declares = declaring.get(kind)
        if declares is None:
            declares = declaring.setdefault(kind, fields_of(kind).issuperset(names))
        if together is not None and declares:
            return together(value)
        return tuple(_follow(value, tail) for tail in tails)

    return read


def _fields(names: tuple[str, ...]) -> Callable[[Any], Values]:
    """The reader of the declared fields ``names`` of a value, as a tuple in one call."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    field = operator.attrgetter(names[0])  # of one name, attrgetter gives the value itself
    return lambda value: (field(value),)


def _follow(value: object, tail: Path) -> object:
    for name in tail:
        value = get_attribute(value, name)
    return value
