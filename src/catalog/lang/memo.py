"""Remembering what a body gives, keyed by exactly the values it reads.

A compiled body knows the paths it reads from the scope (``env.cwd``,
``tools``: :attr:`catalog.lang.Template.reads`), and its output depends on
nothing else. :func:`remember` wraps a function of the scope that depends on
those paths alone (a render, or what the engine makes of it) so that the values
at those paths, met before, give back what it gave then: an agent's repeated
turns under the same context cost a look-up per body. The values are read once,
as a row (:mod:`catalog.lang.rows`), and a body met with new values renders from
that row.

A key holds the values read and their types (``1 == true`` in Python, but
they render apart), and only values whose equals always render alike: text,
none, true/false, whole numbers and tuples of texts (``tools``). Any other
value (a decimal, whose ``0.0`` and ``-0.0`` are equal, a record, a mapping,
a list of records) means the body is rendered, not remembered. Rendering
errors are never remembered. A result given back from memory spends the
evaluation budget that computing it spent, so that an assembly runs out of
budget alike whether it was remembered or not (where it cannot, it is
computed, to fail where computing fails).

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
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Final, TypeVar

from catalog.lang.rows import Row, Values, row_reader
from catalog.lang.values import Path, Scope, afford, spent

__all__ = ["MAX_CHARACTERS", "MAX_ENTRIES", "remember", "usage"]

MAX_ENTRIES: Final = 4096
"""Most outputs remembered at once, all bodies together."""
MAX_CHARACTERS: Final = 8_000_000
"""Most characters of outputs and keys remembered at once, all bodies together."""

_KEYED: Final = frozenset({str, type(None), bool, int, tuple})
_TEXT: Final = frozenset({str})

_T = TypeVar("_T")


def remember(
    compute: Callable[[Row], _T], reads: Collection[Path], size: Callable[[_T], int]
) -> Callable[[Scope], _T]:
    """``compute``, whose result depends only on the values at ``reads``, answered from
    memory when those values were met before (see the module docstring). ``compute``
    is given the row of those values (:mod:`catalog.lang.rows`), so nothing is read
    twice, or the scope itself when it reads names whole only (the scope holds their
    row); ``size`` says how many characters a result holds."""
    reader = row_reader(reads)
    read = reader.read
    row: Callable[[Values], Row] | None = None if reader.by_name else reader.row
    body = next(_BODIES)  # keeps the keys of two bodies apart
    entries, admits, put = _MEMORY.entries, _MEMORY.admits, _MEMORY.put

    def run(scope: Scope) -> _T:
        values = read(scope)
        kinds = tuple(map(type, values))
        if not _KEYED.issuperset(kinds):
            return compute(scope if row is None else row(values))
        if tuple in kinds:
            for value in values:
                if type(value) is tuple and not _TEXT.issuperset(map(type, value)):
                    # a tuple of other than texts: not a key
                    return compute(scope if row is None else row(values))
        key = (body, values, kinds)
        # Each step is one atomic operation of the dictionary: a hit needs no lock.
        found = entries.get(key)
        if found is not None and (not found[2] or afford(found[2])):
            try:  # noqa: SIM105 (contextlib.suppress costs two calls on every hit)
                entries.move_to_end(key)
            except KeyError:
                pass  # pushed out by another thread meanwhile: what was found stays right
            return found[0]  # type: ignore[return-value]
        before = spent()
        made = compute(scope if row is None else row(values))
        if found is None and admits(key):
            put(key, made, size(made) + _size(values), spent() - before)
        return made

    return run


def _size(values: tuple[object, ...]) -> int:
    """Characters a key's values hold, as written out: at least their texts' lengths."""
    return len(repr(values))


class _Memory:
    """Results by key, least recently used first, within :data:`MAX_ENTRIES` and
    :data:`MAX_CHARACTERS`."""

    def __init__(self) -> None:
        # key -> (result, characters, budget units computing it spent)
        self.entries: OrderedDict[tuple[object, ...], tuple[object, int, int]] = OrderedDict()
        self._characters = 0
        self._met: set[int] = set()  # hashes of keys met once
        self._lock = threading.Lock()

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

    def put(self, key: tuple[object, ...], result: object, size: int, units: int) -> None:
        """Keep ``result`` (of ``size`` characters with its key, computed spending
        ``units`` of the budget), pushing out the least recently used results as the
        bounds need."""
        if size > MAX_CHARACTERS // 16:  # one large result would push out many
            return
        with self._lock:
            if key in self.entries:
                return
            while self.entries and (
                len(self.entries) >= MAX_ENTRIES or self._characters + size > MAX_CHARACTERS
            ):
                self._characters -= self.entries.popitem(last=False)[1][1]
            self.entries[key] = (result, size, units)
            self._characters += size

    def usage(self) -> tuple[int, int]:
        """How many results and characters are remembered now."""
        with self._lock:
            return len(self.entries), self._characters


_MEMORY: Final = _Memory()
_BODIES: Final = itertools.count()


def usage() -> tuple[int, int]:
    """How many results, and how many characters, are remembered now (all bodies)."""
    return _MEMORY.usage()
