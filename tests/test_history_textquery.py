"""What ``grep`` looks for: plain text, or ``*`` patterns matched in linear time."""

from __future__ import annotations

import random
import re
import time

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


def test_a_pattern_never_backtracks() -> None:
    # A regular expression a.*a.*a.*a.*a.*b would try every way to place the a's on
    # each of these long lines; the pattern places each piece once per line.
    body = ("a" * 20_000 + "\n") * 100
    start = time.perf_counter()
    assert not TextQuery("a*a*a*a*a*b", pattern=True).found_in(body)
    assert not TextQuery("aaaaaaaaab").found_in(body)
    assert time.perf_counter() - start < 2.0


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
