"""What a part's history answers: log entries, blamed lines, grep matches.

Each result is a frozen dataclass whose ``to_dict()`` is its JSON form, the
one ``catalog log|blame|grep --format json`` prints and a web page can send
as it is; the keys are documented in docs/history.md and stay stable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from catalog.changes.classify import TextClass

__all__ = [
    "Blame",
    "BlameLine",
    "GrepMatch",
    "GrepResult",
    "IdHolder",
    "LogChange",
    "LogEntry",
    "PartLog",
]

LogChange = Literal[
    "added", "removed", "renamed", "prose", "whitespace", "placeholders", "assembly", "metadata"
]
"""What happened to a part in a version: it was ``added`` (first, or again after a
removal), ``removed``, ``renamed`` (with ``old_id``), or changed as ``catalog diff``
classifies it (:data:`~catalog.changes.classify.ChangeClass`)."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One version where a part was added, changed, renamed or removed.

    ``tokens`` is the part's count in this version (0 once removed), from its
    manifest, and ``delta`` the change from the version before (where an
    absent part counts 0). ``text`` is how the body changed
    (:data:`~catalog.changes.classify.TextClass`, None when it did not): the
    same as ``change`` for a text change, the body's change for a rename.
    ``similarity`` is a rename's (1.0: the same body); ``sha256`` the body's in
    this version (None once removed). ``reused`` is set on an ``added`` or
    ``renamed`` entry whose id another part had before: the part is not that one.
    """

    version: str
    change: LogChange
    id: str
    kind: str
    tokens: int
    delta: int
    old_id: str | None = None
    text: TextClass | None = None
    similarity: float | None = None
    sha256: str | None = None
    reused: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of the entry."""
        return {
            "reused": self.reused,
            "version": self.version,
            "change": self.change,
            "id": self.id,
            "old_id": self.old_id,
            "kind": self.kind,
            "tokens": self.tokens,
            "delta": self.delta,
            "text": self.text,
            "similarity": self.similarity,
            "sha256": self.sha256,
        }


@dataclass(frozen=True, slots=True)
class IdHolder:
    """One of the parts that held an id, one after another: from version ``first`` to
    ``last`` (absent in some between, maybe), known in the newest version holding it
    (``newest``) as ``now``; ``shown`` when it is the part the answer is about."""

    first: str
    last: str
    newest: str
    now: str
    shown: bool

    def to_dict(self) -> dict[str, Any]:
        """``{"first", "last", "newest", "now", "shown"}``."""
        return {
            "first": self.first,
            "last": self.last,
            "newest": self.newest,
            "now": self.now,
            "shown": self.shown,
        }


@dataclass(frozen=True, slots=True)
class PartLog:
    """The log of one part (``part``, following its renames) or of every part of
    ``kind``, oldest first. ``holders`` lists the parts that had the id ``part``, oldest
    first, when more than one did (an id given to another text once its part was
    removed or renamed); the log follows the one marked ``shown``."""

    catalog: str
    part: str | None
    kind: str | None
    entries: tuple[LogEntry, ...]
    holders: tuple[IdHolder, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``{"catalog", "part", "kind", "entries": [...], "holders": [...]}``."""
        return {
            "catalog": self.catalog,
            "part": self.part,
            "kind": self.kind,
            "entries": [entry.to_dict() for entry in self.entries],
            "holders": [holder.to_dict() for holder in self.holders],
        }


@dataclass(frozen=True, slots=True)
class BlameLine:
    """Line ``line`` (1-based) of a body, and the version that last introduced it."""

    line: int
    text: str
    version: str

    def to_dict(self) -> dict[str, Any]:
        """``{"line", "text", "version"}``."""
        return {"line": self.line, "text": self.text, "version": self.version}


@dataclass(frozen=True, slots=True)
class Blame:
    """Each line of part ``part``'s body in ``version`` with the version it dates from;
    ``holders`` as in :class:`PartLog`: the parts that had the id, when more than one."""

    catalog: str
    version: str
    part: str
    lines: tuple[BlameLine, ...]
    holders: tuple[IdHolder, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``{"catalog", "version", "part", "lines": [...], "holders": [...]}``."""
        return {
            "catalog": self.catalog,
            "version": self.version,
            "part": self.part,
            "lines": [line.to_dict() for line in self.lines],
            "holders": [holder.to_dict() for holder in self.holders],
        }


@dataclass(frozen=True, slots=True)
class GrepMatch:
    """A part whose body holds the text in ``versions`` (oldest first).

    ``part`` is its id in the last of them, ``ids`` every id it had in them
    (more than one when it was renamed), ``kind`` its kind in the last one.
    """

    part: str
    kind: str
    first: str
    last: str
    in_newest: bool
    versions: tuple[str, ...]
    ids: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"part", "kind", "first", "last", "in_newest", "versions", "ids"}``."""
        return {
            "part": self.part,
            "kind": self.kind,
            "first": self.first,
            "last": self.last,
            "in_newest": self.in_newest,
            "versions": list(self.versions),
            "ids": list(self.ids),
        }


@dataclass(frozen=True, slots=True)
class GrepResult:
    """The parts holding ``text`` in the versions searched, by the version that first
    held it; ``newest`` is the newest version searched."""

    catalog: str
    text: str
    pattern: bool
    ignore_case: bool
    newest: str
    searched: int
    matches: tuple[GrepMatch, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"catalog", "text", "pattern", "ignore_case", "newest", "searched",
        "matches": [...]}``."""
        return {
            "catalog": self.catalog,
            "text": self.text,
            "pattern": self.pattern,
            "ignore_case": self.ignore_case,
            "newest": self.newest,
            "searched": self.searched,
            "matches": [match.to_dict() for match in self.matches],
        }
