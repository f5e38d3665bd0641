"""A part's history across every version of a catalog: log, blame and grep.

``catalog diff`` compares two versions; these questions are about one part
across all of them: when an instruction appeared, which release rewrote it,
which release first said something. :func:`open_history` opens a catalog's
history (imported or written by hand, any number of versions) and its
:class:`CatalogHistory` answers:

* :meth:`~CatalogHistory.log`: every version where a part (following its
  renames, as ``catalog diff`` pairs them) or every part of a kind was added,
  changed, renamed or removed, with ``diff``'s change class and the tokens;
* :meth:`~CatalogHistory.blame`: each line of a part's body with the earliest
  version from which it is present in every version up to the one asked;
* :meth:`~CatalogHistory.grep`: which parts hold a text (plain, or with ``*``
  wildcards matched in linear time), first and last version, and whether the
  newest still does.

Results are frozen dataclasses with a ``to_dict()`` JSON form
(:mod:`.results`). Answers come from an index of each part's record per
version read from the manifests alone (:mod:`.index`), cached by their hashes
(:mod:`.cache`); bodies are read only where an answer needs them.
"""

from __future__ import annotations

from catalog.changes.history.catalog_history import KINDS, CatalogHistory, open_history
from catalog.changes.history.results import (
    Blame,
    BlameLine,
    GrepMatch,
    GrepResult,
    IdHolder,
    LogChange,
    LogEntry,
    PartLog,
)
from catalog.changes.history.textquery import MAX_QUERY_LENGTH, TextQuery

__all__ = [
    "KINDS",
    "MAX_QUERY_LENGTH",
    "Blame",
    "BlameLine",
    "CatalogHistory",
    "GrepMatch",
    "GrepResult",
    "IdHolder",
    "LogChange",
    "LogEntry",
    "PartLog",
    "TextQuery",
    "open_history",
]
