"""Remembering what a body gives, keyed by exactly the values it reads.

A compiled body knows the paths it reads from the scope (``env.cwd``,
``tools``: :attr:`catalog.lang.Template.reads`), and its output depends on
nothing else. :func:`remember` wraps a function of the scope that depends on
those paths alone (a render, or what the engine makes of it) so that the values
at those paths, met before, give back what it gave then: an agent's repeated
turns under the same context cost a look-up per body.

A key holds the values read and their types (``1 == true`` in Python, but
they render apart), and only values whose equals always render alike: text,
none, true/false, whole numbers and tuples of texts (``tools``). Any other
value (a decimal, whose ``0.0`` and ``-0.0`` are equal, a record, a mapping,
a list of records) means the body is rendered, not remembered. Rendering
errors are never remembered.

A result is kept the second time its values are met (the first time only
their hash is noted), so contexts met once, as a new clock reading makes them,
push out nothing. The memory is shared by every remembered body of the
process and bounded: at most :data:`MAX_ENTRIES` results and
:data:`MAX_CHARACTERS` characters of results (as the caller counts them) and
keys together; the least recently used go first. It is safe to use from
several threads, and what it gives back is always what rendering gives.
"""

from __future__ import annotations

import itertools
import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Final, TypeVar

from catalog.lang.values import Path, Scope, fields_of, get_attribute

__all__ = ["MAX_CHARACTERS", "MAX_ENTRIES", "remember", "usage"]

MAX_ENTRIES: Final = 4096
"""Most outputs remembered at once, all bodies together."""
MAX_CHARACTERS: Final = 8_000_000
"""Most characters of outputs and keys remembered at once, all bodies together."""

_KEYED: Final = frozenset({str, type(None), bool, int, tuple})
_TEXT: Final = frozenset({str})

_Reader = Callable[[Scope], tuple[object, ...]]
_T = TypeVar("_T")
_MISSING: Final = object()


def remember(
    compute: Callable[[Scope], _T], reads: Collection[Path], size: Callable[[_T], int]
) -> Callable[[Scope], _T]:
    """``compute``, whose result depends only on the values at ``reads``, answered from
    memory when those values were met before (see the module docstring); ``size``
    says how many characters a result holds."""
    read = _reader(reads)
    body = next(_BODIES)  # keeps the keys of two bodies apart

    def run(scope: Scope) -> _T:
        values = read(scope)
        kinds = tuple(map(type, values))
        if not _KEYED.issuperset(kinds):
            return compute(scope)
        if tuple in kinds:
            for value in values:
                if type(value) is tuple and not _TEXT.issuperset(map(type, value)):
                    return compute(scope)  # a tuple of other than texts: not a key
        key = (body, values, kinds)
        found = _MEMORY.get(key, _MISSING)
        if found is _MISSING:
            found = compute(scope)
            if _MEMORY.admits(key):
                _MEMORY.put(key, found, size(found) + _size(values))
        return found  # type: ignore[return-value]

    return run


def _reader(reads: Collection[Path]) -> _Reader:
    """What reads the values at ``reads`` from a scope, in one tuple: the names read
    whole, then the attributes of each name read by its attributes."""
    whole = tuple(sorted(path[0] for path in reads if len(path) == 1))
    tails: dict[str, list[Path]] = {}
    for root, *rest in sorted(reads):
        if rest and root not in whole:
            tails.setdefault(root, []).append(tuple(rest))
    groups = [_attributes(root, tuple(paths)) for root, paths in tails.items()]
    if not whole and len(groups) == 1:
        return groups[0]

    def read(scope: Scope) -> tuple[object, ...]:
        values = tuple(map(scope.get, whole))
        for group in groups:
            values += group(scope)
        return values

    return read


def _attributes(root: str, tails: tuple[Path, ...]) -> _Reader:
    """The reader of ``root.a.b`` for each of ``tails``: all at once when they are
    single fields the root's value declares (the context's records: ``env.cwd``,
    ``env.os``), else each as the expression language reads it."""
    names = tuple(tail[0] for tail in tails if len(tail) == 1)
    together = operator.attrgetter(*names) if len(names) == len(tails) > 1 else None
    declaring: dict[type, bool] = {}  # whether a class declares every one of names

    def read(scope: Scope) -> tuple[object, ...]:
        value = scope.get(root)
        kind = type(value)
        declares = declaring.get(kind)
        if declares is None:
            declares = declaring.setdefault(kind, fields_of(kind).issuperset(names))
        if together is not None and declares:
            return together(value)
        return tuple(_follow(value, tail) for tail in tails)

    return read


def _follow(value: object, tail: Path) -> object:
    for name in tail:
        value = get_attribute(value, name)
    return value


def _size(values: tuple[object, ...]) -> int:
    """Characters a key's values hold, as written out: at least their texts' lengths."""
    return len(repr(values))


class _Memory:
    """Results by key, least recently used first, within :data:`MAX_ENTRIES` and
    :data:`MAX_CHARACTERS`."""

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple[object, ...], tuple[object, int]] = OrderedDict()
        self._characters = 0
        self._met: set[int] = set()  # hashes of keys met once
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...], missing: object) -> object:
        """The result kept for ``key``, now the most recently used; else ``missing``.
        Each step is one atomic operation of the dictionary: it needs no lock."""
        found = self._entries.get(key)
        if found is None:
            return missing
        try:  # noqa: SIM105 (contextlib.suppress costs two calls on every hit)
            self._entries.move_to_end(key)
        except KeyError:
            pass  # pushed out by another thread meanwhile: what was found stays right
        return found[0]

    def admits(self, key: tuple[object, ...]) -> bool:
        """Whether a result for ``key`` is worth keeping: its key was met before. The
        first time, only the key's hash is noted (at most :data:`MAX_ENTRIES` of them,
        forgotten all at once past that), so a context met once (a new file, a new
        clock reading) pushes out nothing. Each step is one atomic operation of the
        set: a race only decides whether a result is kept, never what it is."""
        marker = hash(key)
        if marker in self._met:
            self._met.discard(marker)
            return True
        if len(self._met) >= MAX_ENTRIES:
            self._met.clear()
        self._met.add(marker)
        return False

    def put(self, key: tuple[object, ...], result: object, size: int) -> None:
        """Keep ``result`` (of ``size`` characters with its key), pushing out the least
        recently used results as the bounds need."""
        if size > MAX_CHARACTERS // 16:  # one large result would push out many
            return
        with self._lock:
            if key in self._entries:
                return
            while self._entries and (
                len(self._entries) >= MAX_ENTRIES or self._characters + size > MAX_CHARACTERS
            ):
                self._characters -= self._entries.popitem(last=False)[1][1]
            self._entries[key] = (result, size)
            self._characters += size

    def usage(self) -> tuple[int, int]:
        """How many results and characters are remembered now."""
        with self._lock:
            return len(self._entries), self._characters


_MEMORY: Final = _Memory()
_BODIES: Final = itertools.count()


def usage() -> tuple[int, int]:
    """How many results, and how many characters, are remembered now (all bodies)."""
    return _MEMORY.usage()
