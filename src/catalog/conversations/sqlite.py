"""The embedded prompt store: one SQLite file (or memory) shared by processes of one machine.

Every write runs in a ``BEGIN IMMEDIATE`` transaction, which takes the
database's write lock before reading: the revision a rebuild reads is the one
it replaces, so four processes rebuilding one conversation 125 times each end
at revision 500 exactly. A transaction that finds the database locked is
retried with a growing pause, for at most ``timeout`` seconds in all. Reads are
single statements, which WAL journaling keeps consistent without a lock; so is
a release's history, read in one statement.

Prompts hold what clients gathered (their files, say): a database file this
store creates is readable by its owner alone (0600), and SQLite gives its
``-wal``, ``-shm`` and ``-journal`` files the same mode.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import astuple, replace
from pathlib import Path
from typing import Self, TypeVar

from catalog.conversations._release_sql import ReleaseTables
from catalog.conversations.base import (
    COLUMNS,
    LOCAL,
    RETRY_SECONDS,
    Release,
    ReleaseTarget,
    StoredPrompt,
    check_label,
    check_prompt,
    check_release,
    check_texts,
    check_who,
    schema,
    with_retries,
)
from catalog.errors import SessionError

__all__ = ["SQLiteStore"]

_T = TypeVar("_T")

_SCHEMA = schema("", "REAL")
_SELECT = f"SELECT {COLUMNS} FROM prompts WHERE conversation_id = ?"
_UPSERT = f"INSERT OR REPLACE INTO prompts ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
# The write lock of BEGIN IMMEDIATE is held from the first read: no row lock is needed.
_RELEASES = ReleaseTables("", "?", "")
_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
# How long one attempt waits on a lock inside SQLite before the retry loop takes over.
_ATTEMPT_TIMEOUT = 1.0


def _busy(exc: Exception) -> bool:
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    return (code & 0xFF) in _BUSY_CODES if code is not None else "locked" in str(exc)


def _create_private(path: str) -> None:
    """Create the empty database file ``path`` readable by its owner alone, unless it
    exists (SQLite takes an empty file for an empty database)."""
    if path in ("", ":memory:"):
        return
    with contextlib.suppress(FileExistsError):  # kept as it is: its owner chose its mode
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


class SQLiteStore:
    """A prompt store in an SQLite database file, or in memory (``":memory:"``).

    Each process opens its own store on the same file; WAL journaling, write
    transactions that lock before they read and bounded retries on a busy
    database let several processes construct, rebuild and read at once with
    nothing lost. A store is safe to share between threads.
    """

    def __init__(self, path: str | Path = ":memory:", *, timeout: float = RETRY_SECONDS) -> None:
        self.path = str(path)
        self.location = self.path
        self.timeout = timeout
        self._lock = threading.Lock()
        self._closed = False
        try:
            _create_private(self.path)
            db = sqlite3.connect(
                self.path,
                timeout=_ATTEMPT_TIMEOUT,
                isolation_level=None,
                check_same_thread=False,
            )
        except (sqlite3.Error, OSError, ValueError) as exc:  # ValueError: a NUL character
            raise self._open_error(exc) from None
        self._db = db
        try:
            self._retry(self._create)
        except (sqlite3.Error, SessionError) as exc:
            db.close()  # e.g. a file that is not a database: do not leak the handle
            raise self._open_error(exc) from None

    def _open_error(self, exc: Exception) -> SessionError:
        return SessionError(
            f"cannot open the prompt store: {exc}",
            file=self.path,
            hint="give a writable file path, or ':memory:'",
        )

    def _create(self) -> None:
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")

        def create(db: sqlite3.Connection) -> None:
            for statement in _SCHEMA:
                db.execute(statement)
            columns = {row[1] for row in db.execute("PRAGMA table_info(prompts)")}
            if "release_label" not in columns:  # made before releases existed
                db.execute("ALTER TABLE prompts ADD COLUMN release_label TEXT")

        self._write(create)

    def _retry(self, operation: Callable[[], _T]) -> _T:
        return with_retries(
            operation, retryable=_busy, location=self.location, seconds=self.timeout
        )

    def _write(self, body: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``body`` in one ``BEGIN IMMEDIATE`` transaction (no retry: callers retry)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            result = body(db)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return result

    def _run(self, body: Callable[[sqlite3.Connection], _T], *, write: bool) -> _T:
        def attempt() -> _T:
            with self._lock:
                if self._closed:
                    raise SessionError(
                        "the prompt store is closed",
                        file=self.path,
                        hint="open a new store (or Sessions) to keep using the conversations",
                    )
                return self._write(body) if write else body(self._db)

        try:
            return self._retry(attempt)
        except sqlite3.Error as exc:
            raise SessionError(f"prompt store failed: {exc}", file=self.path) from None

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The stored prompt of a conversation, or None."""
        check_texts(conversation_id=conversation_id)
        rows = self._run(lambda db: db.execute(_SELECT, (conversation_id,)).fetchall(), write=False)
        return StoredPrompt(*rows[0]) if rows else None

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        """Insert ``prompt`` unless the conversation has one; return the stored prompt."""
        check_prompt(prompt)

        def body(db: sqlite3.Connection) -> StoredPrompt:
            row = db.execute(_SELECT, (prompt.conversation_id,)).fetchone()
            if row is not None:
                return StoredPrompt(*row)
            db.execute(_UPSERT, astuple(prompt))
            return prompt

        return self._run(body, write=True)

    def replace(self, prompt: StoredPrompt) -> StoredPrompt:
        """Store ``prompt`` as the next revision (see ``PromptStore.replace``)."""
        check_prompt(prompt)

        def body(db: sqlite3.Connection) -> StoredPrompt:
            row = db.execute(_SELECT, (prompt.conversation_id,)).fetchone()
            if row is None:
                stored = replace(prompt, revision=0)
            else:
                previous = StoredPrompt(*row)
                if (previous.catalog, previous.agent) != (prompt.catalog, prompt.agent):
                    return previous
                stored = replace(prompt, revision=previous.revision + 1)
            db.execute(_UPSERT, astuple(stored))
            return stored

        return self._run(body, write=True)

    def get_template(self, catalog: str) -> str | None:
        """The user template stored for ``catalog``, or None."""
        check_texts(catalog=catalog)
        rows = self._run(
            lambda db: db.execute(
                "SELECT text FROM templates WHERE catalog = ?", (catalog,)
            ).fetchall(),
            write=False,
        )
        return str(rows[0][0]) if rows else None

    def set_template(self, catalog: str, text: str) -> None:
        """Store ``text`` as the user template of ``catalog``."""
        check_texts(catalog=catalog, template=text)
        self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO templates (catalog, text, updated) VALUES (?, ?, ?)",
                (catalog, text, time.time()),
            ),
            write=True,
        )

    def get_release(self, label: str) -> Release | None:
        """Release ``label`` as it stands, or None."""
        check_texts(label=label)
        return self._run(lambda db: _RELEASES.get(db, label), write=False)

    def list_releases(self) -> list[Release]:
        """Every release as it stands, by label."""
        return self._run(_RELEASES.all, write=False)

    def release_history(self, label: str) -> list[Release]:
        """Every change of release ``label``, oldest first."""
        check_texts(label=label)
        return self._run(lambda db: _RELEASES.history(db, label), write=False)

    def set_release(self, label: str, target: ReleaseTarget, who: str = LOCAL) -> Release:
        """Point release ``label`` at ``target`` (see ``PromptStore.set_release``)."""
        target = check_release(label, target, who)
        return self._run(lambda db: _RELEASES.set(db, label, target, who, time.time()), write=True)

    def rollback_release(
        self, label: str, who: str = LOCAL, *, expected: int | None = None
    ) -> Release:
        """Put release ``label`` back (see ``PromptStore.rollback_release``)."""
        check_label(label)
        check_who(who)
        return self._run(
            lambda db: _RELEASES.rollback(db, label, who, time.time(), expected), write=True
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
