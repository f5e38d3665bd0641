"""A hand-written catalog history, ``story``, whose every log, blame and grep answer
is known (renames, a removal and re-addition, whitespace-, placeholder-, metadata- and
assembly-only changes, an id taken again), and the check that a history's log says of
each part what ``catalog diff`` says."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from catalog.changes import diff
from catalog.changes.history import CatalogHistory
from catalog.io.catalog_path import CatalogPath
from tests.conftest import write_catalog

__all__ = ["STORY", "assert_log_agrees_with_diff", "part", "write_history"]  # fmt: skip

_INTRO_1 = "Hello.\nBe brief.\nUse tools.\n"
_INTRO_2 = "Hello.\nBe  brief.\nUse tools.\n"  # whitespace only
_INTRO_3 = "Hello.\nUse tools.\n"  # "Be brief." removed
_INTRO_4 = "Hello.\nBe brief.\nUse tools.\nAsk first.\n"  # ... and added back
_RULES_1 = "Rule A.\nRule B.\nRule C.\n"
_RULES_4 = "Rule A.\nRule B, rewritten.\nRule C.\n"
_TIPS_1 = "Tip: ${TOOL} then ${OTHER}.\n"
_TIPS_2 = "Tip: ${ TOOL } then ${OTHER}.\n"  # placeholders only
_NOTES = "Note one.\nNote two.\n"
_FRESH = "A new part that took the old id.\nNothing like the rules.\n"


def part(pid: str, body: str, order: int, tokens: int, **keys: Any) -> dict[str, Any]:
    return {"id": pid, "body": body, "order": order, "tokens": tokens, **keys}


# Each version: its parts. Token counts are written by hand (the manifests' figures).
STORY: dict[str, list[dict[str, Any]]] = {
    "1.0.0": [
        part("intro", _INTRO_1, 10, 7),
        part("rules", _RULES_1, 20, 9),
        part("tips", _TIPS_1, 30, 8),
        part("notes", _NOTES, 40, 5, kind="reminder"),
    ],
    "1.1.0": [
        part("intro", _INTRO_2, 10, 7),
        part("rules", _RULES_1, 20, 9),
        part("tips", _TIPS_2, 30, 9),
    ],
    "1.2.0": [
        part("intro", _INTRO_3, 10, 5),
        part("guidelines", _RULES_1, 20, 9),
        part("tips", _TIPS_2, 30, 9),
    ],
    "1.3.0": [
        part("intro", _INTRO_4, 10, 10),
        part("guidelines", _RULES_1, 20, 9),
        part("tips", _TIPS_2, 30, 9),
        part("notes", _NOTES, 40, 5, kind="reminder"),
    ],
    "1.4.0": [
        part("intro", _INTRO_4, 10, 10, description="The opening words."),
        part("guidelines", _RULES_4, 20, 11),
        part("tips", _TIPS_2, 30, 9),
        part("notes", _NOTES, 40, 5, kind="reminder"),
    ],
    "1.5.0": [
        part("intro", _INTRO_4, 35, 10, description="The opening words."),
        part("guidelines", _RULES_4, 20, 11),
        part("tips", _TIPS_2, 30, 9),
        part("notes", _NOTES, 40, 5, kind="reminder"),
    ],
    "1.6.0": [
        part("intro", _INTRO_4, 35, 10, description="The opening words."),
        part("rules-v2", _RULES_4, 20, 11),
        part("rules", _FRESH, 25, 12),
        part("tips", _TIPS_2, 30, 9),
    ],
}


def write_history(root: Path, story: Mapping[str, Sequence[Mapping[str, Any]]], name: str) -> None:
    for version, parts in story.items():
        write_catalog(root, name, version, parts)


def assert_log_agrees_with_diff(history: CatalogHistory, catalog_path: CatalogPath) -> int:
    """Between each two versions, the log of every kind says of each part what
    ``catalog diff`` says: its change (class), new tokens and delta; returns how many
    changes were compared."""
    compared = 0
    refs = catalog_path.versions(history.name)
    for old, new in itertools.pairwise(refs):
        result = diff(old.load(), new.load())
        expected = {
            (p.id, p.status if p.status in ("added", "removed", "renamed") else p.change,
             p.old_id, p.new_tokens, p.token_delta)
            for p in result.changes
        }  # fmt: skip
        logged = {
            (e.id, e.change, e.old_id, e.tokens, e.delta)
            for kind in ("system", "tool", "agent", "reminder")
            for e in history.log(kind=kind, versions=f"=={new.version}").entries
        }
        assert logged == expected, new.version
        compared += len(expected)
    return compared
