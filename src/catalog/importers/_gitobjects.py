"""How large a repository says an object is, read from headers before anything inflates it.

dulwich inflates an object whole, and holds every base of a delta chain while
it resolves one. A hostile repository can declare a blob of gigabytes in a
few compressed megabytes, or a small delta over a huge base, or a chain of
thousands of deltas. :class:`DeclaredSizes` reads what the object's headers
declare (a loose object's ``type size`` header; a packed entry's size, a
delta's target size and its base, link by link), inflating at most a few
dozen bytes of each, so that the importer refuses such an object before
dulwich reads it. dulwich then holds each entry to the size it declares.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Final

from dulwich.object_store import DiskObjectStore
from dulwich.objects import ObjectID

from catalog.io.textfile import read_capped

__all__ = ["MAX_CHAIN_BYTES", "MAX_CHAIN_LINKS", "DeclaredSizes", "ObjectTooLarge"]

MAX_CHAIN_LINKS: Final = 4095
"""Most deltas on the way to one object (git's own deepest ``--depth``)."""
MAX_CHAIN_BYTES: Final = 256 * 1024 * 1024
"""Most bytes an object and every delta and base on its way declare together."""

_HASH_BYTES: Final = 20  # SHA-1; the importer refuses SHA-256 repositories first
_OFS_DELTA: Final = 6
_REF_DELTA: Final = 7
_WHOLE: Final = frozenset((1, 2, 3, 4))  # commit, tree, blob, tag


class ObjectTooLarge(ValueError):
    """The object, or the work of reading it, is over a limit."""


class DeclaredSizes:
    """The sizes objects of ``store`` (whose folder is ``objects``) declare.

    :meth:`check` raises :class:`KeyError` for an absent object,
    :class:`ObjectTooLarge` for one over a limit and :class:`ValueError` for
    a damaged one.
    """

    def __init__(self, store: DiskObjectStore, objects: Path) -> None:
        self._objects = objects
        self._packs = list(store.packs)  # listed once: the repository is not written meanwhile
        self._files: dict[str, int] = {}  # pack path -> open descriptor
        # (descriptor, offset) -> (object size, bytes of its chain)
        self._chains: dict[tuple[int, int], tuple[int, int]] = {}

    def close(self) -> None:
        """Close the pack files opened to read entry headers."""
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()

    def check(self, oid: str, limit: int) -> int:
        """The size object ``oid`` declares; over ``limit``, or reading it over
        :data:`MAX_CHAIN_BYTES` or :data:`MAX_CHAIN_LINKS`, is refused."""
        found = self._packed(oid)
        loose = self._loose_size(oid)
        if not found and loose is None:
            raise KeyError(oid)
        sizes = [self._chain(fd, offset) for fd, offset in found]
        if loose is not None:
            sizes.append((loose, loose))
        own = max(size for size, _ in sizes)
        if own > limit:
            raise ObjectTooLarge(f"it is {own} bytes, more than the limit of {limit} bytes")
        return own

    def _packed(self, oid: str) -> list[tuple[int, int]]:
        """``(pack descriptor, offset)`` of every packed copy of ``oid``."""
        found = []
        for pack in self._packs:
            try:
                offset = pack.index.object_offset(ObjectID(oid.encode("ascii")))
            except KeyError:
                continue
            found.append((self._open(os.fspath(pack.data.path)), offset))
        return found

    def _open(self, path: str) -> int:
        fd = self._files.get(path)
        if fd is None:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            self._files[path] = fd
        return fd

    def _loose_size(self, oid: str) -> int | None:
        """The size in a loose object's header; None when there is no loose copy."""
        path = self._objects / oid[:2] / oid[2:]
        try:
            raw, _ = read_capped(path, 1023)
        except FileNotFoundError:
            return None
        try:
            head = zlib.decompressobj().decompress(raw[:1024], 64)
        except zlib.error:
            head = b""
        kind, space, rest = head.partition(b" ")
        size, nul, _ = rest.partition(b"\0")
        if not (space and nul and size.isdigit() and kind in (b"blob", b"tree", b"commit", b"tag")):
            raise ValueError("the loose object's header is damaged")
        return int(size)

    def _chain(self, fd: int, offset: int) -> tuple[int, int]:
        """``(object size, bytes of the whole chain)`` of the packed entry at ``offset``.

        Deltas share bases, so each entry's answer is kept: a chain is walked
        only down to the first entry walked before.
        """
        links: list[tuple[tuple[int, int], int, int]] = []  # entry, its bytes, its target
        own, total = 0, 0
        while (fd, offset) not in self._chains:
            if len(links) > MAX_CHAIN_LINKS:
                raise ObjectTooLarge(f"it is stored as more than {MAX_CHAIN_LINKS} deltas")
            kind, size, data, base = _entry(fd, offset)
            if kind in _WHOLE:
                own, total = size, _bounded(size)
                self._chains[fd, offset] = (own, total)
                break
            if kind not in (_OFS_DELTA, _REF_DELTA):
                raise ValueError(f"a pack entry of unknown type {kind}")
            target = _delta_target(fd, data)
            links.append(((fd, offset), size + target, target))
            if isinstance(base, int):
                offset = base
                continue
            found = self._packed(base)
            if not found:
                loose = self._loose_size(base)
                if loose is None:
                    raise ValueError(f"the base {base} of a delta is missing")
                own, total = loose, _bounded(loose)
                break
            fd, offset = found[0]
        else:
            own, total = self._chains[fd, offset]
        for entry, cost, target in reversed(links):
            own, total = target, _bounded(total + cost)
            self._chains[entry] = (own, total)
        return own, total


def _bounded(total: int) -> int:
    if total > MAX_CHAIN_BYTES:
        raise ObjectTooLarge(
            f"reading it takes more than {MAX_CHAIN_BYTES} bytes of deltas and bases"
        )
    return total


def _entry(fd: int, offset: int) -> tuple[int, int, int, int | str]:
    """A pack entry's type, declared size, where its data starts and, for a delta,
    its base (an offset in the same pack, or an object id)."""
    head = os.pread(fd, 64, offset)
    try:
        byte = head[0]
        kind, size, shift, at = (byte >> 4) & 7, byte & 15, 4, 1
        while byte & 0x80:
            byte = head[at]
            size |= (byte & 0x7F) << shift
            shift, at = shift + 7, at + 1
        if kind == _OFS_DELTA:
            byte = head[at]
            distance, at = byte & 0x7F, at + 1
            while byte & 0x80:
                byte = head[at]
                distance, at = ((distance + 1) << 7) | (byte & 0x7F), at + 1
            if not 0 < distance <= offset:
                raise ValueError("a delta's base lies outside its pack")
            return kind, size, offset + at, offset - distance
        if kind == _REF_DELTA:
            base = head[at : at + _HASH_BYTES]
            if len(base) < _HASH_BYTES:
                raise IndexError
            return kind, size, offset + at + _HASH_BYTES, base.hex()
    except IndexError:
        raise ValueError("a pack entry's header is cut short") from None
    return kind, size, offset + at, 0


def _delta_target(fd: int, data: int) -> int:
    """The size a delta's header says it produces (after the size of its base)."""
    try:
        head = zlib.decompressobj().decompress(os.pread(fd, 256, data), 24)
    except zlib.error:
        head = b""
    at = 0
    for _ in range(2):
        value, shift = 0, 0
        while True:
            if at >= len(head) or shift > 63:
                raise ValueError("a delta's header is damaged")
            byte = head[at]
            value |= (byte & 0x7F) << shift
            shift, at = shift + 7, at + 1
            if not byte & 0x80:
                break
    return value
