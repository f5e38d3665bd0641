"""``.gitignore`` rules, matched without regular expressions.

Patterns come from the gathered folder, so they are matched by a small
wildcard matcher whose cost is bounded by the lengths of the pattern and the
name (no backtracking regex). Supported: ``*``, ``?``, ``[...]`` classes
(``!``/``^`` negation, ranges), ``\\`` escapes, ``**`` across folders, a
leading ``/`` or an inner ``/`` anchoring to the ``.gitignore``'s folder, a
trailing ``/`` for folders only, ``!`` to re-include. Read: ``.git/info/exclude``
and the ``.gitignore`` of every folder walked; the user's global excludes
file is not read (it is configuration).

One match costs at most the pattern's length times the name's, but a folder
may hold thousands of patterns and thousands of names: every step of every
match is taken from one :class:`~catalog.text.globs.MatchBudget` shared by a
whole status, so hostile patterns (``*aaaa...b`` against long names of
``a``) stop it with :class:`~catalog.text.globs.GlobBudgetError` instead of
running for hours.
"""

from __future__ import annotations

import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from catalog.io.textfile import read_capped
from catalog.text.globs import CharClass, MatchBudget, parse_char_class

__all__ = ["MAX_IGNORE_STEPS", "Ignores"]

MAX_IGNORE_BYTES: Final = 64 * 1024
"""Longest ``.gitignore`` read; a longer one is read up to that."""
MAX_PATTERN_LENGTH: Final = 1024
"""Longer patterns are left out."""
MAX_PATTERNS: Final = 10_000
"""Most patterns in force at once; later ones are left out."""
MAX_IGNORE_STEPS: Final = 4_000_000
"""Matching work (pattern tokens tried against characters) of one status: a second
or two at worst; past it :class:`~catalog.text.globs.GlobBudgetError` is raised."""


@dataclass(frozen=True, slots=True)
class _Pattern:
    base: str  # the folder of the .gitignore, relative to the top ("" for the top)
    segments: tuple[_Segment, ...]
    negated: bool
    folders_only: bool
    anchored: bool

    def matches(self, name: str, is_dir: bool, budget: MatchBudget) -> bool:
        if self.folders_only and not is_dir:
            return False
        if self.base:
            if not name.startswith(self.base + "/"):
                return False
            name = name[len(self.base) + 1 :]
        if not self.anchored:
            return _glob(self.segments[0], name.rpartition("/")[2], budget)
        return _segments(self.segments, tuple(name.split("/")), budget)


def _parse(line: str, base: str) -> _Pattern | None:
    line = line.rstrip("\r")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#") or len(line) > MAX_PATTERN_LENGTH:
        return None
    negated = line.startswith("!")
    if negated or line.startswith(("\\!", "\\#")):
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    segments = tuple(_compile(segment) for segment in line.lstrip("/").split("/"))
    return _Pattern(base, segments, negated, folders_only, anchored)


class Ignores:
    """The patterns in force in one folder; :meth:`entering` adds a subfolder's."""

    def __init__(self, patterns: tuple[_Pattern, ...], budget: MatchBudget) -> None:
        self._patterns = patterns
        self._budget = budget

    @classmethod
    def root(cls, common: Path, budget: MatchBudget | None = None) -> Ignores:
        """The repository-wide patterns (``info/exclude`` of the git folder ``common``);
        the top's ``.gitignore`` comes with :meth:`entering`. Every match made through
        these patterns and those added to them spends ``budget`` (by default a fresh
        one of :data:`MAX_IGNORE_STEPS`)."""
        budget = budget if budget is not None else MatchBudget(MAX_IGNORE_STEPS)
        return cls((), budget).with_file(common / "info" / "exclude", "")

    def entering(self, folder: Path, relative: str) -> Ignores:
        """These patterns plus those of ``folder/.gitignore`` (``relative`` to the top)."""
        return self.with_file(folder / ".gitignore", relative)

    def with_file(self, path: Path, base: str) -> Ignores:
        try:
            if not stat.S_ISREG(path.lstat().st_mode):  # git refuses a linked .gitignore
                return self
            raw, _ = read_capped(path, MAX_IGNORE_BYTES)
        except OSError:
            return self
        text = raw[:MAX_IGNORE_BYTES].decode("utf-8", errors="replace")
        added = [p for line in text.split("\n") if (p := _parse(line, base)) is not None]
        room = MAX_PATTERNS - len(self._patterns)
        if not added:
            return self
        return Ignores(self._patterns + tuple(added[: max(room, 0)]), self._budget)

    def ignored(self, name: str, is_dir: bool) -> bool:
        """Whether ``name`` (relative to the top, ``/``-separated) is ignored: the last
        matching pattern decides. Raises :class:`~catalog.text.globs.GlobBudgetError`
        when the shared budget is spent."""
        tried = 0
        try:
            for pattern in reversed(self._patterns):
                tried += 1  # a pattern skipped at once (folders only, another base) costs too
                if pattern.matches(name, is_dir, self._budget):
                    return not pattern.negated
            return False
        finally:
            self._budget.spend(tried)


