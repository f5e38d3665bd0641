"""Where a key path sits in a TOML file: the one answer to every "which line" question.

A TOML parser keeps no positions, so a message about ``part[9999].when`` needs
another way to its line. :class:`TomlPositions` reads the text once, in one
pass driven by regular expressions (no backtracking: each token is matched
once), and records the offset of every key, table header, array element and
inline-table key under its concrete key path, with arrays of tables numbered
as the parsed data numbers them (``("part", 3, "when")``, ``("prompt", 0, "data",
"env", "cwd")`` for a sub-table of an array element). Values are skipped over
exactly, multi-line strings included, so a line of a body that looks like a
table header is never taken for one.

The index is built only when a question is asked (:func:`key_lines` returns
a lookup that builds it on first use) and kept for the few texts asked about
last, so a file costs one pass however many lines are asked for. It assumes
the text is TOML (the parser has read it); on text that is not, it records
what it could read and never fails.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import tomli

__all__ = [
    "KeyPath",
    "Span",
    "TomlPositions",
    "key_columns",
    "key_lines",
    "toml_error_place",
]

KeyPath = tuple[str | int, ...]
"""A key path as the parsed data is indexed: ``("part", 3, "when")``."""


@dataclass(frozen=True, eq=False, slots=True)
class _Patterns:
    """The scanner's patterns, compiled on its first use: only a message naming a
    line, or a command rewriting a manifest, needs them, not every start.

    Possessive quantifiers (``*+``, ``++``) never give back what they matched,
    so no pattern here backtracks: each is linear in the text it reads.
    """

    space: re.Pattern[str]
    inline_space: re.Pattern[str]
    bare_key: re.Pattern[str]
    basic: re.Pattern[str]
    literal: re.Pattern[str]
    scalar: re.Pattern[str]
    simple_key_value: re.Pattern[str]
    rest_of_line: re.Pattern[str]
    space_only: re.Pattern[str]


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns(
        space=re.compile(r"(?:[ \t\r\n]++|#[^\n]*+)*+"),
        inline_space=re.compile(r"[ \t]*"),
        bare_key=re.compile(r"[A-Za-z0-9_-]+"),
        basic=re.compile(r'"(?:[^"\\\n]++|\\.)*+"?'),
        literal=re.compile(r"'[^'\n]*'?"),
        scalar=re.compile(r"[^,\]}\n#]*"),
        # Blank lines and comments, then ``key = value`` with a bare key and a
        # one-line string, number, date or boolean (the lines most files are made
        # of), ending the line or followed by a comment.
        simple_key_value=re.compile(
            r"(?:[ \t\r\n]++|#[^\n]*+)*+"
            r'([A-Za-z0-9_-]++)[ \t]*+=[ \t]*+("(?:[^"\\\n]++|\\.)*+"|[A-Za-z0-9_+.:-]++)[ \t]*+'
            r"(?=#|\r?\n|\Z)"
        ),
        rest_of_line=re.compile(r"[^\n]*"),
        space_only=re.compile(r"[ \t\r\n]*+"),
    )


_MAX_DEPTH: Final = 64


@dataclass(frozen=True, slots=True)
class Span:
    """Where one key (or table header, or array element) and its value lie, as offsets.

    For a table header ``value_start`` is the end of the header and
    ``value_end`` the end of the last value written under it (the header's
    end when it has none), so a new key goes on the line after it.
    """

    start: int
    value_start: int
    value_end: int


class _Stop(Exception):
    """Nesting deeper than any file worth indexing: keep what was recorded so far."""


class _Scanner:
    """One pass over a TOML text, recording a :class:`Span` for every key path."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.spans: dict[KeyPath, tuple[int, int, int]] = {}
        self._array_counts: dict[KeyPath, int] = {}
        self.re = _patterns()

    def scan(self) -> None:
        table: KeyPath = ()
        header_start = table_end = -1
        text = self.text
        spans = self.spans
        simple_line = self.re.simple_key_value.match
        while True:
            simple = simple_line(text, self.at)
            if simple is not None:  # the common line, read at once
                path = (*table, simple.group(1))
                if path not in spans:
                    spans[path] = (simple.start(1), simple.start(2), simple.end(2))
                self.at = table_end = simple.end(2)
                continue
            self.at = _skip(self.re.space, text, self.at)
            if self.at >= len(text):
                break
            start = self.at
            try:
                if text[start] == "[":
                    self._close(table, header_start, table_end)
                    table = self._header()
                    header_start = table_end = start
                else:
                    self._key_value(table)
                    table_end = self.at
            except _Stop:
                break
            if self.at <= start:  # not TOML here: skip the line rather than stall
                self.at = _skip(self.re.rest_of_line, text, start)
        self._close(table, header_start, table_end)

    def _close(self, table: KeyPath, header_start: int, end: int) -> None:
        """Let the span of the table opened at ``header_start`` run to its last value."""
        span = self.spans.get(table)
        if span is not None and span[0] == header_start and end > span[2]:
            self.spans[table] = (span[0], span[1], end)

    def _record(self, path: KeyPath, start: int, value_start: int, value_end: int) -> None:
        if path not in self.spans:
            self.spans[path] = (start, value_start, value_end)

    def _header(self) -> KeyPath:
        """Read ``[a.b]`` or ``[[a.b]]``; return the concrete path of the table it opens."""
        text = self.text
        start = self.at
        array = text.startswith("[[", start)
        self.at = start + (2 if array else 1)
        names = self._key()
        if not names:
            return ()
        self.at = _skip(self.re.inline_space, text, self.at)
        self.at += 2 if array else 1  # the closing bracket(s)
        path: KeyPath = ()
        for position, name in enumerate(names):
            path = (*path, name)
            last = position == len(names) - 1
            if last and array:
                index = self._array_counts.get(path, 0)
                self._array_counts[path] = index + 1
                self._record(path, start, self.at, self.at)
                path = (*path, index)
            elif path in self._array_counts:  # a sub-table of the latest element
                path = (*path, self._array_counts[path] - 1)
            else:
                self._record(path, start, self.at, self.at)  # a table the header implies
        self._record(path, start, self.at, self.at)
        return path

    def _key(self) -> list[str]:
        """A possibly dotted key; the scanner stands after it."""
        text = self.text
        names: list[str] = []
        while True:
            self.at = _skip(self.re.inline_space, text, self.at)
            char = text[self.at : self.at + 1]
            pattern = (
                self.re.basic
                if char == '"'
                else self.re.literal
                if char == "'"
                else self.re.bare_key
            )
            end = _skip(pattern, text, self.at)
            if end == self.at:
                return names
            name = text[self.at : end]
            names.append(_unquote(name) if char == '"' else name.strip("'"))
            self.at = end
            self.at = _skip(self.re.inline_space, text, self.at)
            if not text.startswith(".", self.at):
                return names
            self.at += 1

    def _key_value(self, table: KeyPath, depth: int = 0) -> bool:
        """``a.b = value`` under ``table``; false when there is none here."""
        start = self.at
        names = self._key()
        if not names or not self.text.startswith("=", self.at):
            return False
        self.at += 1
        path = table
        for name in names[:-1]:
            path = (*path, name)
            self._record(path, start, start, start)
        self._value((*path, names[-1]), start, depth)
        return True

    def _value(self, path: KeyPath, start: int, depth: int) -> None:
        """Skip one value, recording ``path`` (and what is inside an array or inline table)."""
        if depth > _MAX_DEPTH:
            raise _Stop
        text = self.text
        self.at = _skip(self.re.inline_space, text, self.at)
        value_start = self.at
        char = text[value_start : value_start + 1]
        if text.startswith(('"""', "'''"), value_start):
            self.at = _multiline_end(text, value_start)
        elif char == '"':
            self.at = _skip(self.re.basic, text, value_start)
        elif char == "'":
            self.at = _skip(self.re.literal, text, value_start)
        elif char == "[":
            self._array(path, depth)
        elif char == "{":
            self._inline_table(path, depth)
        else:
            self.at = value_start + len(
                text[value_start : _skip(self.re.scalar, text, value_start)].rstrip()
            )
        self._record(path, start, value_start, self.at)

    def _array(self, path: KeyPath, depth: int) -> None:
        text = self.text
        self.at += 1
        index = 0
        while True:
            self.at = _skip(self.re.space, text, self.at)
            if self.at >= len(text) or text[self.at] == "]":
                self.at += 1
                return
            before = self.at
            self._value((*path, index), self.at, depth + 1)
            index += 1
            self.at = _skip(self.re.space, text, self.at)
            if text.startswith(",", self.at):
                self.at += 1
            elif self.at <= before or not text.startswith("]", self.at):
                return  # not TOML: give up on this array

    def _inline_table(self, path: KeyPath, depth: int) -> None:
        text = self.text
        self.at += 1
        while True:
            self.at = _skip(self.re.space, text, self.at)
            if self.at >= len(text) or text[self.at] == "}":
                self.at += 1
                return
            if not self._key_value(path, depth + 1):
                return
            self.at = _skip(self.re.space, text, self.at)
            if text.startswith(",", self.at):
                self.at += 1
            elif not text.startswith("}", self.at):
                return


