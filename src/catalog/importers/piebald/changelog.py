"""Reading upstream's ``CHANGELOG.md``: a section per release, a bullet per change.

A section is a heading ``# [2.1.33](...)`` (any level), an optional
``_-1,086 tokens_`` line and bullets: ``**NEW:** Name — summary``,
``**REMOVED:** Name — summary`` or ``Name — summary`` for a changed part.
Real bullets are looser than that: one bullet may name several parts
(``Skill: A, Skill: B, and Skill: C — summary``, ``**REMOVED:** Agent Prompt:
X; Data: Y — summary``, ``Data: Agent SDK patterns — Python (2080 tks), Agent
SDK patterns — TypeScript (1067 tks) - summary``, where later names inherit
the first one's category), and names may themselves contain `` — ``
(``Data: Claude API reference — C#``). Given the part names that exist
(``names``, from the release's README or headers), each bullet's names are
matched against them, longest first; without them a heuristic splits names
at category prefixes (``Skill: ``) and keeps a short segment between two
dashes (``— C# —``) in the name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["ChangelogItem", "ChangelogRelease", "parse_changelog"]


@dataclass(frozen=True, slots=True)
class ChangelogItem:
    """A bullet of a changelog section: the parts' upstream names and what changed.

    ``name`` is the first (often the only) name; ``names`` all of them.
    """

    name: str
    summary: str
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.names:
            object.__setattr__(self, "names", (self.name,))


@dataclass(frozen=True, slots=True)
class ChangelogRelease:
    """One section of the upstream ``CHANGELOG.md``."""

    version: str
    token_delta: int | None = None
    new: tuple[ChangelogItem, ...] = ()
    removed: tuple[ChangelogItem, ...] = ()
    changed: tuple[ChangelogItem, ...] = ()


_SECTION = re.compile(r"^#{1,6}\s+\[v?(?P<version>\d[^\]]*)\]\([^)]*\)\s*$")
_DELTA = re.compile(r"^_(?P<sign>[+\-\u2212]?)(?P<amount>[\d,]+) tokens?_\s*$")
_TAGS = ("**NEW:**", "**REMOVED:**")
# Between a bullet's names and its summary.
_SUMMARY_DASHES = (" \u2014 ", " \u2013 ", " - ")
# Between two names of one bullet.
_JOINERS = (", and ", "; and ", ", ", "; ", " and ")
# A token figure, ``(2080 tks)``, matched where a ``(`` is: every quantifier's class
# excludes what follows it, so a match costs its length.
_FIGURE = re.compile(r"\(\d[\d,]* tks?\)")
_SPACES = re.compile(r"\s*")
_CATEGORY = re.compile(r"[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)?: ")
# A joiner followed by a category starts the next name.
_NAME_JOIN = re.compile(r"(?:, (?:and )?|; (?:and )?| and )(?=" + _CATEGORY.pattern + ")")


def parse_changelog(text: str, names: Iterable[str] = ()) -> list[ChangelogRelease]:
    """Every release section of ``text``, newest first (as written).

    ``names`` are the part names that exist (any release's); bullets are read
    against them when given (see the module's docstring).
    """
    known = _Names(names)
    releases: list[ChangelogRelease] = []
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        heading = _SECTION.match(line)
        if heading:
            if current is not None:
                releases.append(_release(current))
            current = {"version": heading["version"], "new": [], "removed": [], "changed": []}
            continue
        if current is None:
            continue
        delta = _DELTA.match(line.strip())
        if delta:
            sign = -1 if delta["sign"] in ("-", "\u2212") else 1
            current["token_delta"] = sign * int(delta["amount"].replace(",", ""))
            continue
        bullet = _bullet(line)
        if bullet is not None:
            tag, rest = bullet
            found, summary = known.split(rest)
            current[tag].append(ChangelogItem(found[0], summary, tuple(found)))
    if current is not None:
        releases.append(_release(current))
    return releases


def _bullet(line: str) -> tuple[str, str] | None:
    """``("new" | "removed" | "changed", the rest)`` of a ``- [**NEW:**] ...`` line;
    None for any other line, or a bullet that names nothing."""
    if line[:1] not in ("-", "*") or not line[1:2].isspace():
        return None
    rest = line[1:].strip()
    kind = "changed"
    for tag in _TAGS:
        if rest.startswith(tag):
            kind, rest = tag.strip("*:").lower(), rest[len(tag) :].lstrip()
    return (kind, rest) if rest else None


def _figure_end(text: str, position: int) -> int | None:
    """Where a token figure (``(2080 tks)``, after spaces) at ``position`` ends."""
    spaces = _SPACES.match(text, position)
    found = _FIGURE.match(text, spaces.end() if spaces else position)
    return found.end() if found else None


def _without_figures(text: str) -> str:
    """``text`` without its token figures and the spaces before them, in one pass."""
    kept = []
    start = 0
    opening = text.find("(")
    while opening >= 0:
        found = _FIGURE.match(text, opening)
        if found is None:
            opening = text.find("(", opening + 1)
            continue
        kept.append(text[start:opening].rstrip())
        start = found.end()
        opening = text.find("(", start)
    kept.append(text[start:])
    return "".join(kept)


def _release(data: dict[str, Any]) -> ChangelogRelease:
    return ChangelogRelease(
        data["version"],
        data.get("token_delta"),
        tuple(data["new"]),
        tuple(data["removed"]),
        tuple(data["changed"]),
    )


class _Names:
    """The known part names, looked up by their first characters."""

    _KEY = 12

    def __init__(self, names: Iterable[str]) -> None:
        self.by_start: dict[str, list[str]] = {}
        for name in set(names):
            self.by_start.setdefault(name[: self._KEY], []).append(name)
        for bucket in self.by_start.values():
            bucket.sort(key=len, reverse=True)

    def longest_at(self, text: str, position: int, prefix: str = "") -> str | None:
        """The longest known name at ``position`` of ``text`` (after ``prefix``)."""
        probe = prefix + text[position : position + self._KEY]
        for name in self.by_start.get(probe[: self._KEY], ()):
            rest = name[len(prefix) :]
            if name.startswith(prefix) and text.startswith(rest, position):
                return name
        return None

    def split(self, rest: str) -> tuple[list[str], str]:
        """A bullet's names and its summary."""
        if self.by_start:
            found = self._match(rest)
            if found is not None:
                return found
        return _guess(rest)

    def _match(self, rest: str) -> tuple[list[str], str] | None:
        names: list[str] = []
        position = 0
        category = ""
        while True:
            name = self.longest_at(rest, position)
            if name is None and category:
                name = self.longest_at(rest, position, category)
            if name is None:
                break
            names.append(name)
            category_found = _CATEGORY.match(name)
            category = category_found.group() if category_found else ""
            position += len(name) - (0 if rest.startswith(name, position) else len(category))
            figure = _figure_end(rest, position)
            if figure is not None:
                position = figure
            joiner = next((j for j in _JOINERS if rest.startswith(j, position)), None)
            if joiner is None:
                break
            position += len(joiner)
        if not names:
            return None
        tail = rest[position:]
        for dash in (*_SUMMARY_DASHES, ": "):
            if tail.startswith(dash):
                return names, tail[len(dash) :].strip()
        if tail.strip():
            return None  # the names do not end where a summary starts: guess instead
        return names, ""


def _guess(rest: str) -> tuple[list[str], str]:
    """Names and summary without a list of names: split at the first dash, keeping a
    short segment between two dashes (``Name — C# — summary``) in the name."""
    cut = _first_dash(rest, 0)
    if cut is None:
        return [_without_figures(rest).strip()], ""
    start, end = cut
    following = _first_dash(rest, end)
    if following is not None:
        segment = rest[end : following[0]]
        if len(segment.split()) <= 2 and "." not in segment:
            start, end = following
    head, summary = rest[:start], rest[end:].strip()
    names = [_without_figures(piece).strip() for piece in _NAME_JOIN.split(head)]
    return [n for n in names if n] or [head.strip()], summary


def _first_dash(text: str, position: int) -> tuple[int, int] | None:
    found = [(i, i + len(d)) for d in _SUMMARY_DASHES if (i := text.find(d, position)) >= 0]
    return min(found) if found else None
