"""SHA-256 digests, without loading OpenSSL on every start.

``hashlib`` loads OpenSSL's library when it is imported: about 3 ms of every
command, for the one digest this package computes on that path (each part
body's, checked against its manifest). CPython also carries a SHA-256 of its
own, the one ``hashlib`` turns to when OpenSSL has none; it is used here when
present, else ``hashlib``'s. Both give the same digests.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

__all__ = ["sha256_hex"]


class _Hash(Protocol):
    def hexdigest(self) -> str: ...


def _constructor() -> Callable[[bytes], _Hash]:
    for name in ("_sha2", "_sha256"):  # CPython 3.12 and later, CPython 3.11
        try:
            found: Callable[[bytes], _Hash] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    import hashlib  # another Python: its hashlib

    return hashlib.sha256


_SHA256 = _constructor()


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data``, as 64 lowercase hexadecimal digits."""
    return _SHA256(data).hexdigest()
