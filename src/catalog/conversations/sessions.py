"""Per-conversation prompts: resolved once, persisted, reused, rebuilt on compaction.

Some agents resolve their system prompt once when a conversation starts and
send the same bytes on every turn: the prompt cache stays warm, and a
template edited mid-conversation cannot change what an ongoing conversation
sees. :class:`Sessions` does that for any catalog::

    with catalog.Sessions(cat, "prompts.sqlite") as sessions:   # or SQLiteStore(), in memory
        first = sessions.construct("conv-1", context)          # resolved and persisted
        sessions.get("conv-1")                                 # the same prompt, every turn
        text = sessions.rebuild("conv-1", context, append="Summarise the conversation so far.")

* :meth:`Sessions.construct` assembles and persists the prompt of a new
  conversation; for a conversation that has one already it returns the stored
  prompt unchanged (the first writer wins, also across processes), so a changed
  template or context only affects conversations constructed after the change.
* :meth:`Sessions.rebuild` re-resolves (after a compaction, say), persists the
  new prompt *without* the ``append`` text, and returns it *with* it: the
  compaction instructions are for that one request.
* A context without a ``session`` gets ``session.id`` = the conversation id,
  so bodies can name the conversation and know a session is attached.
* A conversation belongs to the catalog name and agent it was constructed
  for: in a store that several catalogs or agents share, ``construct``,
  ``get`` and ``rebuild`` of another catalog or agent raise a
  :class:`~catalog.errors.SessionError` rather than hand out (or overwrite)
  another prompt. Another *version* of the same catalog is the same catalog:
  it gets the prompt as stored (a changed template affects only
  conversations constructed after the change), and ``rebuild`` re-resolves
  it with the new version.

Storage goes through the :class:`PromptStore` protocol. :class:`SQLiteStore`
keeps prompts in an SQLite file the caller names (WAL mode, busy timeout:
several processes can construct and read at once and nothing is lost) or in
memory; a shared store (a database server, a cache) only has to implement the
three methods of the protocol. Both :class:`SQLiteStore` and :class:`Sessions`
are context managers: leaving the ``with`` block closes the connection.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

from catalog.compiled import Catalog
from catalog.context import Context, SessionInfo, coerce_context
from catalog.errors import SessionError
from catalog.manifest.models import MAIN_AGENT

__all__ = ["PromptStore", "SQLiteStore", "Sessions", "StoredPrompt"]


@dataclass(frozen=True)
class StoredPrompt:
    """The persisted prompt of one conversation.

    ``revision`` is 0 when constructed and grows by one at every rebuild;
    ``created`` is the time (seconds since the epoch) it was last written.
    """

    conversation_id: str
    text: str
    catalog: str
    version: str
    agent: str
    fingerprint: str
    revision: int = 0
    created: float = 0.0


@runtime_checkable
class PromptStore(Protocol):
    """Where :class:`Sessions` keeps prompts; implement it to plug in a shared store."""

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The stored prompt of a conversation, or None."""

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        """Store ``prompt`` unless its conversation has one; return what is stored (atomic)."""

    def put(self, prompt: StoredPrompt) -> None:
        """Store ``prompt``, replacing the conversation's previous one."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS prompts (
    conversation_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    catalog TEXT NOT NULL,
    version TEXT NOT NULL,
    agent TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    revision INTEGER NOT NULL,
    created REAL NOT NULL
)
"""
_COLUMNS = "conversation_id, text, catalog, version, agent, fingerprint, revision, created"


