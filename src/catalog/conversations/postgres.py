"""The shared prompt store for a fleet: PostgreSQL through psycopg 3.

Several servers behind a load balancer point at one database. Construction
is ``INSERT ... ON CONFLICT DO NOTHING`` (the first writer wins), a rebuild is
one ``INSERT ... ON CONFLICT DO UPDATE SET revision = revision + 1`` (the row
lock makes revisions exact), a release's change reads its row ``FOR UPDATE``
before appending to its history, each in its own transaction. Serialization
failures, deadlocks and lost connections are retried with a growing pause
for at most ``timeout`` seconds, then reported as
:class:`~catalog.errors.StoreUnavailableError`.

psycopg is an optional dependency (``pip install 'agent-prompt-catalog[postgres]'``,
included in ``[serve]``); this module is imported only for a ``postgresql://`` store.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import astuple, replace
from typing import Any, Self, TypeVar

import psycopg

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
from catalog.conversations.urls import public_url, scrub, url_secrets
from catalog.errors import SessionError

__all__ = ["PostgresStore"]

_T = TypeVar("_T")

_SCHEMA = schema("catalog_", "DOUBLE PRECISION")
# A prompts table made before releases existed gains its column. It is looked for first:
# ALTER TABLE would lock the table against every reader even with nothing to add.
_HAS_RELEASE = (
    "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
    "AND table_name = 'catalog_prompts' AND column_name = 'release_label'"
)
_ADD_RELEASE = "ALTER TABLE catalog_prompts ADD COLUMN IF NOT EXISTS release_label TEXT"
# Any fixed number: servers starting at once create the tables one after the other.
_SCHEMA_LOCK = 0x70726F6D
_SELECT = f"SELECT {COLUMNS} FROM catalog_prompts WHERE conversation_id = %s"
_VALUES = ", ".join(["%s"] * len(COLUMNS.split(",")))
_ADD = (
    f"INSERT INTO catalog_prompts ({COLUMNS}) VALUES ({_VALUES}) "
    "ON CONFLICT (conversation_id) DO NOTHING"
)
_REPLACE = (
    f"INSERT INTO catalog_prompts ({COLUMNS}) VALUES ({_VALUES}) "
    "ON CONFLICT (conversation_id) DO UPDATE SET text = EXCLUDED.text, "
    "version = EXCLUDED.version, fingerprint = EXCLUDED.fingerprint, "
    "created = EXCLUDED.created, release_label = EXCLUDED.release_label, "
    "revision = catalog_prompts.revision + 1 "
    "WHERE catalog_prompts.catalog = EXCLUDED.catalog "
    "AND catalog_prompts.agent = EXCLUDED.agent "
    f"RETURNING {COLUMNS}"
)
# Serialization failure, deadlock: the transaction did nothing and may run again.
_RETRY_STATES = frozenset({"40001", "40P01"})
_IDLE_CONNECTIONS = 8
_RELEASES = ReleaseTables("catalog_", "%s", " FOR UPDATE")


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, psycopg.OperationalError):  # connection refused or lost, shutdown
        return True
    return isinstance(exc, psycopg.Error) and exc.sqlstate in _RETRY_STATES


class PostgresStore:
    """A prompt store in a PostgreSQL database (tables ``catalog_prompts``,
    ``catalog_templates``, ``catalog_releases`` and ``catalog_release_history``, created
    when missing).

    Safe to share between threads: each operation borrows a connection from a
    small pool kept by the store.
    """

    def __init__(self, url: str, *, timeout: float = RETRY_SECONDS) -> None:
        self.url = url
        self.location = public_url(url)
        self._secrets = url_secrets(url)
        self.timeout = timeout
        # One attempt to reach an unanswering host waits this long (libpq's least is 2 s),
        # so a store told to give up quickly does.
        self._connect_timeout = int(min(10, max(2, timeout)))
        self._lock = threading.Lock()
        self._idle: list[psycopg.Connection[Any]] = []
        self._closed = False
        self._run(self._create)

    def _create(self, db: psycopg.Connection[Any]) -> None:
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        for statement in _SCHEMA:
            db.execute(statement)
        if db.execute(_HAS_RELEASE).fetchone() is None:
            db.execute(_ADD_RELEASE)

    def _connection(self) -> psycopg.Connection[Any]:
        with self._lock:
            if self._closed:
                raise SessionError(
                    "the prompt store is closed",
                    file=self.location,
                    hint="open a new store (or Sessions) to keep using the conversations",
                )
            if self._idle:
                return self._idle.pop()
        return psycopg.connect(self.url, autocommit=True, connect_timeout=self._connect_timeout)

    def _release(self, db: psycopg.Connection[Any]) -> None:
        with self._lock:
            if not (self._closed or db.closed or db.broken) and len(self._idle) < _IDLE_CONNECTIONS:
                self._idle.append(db)
                return
        db.close()

    def _run(self, body: Callable[[psycopg.Connection[Any]], _T]) -> _T:
        """Run ``body`` in one transaction on a pooled connection, retrying as described."""

        def attempt() -> _T:
            db = self._connection()
            try:
                with db.transaction():
                    result = body(db)
            except BaseException:
                if db.broken or db.closed:
                    db.close()
                else:
                    self._release(db)
                raise
            self._release(db)
            return result

        try:
            return with_retries(
                attempt,
                retryable=_retryable,
                location=self.location,
                seconds=self.timeout,
                secrets=self._secrets,
            )
        except psycopg.Error as exc:
            reason = scrub(str(exc), self._secrets)
            raise SessionError(f"prompt store failed: {reason}", file=self.location) from None

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The stored prompt of a conversation, or None."""
        check_texts(conversation_id=conversation_id)
        row = self._run(lambda db: db.execute(_SELECT, (conversation_id,)).fetchone())
        return None if row is None else StoredPrompt(*row)

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        """Insert ``prompt`` unless the conversation has one; return the stored prompt."""
        check_prompt(prompt)

        def body(db: psycopg.Connection[Any]) -> StoredPrompt:
            db.execute(_ADD, astuple(prompt))
            row = db.execute(_SELECT, (prompt.conversation_id,)).fetchone()
            if row is None:  # only if someone deleted it in between
                raise SessionError(
                    f"conversation {prompt.conversation_id!r} vanished", file=self.location
                )
            return StoredPrompt(*row)

        return self._run(body)

    def replace(self, prompt: StoredPrompt) -> StoredPrompt:
        """Store ``prompt`` as the next revision (see ``PromptStore.replace``)."""
        check_prompt(prompt)

        def body(db: psycopg.Connection[Any]) -> StoredPrompt:
            row = db.execute(_REPLACE, astuple(replace(prompt, revision=0))).fetchone()
            if row is None:  # constructed for another catalog or agent: left as it is
                row = db.execute(_SELECT, (prompt.conversation_id,)).fetchone()
            if row is None:
                raise SessionError(
                    f"conversation {prompt.conversation_id!r} vanished", file=self.location
                )
            return StoredPrompt(*row)

        return self._run(body)

    def get_template(self, catalog: str) -> str | None:
        """The user template stored for ``catalog``, or None."""
        check_texts(catalog=catalog)
        row = self._run(
            lambda db: db.execute(
                "SELECT text FROM catalog_templates WHERE catalog = %s", (catalog,)
            ).fetchone()
        )
        return None if row is None else str(row[0])

    def set_template(self, catalog: str, text: str) -> None:
        """Store ``text`` as the user template of ``catalog``."""
        check_texts(catalog=catalog, template=text)
        self._run(
            lambda db: db.execute(
                "INSERT INTO catalog_templates (catalog, text, updated) "
                "VALUES (%s, %s, extract(epoch from clock_timestamp())) "
                "ON CONFLICT (catalog) DO UPDATE SET text = EXCLUDED.text, "
                "updated = EXCLUDED.updated",
                (catalog, text),
            )
        )

    def get_release(self, label: str) -> Release | None:
        """Release ``label`` as it stands, or None."""
        check_texts(label=label)
        return self._run(lambda db: _RELEASES.get(db, label))

    def list_releases(self) -> list[Release]:
        """Every release as it stands, by label."""
        return self._run(_RELEASES.all)

    def release_history(self, label: str) -> list[Release]:
        """Every change of release ``label``, oldest first."""
        check_texts(label=label)
        return self._run(lambda db: _RELEASES.history(db, label))

    def set_release(self, label: str, target: ReleaseTarget, who: str = LOCAL) -> Release:
        """Point release ``label`` at ``target`` (see ``PromptStore.set_release``)."""
        target = check_release(label, target, who)
        return self._run(lambda db: _RELEASES.set(db, label, target, who, time.time()))

    def rollback_release(
        self, label: str, who: str = LOCAL, *, expected: int | None = None
    ) -> Release:
        """Put release ``label`` back (see ``PromptStore.rollback_release``)."""
        check_label(label)
        check_who(who)
        return self._run(lambda db: _RELEASES.rollback(db, label, who, time.time(), expected))

    def close(self) -> None:
        """Close the pooled connections; closing twice does nothing."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for db in idle:
            db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
