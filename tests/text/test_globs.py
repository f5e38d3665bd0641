"""The linear-time glob matcher that path-scoped rules use (catalog.text.globs)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.text.globs import MAX_GLOB_LENGTH, Glob, GlobError


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        # ** as a whole segment: any number of folders, zero included
        ("src/**/*.ts", "src/a.ts", True),
        ("src/**/*.ts", "src/x/y/a.ts", True),
        ("src/**/*.ts", "lib/a.ts", False),
        ("src/**/*.ts", "src/a.tsx", False),
        ("src/**", "src/a/b/c", True),
        ("src/**", "srcx/a", False),
        ("**", "any/thing/at/all", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/xb", False),
        # ** inside a segment is a single-segment *
        ("a**b", "axxb", True),
        ("/a**b", "ax/b", False),
        # * ? and classes stay within one segment
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/a/b.py", False),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("[a-c]x", "bx", True),
        ("[a-c]x", "dx", False),
        ("[!a-c]x", "dx", True),
        ("[^a-c]x", "ax", False),
        ("/a[/]b", "a/b", False),
        ("[]]", "]", True),
        # braces, nested, with classes and commas inside classes
        ("src/*.{ts,tsx}", "src/a.tsx", True),
        ("src/*.{ts,tsx}", "src/a.ts", True),
        ("src/*.{ts,tsx}", "src/a.js", False),
        ("{a,{b,c}}/z", "c/z", True),
        ("{a,{b,c}}/z", "d/z", False),
        ("x.{[ab],c}", "x.b", True),
        ("{src,lib}/**/*.rs", "lib/deep/m.rs", True),
        # an unclosed brace or class is literal text
        ("{a,b", "{a,b", True),
        ("[ab", "[ab", True),
        # escapes
        ("a\\*b", "a*b", True),
        ("a\\*b", "axb", False),
        # no slash: the file name at any depth; a leading / or ./ anchors
        ("*.py", "a.py", True),
        ("*.py", "deep/er/a.py", True),
        ("/*.py", "deep/a.py", False),
        ("./*.py", "deep/a.py", False),
        ("./*.py", "a.py", True),
        # a trailing slash: everything below
        ("docs/", "docs/a/b.md", True),
        ("docs/", "docsx/a.md", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    assert Glob(pattern).match(path) is expected


def test_patterns_that_make_backtracking_matchers_explode_are_answered() -> None:
    # A backtracking matcher needs exponential time for these; the automaton answers.
    assert Glob("*a" * 100).match("a" * 2000 + "b") is False
    assert Glob("*a" * 100).match("a" * 2000) is True
    assert Glob("**/" * 60 + "x").match("a/" * 500 + "y") is False
    assert Glob("**/" * 60 + "x").match("a/" * 500 + "x") is True
    braces = "{" * 30 + "a" + ",b}" * 30
    assert Glob(braces).match("b") is True
    assert Glob(braces).match("c") is False


def test_too_long_or_too_nested_globs_are_refused() -> None:
    with pytest.raises(GlobError, match="longer than"):
        Glob("a" * (MAX_GLOB_LENGTH + 1))
    with pytest.raises(GlobError, match="nested"):
        Glob("{" * 40 + "a" + "}" * 40)


def _reference(pattern: str) -> re.Pattern[str]:
    """An anchored glob of literals, ``*``, ``?`` and ``**/`` (a whole segment; inside
    one it is ``*``) as a regular expression (small alphabets only: it backtracks)."""
    out = []
    index = 0
    while index < len(pattern):
        whole_segment = index == 0 or pattern[index - 1] == "/"
        if whole_segment and pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out))


_PIECES = st.sampled_from(["a", "b", "/", "*", "?", "**/"])


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(_PIECES, min_size=1, max_size=8),
    path=st.text(alphabet="ab/", max_size=12),
)
def test_the_automaton_agrees_with_a_reference_matcher(pieces: list[str], path: str) -> None:
    pattern = "".join(pieces)
    if (
        pattern.startswith("/")
        or pattern.endswith("/")
        or "***" in pattern
        or "**" in pattern.replace("**/", "")
    ):
        return  # anchoring, trailing slashes and runs of stars are tested above
    expected = _reference(pattern).fullmatch(path) is not None
    assert Glob("/" + pattern).match(path) is expected
