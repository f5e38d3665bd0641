"""SHA-256 digests, without loading OpenSSL on every start.

``hashlib`` loads OpenSSL's library when it is imported: about 3 ms of every
command, for the one digest this package computes on that path (each part
body's, checked against its manifest). CPython also carries a SHA-256 of its
own, the one ``hashlib`` turns to when OpenSSL has none: it starts at once but
hashes about five times slower. So the first megabyte or so is hashed with
CPython's, where importing ``hashlib`` would cost more than it saves; after
that, or as soon as something else has imported ``hashlib``, OpenSSL's. Both
give the same digests.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Protocol

__all__ = ["sha256_hex"]

# About what importing hashlib costs, in bytes CPython's SHA-256 would hash in that time.
_SWITCH_AFTER = 1 << 20


class _Hash(Protocol):
    def hexdigest(self) -> str: ...


def _builtin() -> Callable[[bytes], _Hash] | None:
    for name in ("_sha2", "_sha256"):  # CPython 3.12 and later, CPython 3.11
        try:
            found: Callable[[bytes], _Hash] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    return None  # another Python: hashlib's only


_BUILTIN = _builtin()
_hashed = [0]  # bytes hashed with _BUILTIN so far


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data``, as 64 lowercase hexadecimal digits."""
    if _BUILTIN is not None and "hashlib" not in sys.modules:
        _hashed[0] += len(data)
        if _hashed[0] <= _SWITCH_AFTER:
            return _BUILTIN(data).hexdigest()
    import hashlib  # imported once; after that, found in sys.modules

    return hashlib.sha256(data).hexdigest()