def _skip(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where a match of ``pattern`` at ``at`` ends (``at`` itself when there is none)."""
    found = pattern.match(text, at)
    return at if found is None else found.end()


def _multiline_end(text: str, start: int) -> int:
    """The offset after the multi-line string opening at ``start``."""
    quotes = text[start : start + 3]
    search = start + 3
    while True:
        close = text.find(quotes, search)
        if close < 0:
            return len(text)
        backslashes = 0
        while quotes == '"""' and text[close - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            end = close + 3
            while end < close + 5 and text.startswith(quotes[0], end):
                end += 1  # up to two quotes may end the content itself
            return end
        search = close + 1


def _unquote(quoted: str) -> str:
    """The name a basic-string key stands for."""
    try:
        return next(iter(tomli.loads(f"{quoted} = 0")))
    except (tomli.TOMLDecodeError, StopIteration):
        return quoted.strip('"')


class TomlPositions:
    """Positions of the key paths of one TOML text (build with :meth:`of`)."""

    def __init__(self, text: str) -> None:
        scanner = _Scanner(text)
        scanner.scan()
        self._text = text
        self._spans = scanner.spans
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]

    @staticmethod
    @functools.lru_cache(maxsize=4)
    def of(text: str) -> TomlPositions:
        """The positions of ``text``, computed once for the last few texts asked about."""
        return TomlPositions(text)

    def span(self, path: Sequence[str | int]) -> Span | None:
        """The span of exactly ``path``, or None when the text does not hold it."""
        found = self._spans.get(tuple(path))
        return None if found is None else Span(*found)

    def closest(self, path: Sequence[str | int]) -> Span | None:
        """The span of ``path``, or of its deepest ancestor the text holds.

        None when not even the first key is there, or when an array element the
        path names does not exist (``part[7]`` in a file of five parts).
        """
        found = None
        for depth, key in enumerate(path, 1):
            span = self._spans.get(tuple(path[:depth]))
            if span is None:
                if isinstance(key, int):
                    return None
                break
            found = span
        return None if found is None else Span(*found)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset into the text."""
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def line(self, path: Sequence[str | int]) -> int | None:
        """The 1-based line of ``path`` (or of its closest ancestor; see :meth:`closest`)."""
        span = self.closest(path)
        return None if span is None else self.position(span.start)[0]

    def place(self, path: Sequence[str | int], column: int) -> tuple[int, int] | None:
        """The file's 1-based (line, column) of character ``column`` (1-based) of the
        string written at exactly ``path``: where an error inside an expression lies in
        the file. None when ``path`` holds no string written in the text."""
        span = self.span(path)
        if span is None:
            return None
        offset = _raw_offset(self._text, span.value_start, span.value_end, column - 1)
        return None if offset is None else self.position(offset)


def _raw_offset(text: str, start: int, end: int, wanted: int) -> int | None:
    """The offset in ``text`` of character ``wanted`` (0-based) of the TOML string
    written from ``start`` to ``end``, escapes and a multi-line string's first newline
    and line-ending backslashes accounted for; None when it is no string."""
    quote = text[start : start + 3] if text.startswith(('"""', "'''"), start) else text[start]
    if quote[0] not in "\"'":
        return None
    at = start + len(quote)
    close = end - len(quote)
    if len(quote) == 3:  # a newline right after the opening quotes is not part of it
        at += 1 if text.startswith("\n", at) else 2 if text.startswith("\r\n", at) else 0
    basic = quote[0] == '"'
    count = 0
    while at < close:
        char = text[at]
        if basic and char == "\\":
            after = text[at + 1 : at + 2]
            if len(quote) == 3 and after in (" ", "\t", "\r", "\n"):
                at = _skip(_patterns().space_only, text, at + 1)  # a line-ending backslash
                continue
            size = {"u": 6, "U": 10, "x": 4}.get(after, 2)
        else:
            size = 1
        if count == wanted:
            return at
        count += 1
        at += size
    return min(at, close)  # just after the last character (a column at the very end)


