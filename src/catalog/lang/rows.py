"""The values a body reads, read from a scope at once.

A compiled body knows the paths it reads (``env.cwd``, ``tools``:
:attr:`catalog.lang.Template.reads`). :func:`row_reader` makes what reads the
values at those paths from a scope in one step, as a tuple: the names read
whole first, then the paths of each name read by its attributes, each in sorted
order; the fields of one name that its value's class declares (the context's
records: ``env.cwd``, ``env.os``) are read together, in one call. That tuple
keys what :mod:`catalog.lang.memo` remembers.

Values are read as the expression language reads them
(:func:`~catalog.lang.values.get_attribute`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection
from typing import Any, TypeAlias

from catalog.lang.values import Path, Scope, fields_of, get_attribute

__all__ = ["Values", "row_reader"]

Values: TypeAlias = tuple[object, ...]
"""The values at some paths, in the reader's order."""


def row_reader(paths: Collection[Path]) -> Callable[[Scope], Values]:
    """The reader of the values at ``paths``: the names read whole first, then the
    paths of each name read only by its attributes (a name read whole too is read
    whole alone: its value holds the rest)."""
    whole = tuple(sorted({path[0] for path in paths if len(path) == 1}))
    tails: dict[str, list[Path]] = {}
    for root, *rest in sorted(paths):
        if rest and root not in whole:
            tails.setdefault(root, []).append(tuple(rest))
    groups = tuple(_attributes(root, tuple(found)) for root, found in tails.items())
    if not whole and len(groups) == 1:
        return groups[0]
    if len(whole) == 1 and not groups:
        name = whole[0]
        return lambda scope: (scope.get(name),)

    def read(scope: Scope) -> Values:
        values = tuple(map(scope.get, whole))
        for group in groups:
            values += group(scope)
        return values

    return read


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
