"""A small catalog history written by hand for the part pages' tests, and what its
log, chart and blame must show (worked out by hand, not by the code under test);
and the published releases among the fixtures imported as a user imports them.

``hist`` has five versions. ``alpha`` is added in 1.0.0, rewritten in 1.1.0,
renamed to ``beta`` in 1.2.0 (the same text), changed in whitespace only in
1.3.0 and removed in 1.4.0. ``gamma`` never changes and carries a right-to-left
override; ``note`` holds ``a.b`` (a dot that a regular expression would read as
any character); ``delta``, a tool, comes in 1.2.0.
"""

from __future__ import annotations

from pathlib import Path

from catalog.cli import main
from tests.conftest import write_catalog

__all__ = ["BLAME", "CHART", "LOG", "VERSIONS", "import_published", "write_part_history"]

VERSIONS = ("1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0")

_FIRST = "Line one.\nLine two.\n"
_REWRITTEN = "Line one.\nLine two, rewritten.\nLine three.\n"
_SPACED = "Line one.\nLine two, rewritten.\nLine  three.\n"

LOG = [  # version, change, tokens, delta: newest first, as the page lists them
    ("1.4.0", "removed", 0, -21),
    ("1.3.0", "whitespace", 21, +1),
    ("1.2.0", "renamed", 20, +0),
    ("1.1.0", "prose", 20, +10),
    ("1.0.0", "added", 10, +10),
]
CHART = [f"{version}: {count} tokens (cl100k_base)" for version, count in  # the counter named
         (("1.0.0", 10), ("1.1.0", 20), ("1.2.0", 20), ("1.3.0", 21), ("1.4.0", 0))]  # fmt: skip
BLAME = [("1.0.0", "Line one."), ("1.1.0", "Line two, rewritten."), ("1.3.0", "Line  three.")]


def write_part_history(root: Path) -> Path:
    """Write the five versions of ``hist`` under ``root``; returns ``root``."""
    gamma = {"id": "gamma", "body": "Gamma \u202etext.", "tokens": 3, "order": 20}
    note = {"id": "note", "body": "See a.b for more.", "tokens": 4, "order": 30}
    delta = {"id": "delta", "kind": "tool", "name": "Delta", "body": "Delta says hello.",
             "tokens": 5, "order": 40}  # fmt: skip
    alpha = {"order": 10}
    steps = [
        [{**alpha, "id": "alpha", "body": _FIRST, "tokens": 10}, gamma, note],
        [{**alpha, "id": "alpha", "body": _REWRITTEN, "tokens": 20}, gamma, note],
        [{**alpha, "id": "beta", "body": _REWRITTEN, "tokens": 20}, gamma, note, delta],
        [{**alpha, "id": "beta", "body": _SPACED, "tokens": 21}, gamma, note, delta],
        [gamma, note, delta],
    ]
    for version, parts in zip(VERSIONS, steps, strict=True):
        write_catalog(root, "hist", version, parts=parts)
    return root


def import_published(releases: Path, out: Path) -> Path:
    """Import each release folder of ``releases`` as ``claude-code`` into ``out`` with
    `catalog import piebald`; returns ``out``."""
    for folder in sorted(releases.iterdir()):
        if folder.is_dir():
            args = ["import", "piebald", str(folder), "--name", "claude-code", "--out", str(out)]
            assert main(args) == 0, folder
    return out
