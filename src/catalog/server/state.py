"""The server's settings and the state its routes share: the catalogs, the prompt store,
the releases read for constructions and the metrics."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import catalog
from catalog.conversations.base import LOCAL, ReleaseStore
from catalog.conversations.connect import default_store_url, open_store
from catalog.conversations.releases import ReleaseCache
from catalog.errors import StoreUnavailableError, UsageError
from catalog.io.listening import LOOPBACK, TOKEN_HINT, token_problem
from catalog.schema.manifest import NAME_RULE, is_catalog_name
from catalog.server.library import Library
from catalog.server.metrics import Metrics

__all__ = [
    "BODY_SECONDS",
    "LOOPBACK",
    "MAX_BODY_BYTES",
    "RETRY_AFTER_SECONDS",
    "STORE_SECONDS",
    "ServerSettings",
    "ServerState",
    "token_problem",
    "writer_problem",
]

MAX_BODY_BYTES: Final = 1_048_576
"""The largest request body accepted (bytes); larger ones get 413."""

BODY_SECONDS: Final = 30.0
"""How long a request body may take to arrive whole, from the end of its headers; a
slower one gets 408 and its connection is closed."""

STORE_SECONDS: Final = 10.0
"""How long a write retries a busy or unreachable store before it is answered 503."""

RETRY_AFTER_SECONDS: Final = 5.0
"""After the store failed, how long reads that have an answer without it (``GET
/system-prompt``) give that answer at once rather than ask the store again."""


def writer_problem(name: str) -> str | None:
    """Why ``name`` cannot name this server's writes in the releases' history, or None:
    it follows the rule of catalog names."""
    return None if is_catalog_name(name) else f"the writer {name!r} breaks the rule: {NAME_RULE}"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How ``catalog serve`` runs; see docs/serving.md.

    ``token``: when set, every write (``PUT /system-prompt``, ``PUT`` and
    ``POST .../rebuild`` of conversations) and every read of a conversation's
    prompt needs ``Authorization: Bearer TOKEN``; see :func:`token_problem`.
    ``writer``: the name the releases' history records for writes through this
    server; without one, a keyed hash of the token (:meth:`writer_id`).
    ``writer_key``: the secret key of that hash, new for each server (its worker
    processes share it).
    ``template_catalog``: ``NAME[@SPEC]`` whose user template ``/system-prompt``
    edits (default: the first catalog, by name, that takes one).
    ``store_timeout``: how long a busy or unreachable store is retried (seconds).
    ``body_timeout``: how long a request body may take to arrive (seconds).
    """

    paths: tuple[str, ...] = ()
    store_url: str = field(default_factory=default_store_url, repr=False)
    token: str | None = field(default=None, repr=False)
    template_catalog: str | None = None
    max_body: int = MAX_BODY_BYTES
    store_timeout: float = STORE_SECONDS
    body_timeout: float = BODY_SECONDS
    host: str = "127.0.0.1"
    writer: str | None = None
    writer_key: str = field(default_factory=lambda: secrets.token_hex(32), repr=False)

    def __post_init__(self) -> None:
        problem = None if self.token is None else token_problem(self.token)
        if problem is not None:
            raise UsageError(problem, hint=TOKEN_HINT)
        problem = None if self.writer is None else writer_problem(self.writer)
        if problem is not None:
            raise UsageError(problem, hint="name the server e.g. eu-west-1")

    def token_matches(self, given: str | None) -> bool:
        """Whether ``given`` is the token (compared in constant time)."""
        if self.token is None:
            return True
        if given is None or not given.isascii():  # the token is ASCII: nothing else matches
            return False
        return hmac.compare_digest(given.encode(), self.token.encode())

    def writer_id(self) -> str:
        """Who a write through this server is recorded as: ``name:`` and the writer's
        name when the operator gave one; else ``token:`` and 12 hexadecimal digits of
        the HMAC-SHA256 of the token under :attr:`writer_key`, which tell apart writers
        of one server and nothing of the token; ``local`` without a token."""
        if self.writer is not None:
            return f"name:{self.writer}"
        if self.token is None:
            return LOCAL
        keyed = hmac.new(self.writer_key.encode(), self.token.encode(), hashlib.sha256)
        return f"token:{keyed.hexdigest()[:12]}"


class ServerState:
    """The catalogs (compiled once, kept) and the prompt store, opened on first use and
    again after a failed attempt, so a server starts while its database is down; the
    releases constructions read (each at most a second old) and the metrics."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.library = Library(settings.paths)
        self.private = _private_roots(settings, self.library)
        self.release_cache = ReleaseCache()
        self.metrics = Metrics()
        self._store: ReleaseStore | None = None
        self._down: StoreUnavailableError | None = None
        self._retry_at = 0.0
        self._opening = threading.Lock()

    def store(self, *, wait: bool = True) -> ReleaseStore:
        """The prompt store (:class:`~catalog.errors.StoreUnavailableError` when it cannot
        be reached within the settings' timeout).

        With ``wait=False``, for a read that has an answer without the store, the
        error comes at once: the store is tried once at most, not at all while another
        request is reaching it, nor for :data:`RETRY_AFTER_SECONDS` after it failed.
        """
        down = self._down
        if not wait and down is not None and time.monotonic() < self._retry_at:
            raise down
        if self._store is not None:
            return self._store
        if not self._opening.acquire(blocking=wait):
            raise StoreUnavailableError(
                "the prompt store is being reached by another request", hint="retry later"
            )
        try:
            if self._store is None:
                if not wait:  # one attempt, then opened with the usual retries
                    open_store(self.settings.store_url, timeout=0).close()
                self._store = open_store(
                    self.settings.store_url, timeout=self.settings.store_timeout
                )
                self._down = None
            return self._store
        except StoreUnavailableError as exc:
            self.store_failed(exc)
            raise
        finally:
            self._opening.release()

    def store_failed(self, exc: StoreUnavailableError) -> None:
        """Note that the store failed (``exc``): reads not waiting for it skip it a while."""
        if exc is not self._down:  # one failure is noted where it happens and where answered
            self.metrics.store_errors.inc()
        self._retry_at = time.monotonic() + RETRY_AFTER_SECONDS
        self._down = exc

    def close(self) -> None:
        """Close the store, if it was opened."""
        with self._opening:
            if self._store is not None:
                self._store.close()
                self._store = None


def _private_roots(settings: ServerSettings, library: Library) -> tuple[str, ...]:
    """The server's own folders, which no error answer shows (longest first): the
    catalog folders, the store's, the program's and the user's."""
    roots = {str(source.root) for source in library.catalog_path.sources}
    store = settings.store_url
    if store.startswith("sqlite:///"):
        roots.add(str(Path(store.removeprefix("sqlite:///")).resolve().parent))
    roots.update(
        (
            sys.prefix,
            sys.base_prefix,
            str(Path(catalog.__file__).resolve().parents[1]),
            str(Path.home()),
            os.getcwd(),
            tempfile.gettempdir(),
        )
    )
    # A root of one or two characters ("/", "C:") would cut every path-like word.
    return tuple(sorted((root for root in roots if len(root) > 2), key=len, reverse=True))
