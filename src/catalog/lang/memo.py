"""Remembering a body's output, keyed by exactly the values it reads.

A compiled body knows the paths it reads from the scope (``env.cwd``,
``tools``: :attr:`catalog.lang.Template.reads`), and its output depends on
nothing else. :func:`remember` wraps a render so that the values at those
paths, met before, give back the text rendered then: an agent's repeated turns
under the same context cost a look-up per body.

A key holds each value as it is only when equal values of its kind always
render alike: text, none, true/false and whole numbers (each with its type,
as ``1 == true`` in Python), decimals (by their exact written form:
``0.0 == -0.0`` but they render apart) and tuples of texts (``tools``). Any
other value (a record, a mapping, a list of records) means the body is
rendered, not remembered. Rendering errors are never remembered.

The memory is shared by every remembered body of the process and bounded: at
most :data:`MAX_ENTRIES` outputs and :data:`MAX_CHARACTERS` characters of
outputs and keys together; the oldest entries go first. It is safe to use from
several threads, and what it gives back is always what rendering gives.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Collection
from typing import Final

from catalog.lang.values import Path, Scope, get_attribute

__all__ = ["MAX_CHARACTERS", "MAX_ENTRIES", "remember"]

MAX_ENTRIES: Final = 4096
"""Most outputs remembered at once, all bodies together."""
MAX_CHARACTERS: Final = 8_000_000
"""Most characters of outputs and keys remembered at once, all bodies together."""

_UNKEYED: Final = object()
_SCALARS: Final = frozenset({bool, int})


def remember(render: Callable[[Scope], str], reads: Collection[Path]) -> Callable[[Scope], str]:
    """``render``, whose output depends only on the values at ``reads``, answered from
    memory when those values were met before (see the module docstring)."""
    paths = tuple(sorted(reads))
    body = next(_BODIES)  # keeps the keys of two bodies apart

    def run(scope: Scope) -> str:
        key = _key(body, paths, scope)
        if key is None:
            return render(scope)
        found = _MEMORY.get(key)
        if found is None:
            found = render(scope)
            _MEMORY.put(key, found)
        return found

    return run


def _key(body: int, paths: tuple[Path, ...], scope: Scope) -> tuple[object, ...] | None:
    """The values at ``paths`` as a key, or None when one of them cannot be one."""
    key: list[object] = [body]
    for root, *attributes in paths:
        value = scope.get(root)
        for name in attributes:
            value = get_attribute(value, name)
        part = _keyed(value)
        if part is _UNKEYED:
            return None
        key.append(part)
    return tuple(key)


def _keyed(value: object) -> object:
    """``value`` as a part of a key (see the module docstring), else ``_UNKEYED``."""
    kind = type(value)
    if kind is str or value is None:
        return value
    if kind in _SCALARS:
        return kind, value
    if kind is float:
        return kind, repr(value)
    if kind is tuple and all(type(item) is str for item in value):  # type: ignore[attr-defined]
        return value
    return _UNKEYED


def _size(key: tuple[object, ...]) -> int:
    """Characters a key holds: its texts, and one for anything else."""
    size = 0
    for part in key:
        if isinstance(part, str):
            size += len(part)
        elif isinstance(part, tuple):
            size += sum(len(item) if isinstance(item, str) else 1 for item in part)
        else:
            size += 1
    return size


class _Memory:
    """Outputs by key, oldest first, within :data:`MAX_ENTRIES` and :data:`MAX_CHARACTERS`."""

    def __init__(self) -> None:
        self._entries: dict[tuple[object, ...], tuple[str, int]] = {}
        self._characters = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> str | None:
        with self._lock:
            found = self._entries.get(key)
        return None if found is None else found[0]

    def put(self, key: tuple[object, ...], text: str) -> None:
        size = len(text) + _size(key)
        if size > MAX_CHARACTERS // 16:  # one large output would push out many
            return
        with self._lock:
            if key in self._entries:
                return
            while self._entries and (
                len(self._entries) >= MAX_ENTRIES or self._characters + size > MAX_CHARACTERS
            ):
                oldest = next(iter(self._entries))
                self._characters -= self._entries.pop(oldest)[1]
            self._entries[key] = (text, size)
            self._characters += size

    def clear(self) -> None:
        """Forget everything (for tests that measure a cold render)."""
        with self._lock:
            self._entries.clear()
            self._characters = 0


_MEMORY: Final = _Memory()
_BODIES: Final = itertools.count()