_Token = str | frozenset[str] | CharClass
"""``"*"``, ``"?"``, a literal as a one-element frozenset, or a ``[...]`` class."""
_Segment = tuple[_Token, ...] | None
"""A compiled name pattern; None for ``**``."""


def _compile(segment: str) -> _Segment:
    """``segment`` as tokens, each class parsed once (matching never rescans the pattern)."""
    if segment == "**":
        return None
    tokens: list[_Token] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        end = segment.find("]", index + 2) if char == "[" else -1
        if char in "*?":
            if not (char == "*" and tokens and tokens[-1] == "*"):
                tokens.append(char)
            index += 1
        elif char == "\\" and index + 1 < len(segment):
            tokens.append(frozenset(segment[index + 1]))
            index += 2
        elif end > 0:
            tokens.append(parse_char_class(segment[index + 1 : end]))
            index = end + 1
        elif char == "[":  # never closed: as in git, the pattern matches nothing
            return (frozenset(),)
        else:
            tokens.append(frozenset(char))
            index += 1
    return tuple(tokens)


def _one(token: _Token, char: str) -> bool:
    if token == "?":
        return True
    if isinstance(token, frozenset | CharClass):
        return char in token
    return False


def _segments(pattern: tuple[_Segment, ...], path: tuple[str, ...], budget: MatchBudget) -> bool:
    """Folder-by-folder match, ``**`` (None) standing for any number of folders.

    A trailing ``**`` needs at least one segment (``a/**`` is what is inside ``a``).
    """
    if pattern[-1] is None and len(pattern) > 1:
        pattern = (*pattern[:-1], None, ("*",))
    return _wildcard(pattern, path, None, lambda seg, name: _glob(seg, name, budget), budget)


def _glob(pattern: _Segment, name: str, budget: MatchBudget) -> bool:
    """Whether one name matches one compiled segment (``*`` within the name)."""
    return pattern is None or _wildcard(pattern, name, "*", _one, budget)


def _wildcard(
    pattern: Sequence[Any],
    items: Sequence[Any],
    star: Any,
    one: Callable[[Any, Any], bool],
    budget: MatchBudget,
) -> bool:
    """Whether ``items`` match ``pattern``, where ``star`` stands for any run of items.

    The greedy two-pointer method: on a mismatch, only the last star is
    retried one item further, so the cost is at most ``len(pattern) *
    len(items)`` steps (a backtracking regex can be exponential). The steps
    are taken from ``budget`` when the match ends: one name match costs at most
    :data:`MAX_PATTERN_LENGTH` times the name's length, and a folder pattern's
    match spends its name matches as they end.
    """
    p = i = steps = 0
    last_star, mark = -1, 0
    try:
        while i < len(items):
            steps += 1
            if p < len(pattern) and pattern[p] == star:
                last_star, mark = p, i
                p += 1
            elif p < len(pattern) and one(pattern[p], items[i]):
                p += 1
                i += 1
            elif last_star >= 0:
                p, mark = last_star + 1, mark + 1
                i = mark
            else:
                return False
        while p < len(pattern) and pattern[p] == star:
            p += 1
        return p == len(pattern)
    finally:
        budget.spend(steps)
