"""The package's one kind of in-memory cache, and the one way to empty them all.

Every cache of the package (compiled catalogs, release labels, history
indexes, parsed parts files, rendered bodies, token counts, expression
trees) is a :class:`BoundedCache`: least recently used first out, bounded by
the number of its entries and, when its values differ in size, by their
total weight (characters, bytes, records: what the owner says a value
weighs). It is safe to share between threads: a look-up takes no lock (each
step is one atomic operation of the dictionary, so a hit costs what a
dictionary look-up does), a store or an eviction takes the cache's lock.

:func:`clear_caches` empties every cache the process holds (as
``zoneinfo.ZoneInfo.clear_cache`` does for time zones): after files changed
behind a long-running program's back, say, or to measure a cold start.
Nothing else ever needs calling: a cache's answers are those its owner would
compute again.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

__all__ = ["BoundedCache", "clear_caches"]

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")

_EVERY: weakref.WeakSet[BoundedCache[Any, Any]] = weakref.WeakSet()
_EVERY_LOCK = threading.Lock()


class BoundedCache(Generic[_K, _V]):
    """Values by key, at most ``entries`` of them and at most ``weight`` in total (of
    the weights given to :meth:`put`; unbounded when None), the least recently used
    pushed out first. A value weighing more than ``largest`` (when given) is not
    kept: one large value would push out many. Otherwise the value stored last
    stays even when it alone passes a bound, so what was just computed is there to
    reuse.
    """

    def __init__(
        self, entries: int, *, weight: int | None = None, largest: int | None = None
    ) -> None:
        self.entries = entries
        self.weight = weight
        self.largest = largest
        self._kept: OrderedDict[_K, tuple[_V, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()
        with _EVERY_LOCK:
            _EVERY.add(self)

    def get(self, key: _K) -> _V | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        found = self._kept.get(key)
        if found is None:
            return None
        try:  # noqa: SIM105 (contextlib.suppress costs two calls on every hit)
            self._kept.move_to_end(key)
        except KeyError:
            pass  # pushed out by another thread meanwhile: what was found stays right
        return found[0]

    def put(self, key: _K, value: _V, weight: int = 1) -> None:
        """Keep ``value`` for ``key`` (replacing what was kept), weighing ``weight``,
        pushing out the least recently used values as the bounds need."""
        if self.largest is not None and weight > self.largest:
            return
        with self._lock:
            replaced = self._kept.pop(key, None)
            if replaced is not None:
                self._total -= replaced[1]
            self._kept[key] = (value, weight)
            self._total += weight
            while len(self._kept) > 1 and (
                len(self._kept) > self.entries
                or (self.weight is not None and self._total > self.weight)
            ):
                self._total -= self._kept.popitem(last=False)[1][1]

    def pop(self, key: _K) -> _V | None:
        """Forget ``key``; the value that was kept for it, or None."""
        with self._lock:
            found = self._kept.pop(key, None)
            if found is None:
                return None
            self._total -= found[1]
            return found[0]

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._kept.clear()
            self._total = 0

    def usage(self) -> tuple[int, int]:
        """How many values are kept now, and their total weight."""
        with self._lock:
            return len(self._kept), self._total

    def __contains__(self, key: object) -> bool:
        return key in self._kept


def clear_caches() -> None:
    """Empty every cache of the package in this process (see the module docstring)."""
    with _EVERY_LOCK:
        caches = list(_EVERY)
    for cache in caches:
        cache.clear()
