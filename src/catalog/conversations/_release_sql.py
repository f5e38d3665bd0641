"""The release tables in SQL, for both stores: one algorithm, two dialects.

A store runs each operation as one transaction of its own (SQLite's ``BEGIN
IMMEDIATE`` holds the database's write lock; PostgreSQL's ``SELECT ... FOR
UPDATE`` locks the release's row), so two concurrent changes of a release
follow each other: each reads the number the other wrote and appends the
next, and the history's primary key (label, number) refuses any duplicate.
"""

from __future__ import annotations

from typing import Any, Protocol

from catalog.conversations.base import RELEASE_COLUMNS, Release, ReleaseTarget
from catalog.errors import NotFoundError, SessionError

__all__ = ["Database", "ReleaseTables"]


class Database(Protocol):
    """What both drivers' connections offer: ``execute`` returning a cursor."""

    def execute(self, query: Any, params: Any = ..., /) -> Any: ...


class ReleaseTables:
    """The statements of the ``releases`` and ``release_history`` tables (named after
    ``prefix``) with ``mark`` the driver's placeholder and ``lock`` what locks a row read
    for a change (empty where the transaction holds the database)."""

    def __init__(self, prefix: str, mark: str, lock: str) -> None:
        marks = ", ".join([mark] * len(RELEASE_COLUMNS.split(",")))
        current = f"{prefix}releases"
        self._select = f"SELECT {RELEASE_COLUMNS} FROM {current} WHERE label = {mark}"
        self._lock = f"{self._select}{lock}"
        self._all = f"SELECT {RELEASE_COLUMNS} FROM {current} ORDER BY label"
        self._create = (
            f"INSERT INTO {current} ({RELEASE_COLUMNS}) VALUES ({marks}) "
            "ON CONFLICT (label) DO NOTHING"
        )
        assignments = ", ".join(f"{c.strip()} = {mark}" for c in RELEASE_COLUMNS.split(",")[1:])
        self._update = f"UPDATE {current} SET {assignments} WHERE label = {mark}"
        history = f"{prefix}release_history"
        self._append = f"INSERT INTO {history} ({RELEASE_COLUMNS}) VALUES ({marks})"
        self._history = (
            f"SELECT {RELEASE_COLUMNS} FROM {history} WHERE label = {mark} ORDER BY number"
        )
        self._change = (
            f"SELECT {RELEASE_COLUMNS} FROM {history} WHERE label = {mark} AND number = {mark}"
        )

    def get(self, db: Database, label: str) -> Release | None:
        """Release ``label`` as it stands, or None."""
        row = db.execute(self._select, (label,)).fetchone()
        return None if row is None else Release.from_row(row)

    def all(self, db: Database) -> list[Release]:
        """Every release as it stands, by label."""
        return [Release.from_row(row) for row in db.execute(self._all).fetchall()]

    def history(self, db: Database, label: str) -> list[Release]:
        """Every change of ``label``, oldest first."""
        return [Release.from_row(row) for row in db.execute(self._history, (label,)).fetchall()]

    def _locked(self, db: Database, label: str) -> Release | None:
        row = db.execute(self._lock, (label,)).fetchone()
        return None if row is None else Release.from_row(row)

    def _write(self, db: Database, release: Release) -> Release:
        """Store ``release`` as the label's latest change, and append it to the history."""
        if release.number == 1:
            if db.execute(self._create, release.row()).rowcount != 1:
                # Created by another writer since this one looked: that writer's
                # transaction has ended, and the history takes this change after it.
                raise _Created
        else:
            db.execute(self._update, (*release.row()[1:], release.label))
        db.execute(self._append, release.row())
        return release

    def set(self, db: Database, label: str, target: ReleaseTarget, who: str, now: float) -> Release:
        """Point ``label`` at ``target`` (already checked) as its next change."""
        try:
            return self._set(db, label, target, who, now)
        except _Created:
            return self._set(db, label, target, who, now)

    def _set(
        self, db: Database, label: str, target: ReleaseTarget, who: str, now: float
    ) -> Release:
        current = self._locked(db, label)
        if current is not None and current.target.catalog != target.catalog:
            raise SessionError(
                f"release {label} is a release of catalog {current.target.catalog}, not "
                f"of {target.catalog}",
                key="catalog",
                hint=f"a release keeps its catalog (its conversations belong to it): name "
                f"another release for catalog {target.catalog}",
            )
        number = 1 if current is None else current.number + 1
        return self._write(db, Release(label, target, number, now, who, "set"))

    def rollback(
        self, db: Database, label: str, who: str, now: float, expected: int | None = None
    ) -> Release:
        """Put ``label`` back as its change before the latest left it, as a new change;
        with ``expected``, only while change ``expected`` is still the latest (the one
        whose predecessor the caller checked), else :class:`SessionError`. The check
        and the write are one transaction, the row locked: no change comes between."""
        current = self._locked(db, label)
        if current is None:
            raise NotFoundError(
                f"there is no release {label}", hint=f"set it first: catalog release set {label}"
            )
        if expected is not None and current.number != expected:
            raise SessionError(
                f"release {label} changed while it was being rolled back: its latest change "
                f"is now #{current.number} ({current.action} by {current.who}), not "
                f"#{expected}; nothing was rolled back",
                hint="read the release again, then roll back if it is still wanted",
            )
        if current.number == 1:
            raise SessionError(
                f"release {label} has changed once only: there is nothing to roll back to",
                hint="set it to the version it should name",
            )
        row = db.execute(self._change, (label, current.number - 1)).fetchone()
        if row is None:  # the history is appended with every change: only if edited by hand
            raise SessionError(f"the history of release {label} lacks change {current.number - 1}")
        before = Release.from_row(row).target
        return self._write(db, Release(label, before, current.number + 1, now, who, "rollback"))


class _Created(Exception):
    """The release was created by another writer between reading and inserting."""
