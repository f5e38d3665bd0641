"""Remembering what a body gives, keyed by exactly the values it reads.

A compiled body knows the paths it reads from the scope (``env.cwd``,
``tools``: :attr:`catalog.lang.Template.reads`), and its output depends on
nothing else. :func:`remember` wraps a function of the scope that depends on
those paths alone (a render, or what the engine makes of it) so that the values
at those paths, met before, give back what it gave then: an agent's repeated
turns under the same context cost a look-up per body. The values are read
once, to make the key (:mod:`catalog.lang.rows`); a body met with new values
renders from the scope.

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
keys together (a :class:`~catalog.cache.BoundedCache`); the least recently
used go first. It is safe to use from several threads, and what it gives back
is always what rendering gives.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection
from typing import Final, TypeVar

from catalog.cache import BoundedCache
from catalog.lang.rows import row_reader
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
    compute: Callable[[Scope], _T], reads: Collection[Path], size: Callable[[_T], int]
) -> Callable[[Scope], _T]:
    """``compute``, whose result depends only on the values at ``reads``, answered from
    memory when those values were met before (see the module docstring); ``size``
    says how many characters a result holds."""
    read = row_reader(reads)
    body = next(_BODIES)  # keeps the keys of two bodies apart
    get, put, admits = _MEMORY.get, _MEMORY.put, _MET.admits

    def run(scope: Scope) -> _T:
        values = read(scope)
        kinds = tuple(map(type, values))
        if not _KEYED.issuperset(kinds):
            return compute(scope)
        if tuple in kinds:
            for value in values:
                if type(value) is tuple and not _TEXT.issuperset(map(type, value)):
                    # a tuple of other than texts: not a key
                    return compute(scope)
        key = (body, values, kinds)
        found = get(key)  # a hit takes no lock
        if found is not None and (not found[1] or afford(found[1])):
            return found[0]  # type: ignore[return-value]
        before = spent()
        made = compute(scope)
        if found is None and admits(key):
            put(key, (made, spent() - before), size(made) + _size(values))
        return made

    return run


def _size(values: tuple[object, ...]) -> int:
    """Characters a key's values hold, as written out: at least their texts' lengths."""
    return len(repr(values))


class _Met:
    """The hashes of keys met once: a result is kept the second time its key is met."""

    def __init__(self) -> None:
        self._hashes: set[int] = set()

    def admits(self, key: tuple[object, ...]) -> bool:
        """Whether a result for ``key`` is worth keeping: its key was met before. The
        first time, only the key's hash is noted (at most :data:`MAX_ENTRIES` of them,
        forgotten all at once past that), so a context met once (a new file, a new
        clock reading) pushes out nothing. Each step is one atomic operation of the
        set: a race only decides whether a result is kept, never what it is."""
        marker = hash(key)
        if marker in self._hashes:
            self._hashes.discard(marker)
            return True
        if len(self._hashes) >= MAX_ENTRIES:
            self._hashes.clear()
        self._hashes.add(marker)
        return False


# key -> (result, budget units computing it spent), weighing the characters of both
_MEMORY: Final[BoundedCache[tuple[object, ...], tuple[object, int]]] = BoundedCache(
    MAX_ENTRIES, weight=MAX_CHARACTERS, largest=MAX_CHARACTERS // 16
)
_MET: Final = _Met()
_BODIES: Final = itertools.count()


def usage() -> tuple[int, int]:
    """How many results, and how many characters, are remembered now (all bodies)."""
    return _MEMORY.usage()
