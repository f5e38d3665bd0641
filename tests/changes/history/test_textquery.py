"""What ``grep`` looks for: plain text, or ``*`` patterns matched in linear time."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from catalog.changes.history import MAX_QUERY_LENGTH, TextQuery
from catalog.errors import UsageError


def reference(pattern: str, body: str) -> bool:
    """The pattern's meaning written as a regular expression (tests only: small inputs)."""
    pieces, current, escaped = [], "", False
    for char in pattern:
        if escaped:
            current += char if char in "*\\" else "\\" + char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "*":
            pieces.append(current)
            current = ""
        else:
            current += char
    pieces.append(current + ("\\" if escaped else ""))
    return re.search("[^\n]*".join(map(re.escape, pieces)), body) is not None


def test_patterns_mean_what_the_reference_says() -> None:
    rng = random.Random(4)
    for _ in range(4000):
        pattern = "".join(rng.choices("ab*\\", k=rng.randint(1, 6)))
        if not pattern.replace("*", ""):
            continue
        body = "".join(rng.choices("ab*\\\n", k=rng.randint(0, 14)))
        expected = reference(pattern, body)
        assert TextQuery(pattern, pattern=True).found_in(body) is expected, (pattern, body)


def test_plain_text_and_case() -> None:
    assert TextQuery("a*b").found_in("x a*b y")
    assert not TextQuery("a*b").found_in("a and b")
    assert TextQuery("a*b", pattern=True).found_in("a and b")
    assert not TextQuery("a*b", pattern=True).found_in("a and\nb")
    assert TextQuery("line one\nline", ignore_case=True).found_in("LINE ONE\nLine two")
    assert TextQuery("STRASSE", ignore_case=True).found_in("die Straße")
    assert TextQuery("\\*", pattern=True).found_in("a * b")
    assert not TextQuery("\\*", pattern=True).found_in("a b")
    assert TextQuery("a\\\\b", pattern=True).found_in("a\\b")


class _CountedFinds(str):
    """A body that counts the searches made in it (``str.find``)."""

    finds: int

    def find(self, *args: Any) -> int:
        self.finds += 1
        return super().find(*args)


def test_a_pattern_never_backtracks() -> None:
    """A regular expression a.*a.*a.*a.*a.*b would try every way to place the a's on
    each of these long lines; the pattern places each piece once per line: at most one
    search for the first piece, one for the line's end and one per other piece, on each
    of the 100 lines (and at least the first two: the search is made line by line)."""
    body = _CountedFinds(("a" * 20_000 + "\n") * 100)
    body.finds = 0
    assert not TextQuery("a*a*a*a*a*b", pattern=True).found_in(body)
    assert 100 * 2 <= body.finds <= 100 * (1 + 1 + 5) + 1
    assert not TextQuery("aaaaaaaaab").found_in(body)


@pytest.mark.parametrize(
    ("text", "pattern", "message"),
    [
        ("", False, "empty"),
        ("x" * (MAX_QUERY_LENGTH + 1), False, "more than"),
        ("a\nb", True, "line break"),
        ("***", True, "matches everything"),
    ],
)
def test_queries_that_cannot_be_asked(text: str, pattern: bool, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        TextQuery(text, pattern=pattern)
