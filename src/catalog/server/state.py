"""The server's settings and the state its routes share: the catalogs and the prompt store."""

from __future__ import annotations

import hmac
import threading
from dataclasses import dataclass, field
from typing import Final

from catalog.conversations.base import PromptStore
from catalog.conversations.connect import default_store_url, open_store
from catalog.server.library import Library

__all__ = ["LOOPBACK", "MAX_BODY_BYTES", "ServerSettings", "ServerState"]

MAX_BODY_BYTES: Final = 1_048_576
"""The largest request body accepted (bytes); larger ones get 413."""

LOOPBACK: Final = frozenset({"127.0.0.1", "::1", "localhost"})
"""Addresses that only this machine reaches: the server binds here unless told otherwise."""


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How ``catalog serve`` runs; see docs/serving.md.

    ``token``: when set, every write (``PUT /system-prompt``, ``PUT`` and
    ``POST .../rebuild`` of conversations) needs ``Authorization: Bearer TOKEN``.
    ``template_catalog``: ``NAME[@SPEC]`` whose user template ``/system-prompt``
    edits (default: the first catalog, by name, that takes one).
    ``store_timeout``: how long a busy or unreachable store is retried (seconds).
    """

    paths: tuple[str, ...] = ()
    store_url: str = field(default_factory=default_store_url)
    token: str | None = None
    template_catalog: str | None = None
    max_body: int = MAX_BODY_BYTES
    store_timeout: float = 10.0
    host: str = "127.0.0.1"

    def token_matches(self, given: str | None) -> bool:
        """Whether ``given`` is the token (compared in constant time)."""
        if self.token is None:
            return True
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())


class ServerState:
    """The catalogs (compiled once, kept) and the prompt store, opened on first use and
    again after a failed attempt, so a server starts while its database is down."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.library = Library(settings.paths)
        self._store: PromptStore | None = None
        self._lock = threading.Lock()

    def store(self) -> PromptStore:
        """The prompt store (:class:`~catalog.errors.StoreUnavailableError` when it cannot
        be reached within the settings' timeout)."""
        with self._lock:
            if self._store is None:
                self._store = open_store(
                    self.settings.store_url, timeout=self.settings.store_timeout
                )
            return self._store

    def close(self) -> None:
        """Close the store, if it was opened."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