class SQLiteStore:
    """A :class:`PromptStore` in an SQLite database file, or in memory (``":memory:"``).

    Each process opens its own store on the same file; WAL journaling and a
    busy timeout let readers and writers of several processes work at once.
    A store is safe to share between threads.
    """

    def __init__(self, path: str | Path = ":memory:", *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._closed = False
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            if self.path != ":memory:":
                db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
        except sqlite3.Error as exc:
            if db is not None:  # e.g. a file that is not a database: do not leak the handle
                db.close()
            raise SessionError(
                f"cannot open the prompt store: {exc}",
                file=self.path,
                hint="give a writable file path, or ':memory:'",
            ) from None
        self._db = db

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            if self._closed:
                raise SessionError(
                    "the prompt store is closed",
                    file=self.path,
                    hint="open a new store (or Sessions) to keep using the conversations",
                )
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise SessionError(f"prompt store failed: {exc}", file=self.path) from None

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The stored prompt of a conversation, or None."""
        rows = self._run(
            f"SELECT {_COLUMNS} FROM prompts WHERE conversation_id = ?", (conversation_id,)
        )
        return StoredPrompt(*rows[0]) if rows else None

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        """Insert ``prompt`` unless the conversation has one; return the stored prompt."""
        self._run(
            f"INSERT INTO prompts ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(conversation_id) DO NOTHING",
            _row(prompt),
        )
        stored = self.get(prompt.conversation_id)
        if stored is None:  # only if another process deleted it in between
            raise SessionError(f"conversation {prompt.conversation_id!r} vanished", file=self.path)
        return stored

    def put(self, prompt: StoredPrompt) -> None:
        """Insert or replace the prompt of ``prompt.conversation_id``."""
        self._run(
            f"INSERT OR REPLACE INTO prompts ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            _row(prompt),
        )

    def close(self) -> None:
        """Close the database connection; closing a closed store does nothing."""
        with self._lock:
            self._closed = True
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _row(prompt: StoredPrompt) -> tuple[Any, ...]:
    return (
        prompt.conversation_id,
        prompt.text,
        prompt.catalog,
        prompt.version,
        prompt.agent,
        prompt.fingerprint,
        prompt.revision,
        prompt.created,
    )


class Sessions:
    """Per-conversation prompts of one catalog (and agent); see the module docstring.

    Given a path (or nothing: in memory), it opens its own :class:`SQLiteStore`
    and :meth:`close` (or leaving a ``with`` block) closes it. A store passed
    in stays open: it belongs to the caller, and other ``Sessions`` may share it.
    """

    def __init__(
        self,
        catalog: Catalog,
        store: PromptStore | str | Path | None = None,
        *,
        agent: str = MAIN_AGENT,
    ) -> None:
        catalog.agent_info(agent)  # an unknown agent fails here, not at the first construct
        self.catalog = catalog
        self.agent = agent
        self._owned: SQLiteStore | None = None
        if store is None or isinstance(store, str | Path):
            store = self._owned = SQLiteStore(":memory:" if store is None else store)
        self.store: PromptStore = store

    def close(self) -> None:
        """Close the store these sessions opened (none passed in); closing again does nothing."""
        if self._owned is not None:
            self._owned.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resolve(
        self, conversation_id: str, context: Context | Mapping[str, Any] | None, revision: int
    ) -> StoredPrompt:
        if not conversation_id:
            raise SessionError("a conversation id must not be empty")
        ctx = coerce_context(context)
        if ctx.session is None:
            ctx = ctx.model_copy(update={"session": SessionInfo(id=conversation_id)})
        prompt = self.catalog.assemble(ctx, agent=self.agent)
        return StoredPrompt(
            conversation_id=conversation_id,
            text=prompt.text,
            catalog=prompt.catalog,
            version=prompt.version,
            agent=prompt.agent,
            fingerprint=prompt.fingerprint,
            revision=revision,
            created=time.time(),
        )

    def _owned_by_us(self, stored: StoredPrompt) -> StoredPrompt:
        """``stored``, if it was constructed for this catalog (any version) and agent."""
        if (stored.catalog, stored.agent) == (self.catalog.name, self.agent):
            return stored
        raise SessionError(
            f"conversation {stored.conversation_id!r} was constructed for catalog "
            f"{stored.catalog} {stored.version}, agent {stored.agent!r}, not for catalog "
            f"{self.catalog.name} {self.catalog.manifest.catalog.version}, agent {self.agent!r}",
            file=self.store.path if isinstance(self.store, SQLiteStore) else None,
            hint=f"use Sessions of catalog {stored.catalog} for agent {stored.agent!r} "
            "for this conversation, or give each catalog and agent's conversations an id "
            "of its own: everything that uses the store shares its conversation ids",
        )

    def construct(
        self, conversation_id: str, context: Context | Mapping[str, Any] | None = None
    ) -> StoredPrompt:
        """Resolve and persist the prompt of a new conversation; an existing one is kept
        (refused when it was constructed for another catalog or agent)."""
        stored = self.store.get(conversation_id)
        if stored is None:
            stored = self.store.add(self._resolve(conversation_id, context, 0))
        return self._owned_by_us(stored)

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The persisted prompt of a conversation, or None when it was never constructed;
        one constructed for another catalog or agent is refused (:class:`SessionError`)."""
        stored = self.store.get(conversation_id)
        return None if stored is None else self._owned_by_us(stored)

    def rebuild(
        self,
        conversation_id: str,
        context: Context | Mapping[str, Any] | None = None,
        *,
        append: str | None = None,
    ) -> str:
        """Re-resolve and persist the prompt; return it with ``append`` added for this request.

        The stored prompt never holds ``append`` (compaction instructions are
        for one request); it is joined with the catalog's separator.
        """
        previous = self.get(conversation_id)
        fresh = self._resolve(conversation_id, context, previous.revision + 1 if previous else 0)
        self.store.put(fresh)
        extra = (append or "").strip()
        if not extra:
            return fresh.text
        return f"{fresh.text}{self.catalog.separator}{extra}" if fresh.text else extra