def key_lines(text: str) -> Callable[[Sequence[str | int]], int | None]:
    """A lookup from key path to line in ``text``, indexing the text only when first asked."""
    return lambda path: TomlPositions.of(text).line(path)


def key_columns(text: str) -> Callable[[Sequence[str | int], int], tuple[int, int] | None]:
    """A lookup from (key path, column inside its string) to the file's (line, column)
    in ``text`` (see :meth:`TomlPositions.place`), indexing the text only when first asked."""
    return lambda path, column: TomlPositions.of(text).place(path, column)


def toml_error_place(exc: tomli.TOMLDecodeError, text: str) -> tuple[int | None, int | None]:
    """The 1-based line and column of a TOML syntax error in ``text``; an error at the
    end of the document (an unclosed string or array) is placed on the last line.

    The parser's own position is used (``lineno``, ``colno``): a message that says
    "end of document" may well be about the middle of the file ("Expected newline or
    end of document after a statement (at line 32, column 12)").
    """
    position = getattr(exc, "pos", None)
    lineno, colno = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if isinstance(position, int) and position >= len(text) and text:
        lines = text.splitlines()
        return len(lines), len(lines[-1]) + 1 if lines else 1
    if isinstance(lineno, int) and isinstance(colno, int):
        return lineno, colno
    found = re.search(r"at line (\d+), column (\d+)", str(exc))
    return (int(found.group(1)), int(found.group(2))) if found else (None, None)
