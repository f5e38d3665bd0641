"""What ``catalog grep`` looks for in a body: plain text, or a pattern with wildcards,
matched in time linear in the body.

A query may come from a client of the server, so it is never turned into a
regular expression (Python's ``re`` backtracks). Plain text is a substring
test. A pattern knows one wildcard: ``*`` is any run of characters within one
line (``\\*`` is a star, ``\\\\`` a backslash). It is matched by placing its
literal pieces leftmost, one after the other, within one line; when a piece
does not fit, no other placement in that line would, and the search goes on
at the next line: each line is searched once per piece, with ``str.find``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from catalog.errors import UsageError

__all__ = ["MAX_QUERY_LENGTH", "TextQuery"]

MAX_QUERY_LENGTH = 1000
"""The longest text or pattern accepted, in characters."""


def _pieces(pattern: str) -> tuple[str, ...]:
    """The literal pieces of ``pattern`` between its ``*`` wildcards (empty ones dropped)."""
    pieces: list[str] = []
    current: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            current.append(char if char in "*\\" else "\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "*":
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    current.append("\\" if escaped else "")
    pieces.append("".join(current))
    return tuple(piece for piece in pieces if piece)


@dataclass(frozen=True, slots=True)
class TextQuery:
    """Text to find in bodies: plain (``pattern=False``) or with ``*`` wildcards,
    case-sensitive unless ``ignore_case`` (compared case-folded)."""

    text: str
    pattern: bool = False
    ignore_case: bool = False
    _pieces: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.text:
            raise UsageError("the text to find is empty", hint="give the text to look for")
        if len(self.text) > MAX_QUERY_LENGTH:
            raise UsageError(
                f"the text to find is {len(self.text)} characters long, "
                f"more than {MAX_QUERY_LENGTH}",
                hint="look for a shorter, telling piece of it",
            )
        folded = self.text.casefold() if self.ignore_case else self.text
        if not self.pattern:
            object.__setattr__(self, "_pieces", (folded,))
            return
        if "\n" in self.text:
            raise UsageError(
                "a pattern is matched within one line: it cannot hold a line break",
                hint="look for the text without --pattern, or for one line of it",
            )
        pieces = _pieces(folded)
        if not pieces:
            raise UsageError(
                f"the pattern {self.text!r} matches everything", hint="add some text to it"
            )
        object.__setattr__(self, "_pieces", pieces)

    def found_in(self, body: str) -> bool:
        """Whether ``body`` holds the text (or a match of the pattern)."""
        if self.ignore_case:
            body = body.casefold()
        first, *rest = self._pieces
        if not self.pattern or not rest:
            return first in body
        start = 0
        while (at := body.find(first, start)) >= 0:
            end = at + len(first)
            line_end = body.find("\n", at)
            limit = len(body) if line_end < 0 else line_end
            for piece in rest:
                found = body.find(piece, end, limit)
                if found < 0:
                    break
                end = found + len(piece)
            else:
                return True
            if line_end < 0:
                return False
            start = line_end + 1
        return False
