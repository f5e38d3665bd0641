"""Reading the YAML-like header comment of an upstream part file, as its authors meant it.

The headers were written by hand or by a generator that did not quote
values, so many are not YAML: ``description: System Prompt: Main ...`` (a
``: `` inside a plain value), ``tools:`` followed by ``- *`` (every tool; YAML
reads an alias), ``name: 'TeammateTool's operation'`` (an unescaped quote in a
single-quoted value). :func:`read_header` reads them line by line, in one
pass, the way a person does:

* ``key: rest of the line`` — the key is a name (letters, digits, ``_``,
  ``-``), the value everything after the first ``: ``, ``:`` inside the
  value included; lines indented deeper than the key continue a plain value
  (joined with spaces, as YAML folds them);
* ``'text'`` is unquoted (``''`` is ``'``; any other ``'`` inside is kept),
  ``"text"`` is read as a JSON string (YAML's escapes ``\\/``, ``\\t``... are
  JSON's), falling back to the text between the quotes;
* ``key: >`` and ``key: |`` (with ``-``/``+`` chomping) take the more
  indented lines after them, folded or literal, as YAML does;
* ``key:`` alone takes the more indented block after it: ``- item`` lines
  (a list, also at the key's own indentation, as YAML allows) or
  ``key: value`` lines (a nested mapping, by indentation);
* every value is text: ``2.1`` stays ``"2.1"``, ``FALSE`` stays ``"FALSE"``,
  ``*`` stays ``"*"``.

Where a header is valid YAML the reading is the one YAML's base loader gives
(tests check this on real and synthetic headers). A header that cannot be
read (a line that is no key where a key must be, an indentation that belongs
to nothing, a tab in the indentation, a key given twice) is a
:class:`~catalog.errors.ImporterError` naming the file and the line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import (
    Any,
    Final,
    TypeAlias,
)

from catalog.errors import ImporterError

__all__ = ["MAX_DEPTH", "HeaderValue", "read_header"]

HeaderValue: TypeAlias = str | list["HeaderValue"] | dict[str, "HeaderValue"]

# What cannot start a key: list items, quotes, flow collections, comments, YAML indicators.
_NOT_KEY_START = tuple("-?:,[]{}#&*!|>'\"%@`")
_BLOCK = re.compile(r"([|>])([+-]?)([1-9]?)([+-]?)[ \t]*(?:#.*)?$")
MAX_DEPTH: Final = 32
"""Deepest nesting of lists and mappings in a header (real ones nest two levels)."""
_HINT = "the header is `key: value` lines, `- item` lists and indented blocks"


@dataclass(frozen=True, slots=True)
class _Line:
    number: int  # 1-based, in the file
    indent: int
    text: str  # without its indentation or trailing whitespace


class _Reader:
    """The lines of one header and where the reading is; fails with file and line."""

    def __init__(self, text: str, file: str, first_line: int) -> None:
        self.raw = text.split("\n")
        if self.raw[-1] == "":
            self.raw.pop()  # the end of the last line, not a line
        self.file = file
        self.first = first_line
        self.lines: list[_Line | None] = []  # None: blank or comment
        for offset, raw in enumerate(self.raw):
            stripped = raw.rstrip()
            body = stripped.lstrip(" ")
            if not body or body.startswith("#"):
                self.lines.append(None)
                continue
            if body.startswith("\t"):
                raise self.fail("a tab in the indentation", offset)
            self.lines.append(_Line(first_line + offset, len(stripped) - len(body), body))
        self.position = 0
        self.depth = 0

    def fail(self, problem: str, offset: int) -> ImporterError:
        return ImporterError(
            f"header: {problem}", file=self.file, line=self.first + offset, hint=_HINT
        )

    def peek(self) -> tuple[int, _Line] | None:
        """The next line holding something, and its index; None at the end."""
        while self.position < len(self.lines):
            line = self.lines[self.position]
            if line is not None:
                return self.position, line
            self.position += 1
        return None

    def enter(self) -> None:
        """One level deeper; past :data:`MAX_DEPTH` the header is refused at this line."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep", self.position)

    def mapping(self, indent: int) -> dict[str, HeaderValue]:
        """``key: value`` lines at ``indent`` (the caller saw the first one)."""
        self.enter()
        result: dict[str, HeaderValue] = {}
        while (found := self.peek()) is not None:
            index, line = found
            if line.indent < indent:
                break
            if line.indent > indent:
                raise self.fail("this line is indented but continues nothing", index)
            key = _split_key(line.text)
            if key is None:
                raise self.fail(f"expected `key: value`, found {_cut(line.text)!r}", index)
            name, rest = key
            if name in result:
                raise self.fail(f"the key {name!r} is given twice", index)
            self.position += 1
            result[name] = self.value(rest, indent, index, in_list=False)
        self.depth -= 1
        return result

    def sequence(self, indent: int) -> list[HeaderValue]:
        """``- item`` lines at ``indent``."""
        self.enter()
        result: list[HeaderValue] = []
        while (found := self.peek()) is not None:
            index, line = found
            if line.indent != indent or not _is_item(line.text):
                if line.indent > indent:
                    raise self.fail("this line is indented but continues nothing", index)
                break
            rest = line.text[1:].lstrip(" ")
            width = len(line.text) - len(rest)
            if _split_key(rest) is not None:
                # ``- key: value``: a mapping whose keys line up after the dash.
                self.lines[index] = _Line(line.number, indent + width, rest)
                result.append(self.mapping(indent + width))
                continue
            self.position += 1
            result.append(self.value(rest, indent, index, in_list=True))
        self.depth -= 1
        return result

    def value(self, rest: str, indent: int, index: int, *, in_list: bool) -> HeaderValue:
        """The value after ``key:`` or ``-`` on line ``index`` (whose owner is at ``indent``)."""
        block = _BLOCK.match(rest)
        if block is not None:
            return self.block_scalar(block, indent, index)
        if rest:
            text = self.scalar(rest, indent)
            return _flow_list(text) if rest.startswith("[") else text
        found = self.peek()
        if found is None:
            return ""
        _, line = found
        if line.indent > indent:
            if _is_item(line.text):
                return self.sequence(line.indent)
            if _split_key(line.text) is not None:
                return self.mapping(line.indent)
            return self.scalar("", indent)
        if line.indent == indent and _is_item(line.text) and not in_list:
            return self.sequence(indent)
        return ""

    def scalar(self, first: str, indent: int) -> str:
        """A value on its line and the deeper lines continuing it, then unquoted.

        Continuation lines are joined with a space, as YAML folds a flow scalar.
        """
        pieces = [first] if first else []
        while (found := self.peek()) is not None and found[1].indent > indent:
            pieces.append(found[1].text)
            self.position += 1
        return _unquote(" ".join(pieces))

    def block_scalar(self, block: re.Match[str], indent: int, index: int) -> str:
        """A ``|`` (literal) or ``>`` (folded) block: the lines indented deeper than ``indent``."""
        style = block.group(1)
        chomp = block.group(2) or block.group(4)
        start = index + 1
        end = start
        content_indent = int(block.group(3)) + indent if block.group(3) else None
        while end < len(self.raw):
            raw = self.raw[end].rstrip()
            if raw.strip():
                width = len(raw) - len(raw.lstrip(" "))
                if width <= indent:
                    break
                if content_indent is None:
                    content_indent = width
                elif width < content_indent:
                    raise self.fail("a block line is indented less than the block's first", end)
            end += 1
        # Trailing blank lines belong to the block only for the `+` chomping.
        self.position = end
        while end > start and not self.raw[end - 1].strip():
            end -= 1
        lines = [self.raw[i][content_indent or 0 :].rstrip("\r") for i in range(start, end)]
        trailing = self.position - end
        if not lines:
            return ""
        text = "\n".join(lines) if style == "|" else _fold(lines)
        if chomp == "-":
            return text
        if chomp == "+":
            return text + "\n" * (1 + trailing)
        return text + "\n"


def _fold(lines: list[str]) -> str:
    """YAML's folding of a ``>`` block: a line break becomes a space, an empty line a
    line break; more-indented lines keep their breaks."""
    out: list[str] = []  # joined once: adding to one string could copy it per line
    previous_plain = False
    for line in lines:
        if not line:
            out.append("\n")
            previous_plain = False
            continue
        indented = line[:1] in (" ", "\t")
        if previous_plain and not indented:
            out.append(" " + line)
        else:
            if out and not out[-1].endswith("\n"):
                out.append("\n")
            out.append(line)
        previous_plain = not indented
    return "".join(out)


def _split_key(text: str) -> tuple[str, str] | None:
    """``(key, rest)`` of a ``key: rest`` or ``key:`` line: the key runs to the first
    colon followed by a space or the line's end; None when the line is no key.
    A quoted key (``"name": A``, ``'name': A``, as JSON-minded hands write) is
    unquoted, as YAML reads it."""
    if text[:1] in ("'", '"'):
        return _quoted_key(text)
    if text.startswith(_NOT_KEY_START):
        return None
    colon = text.find(": ")
    if colon < 0:
        if not text.endswith(":"):
            return None
        colon = len(text) - 1
    key = text[:colon].rstrip()
    if not key or " #" in key:
        return None
    return key, text[colon + 1 :].strip()


def _quoted_key(text: str) -> tuple[str, str] | None:
    """``(key, rest)`` of a ``"key": rest`` or ``'key': rest`` line; None when the
    quoted text is not followed by a colon and a space (or the line's end)."""
    end = _closing_quote(text)
    if end is None:
        return None
    after = text[end + 1 :].lstrip(" ")
    if after != ":" and not after.startswith(": "):
        return None
    key = _unquote(text[: end + 1])
    return (key, after[1:].strip()) if key else None


def _closing_quote(text: str) -> int | None:
    """Where the quoted scalar opening ``text`` closes (``''`` and backslash escapes
    inside are text); None when it does not."""
    quote = text[0]
    position = 1
    while (found := text.find(quote, position)) >= 0:
        if quote == "'" and text.startswith("''", found):
            position = found + 2
            continue
        if quote == '"':
            backslashes = len(text[position:found]) - len(text[position:found].rstrip("\\"))
            if backslashes % 2:
                position = found + 1
                continue
        return found
    return None


def _is_item(text: str) -> bool:
    return text == "-" or text.startswith("- ")


def _cut(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "\u2026"


# Runs of one character class, so that a flow list is read a run at a time.
_PLAIN_RUN = re.compile(r"[^'\",\[\]{}]*")
_QUOTED_RUN = {"'": re.compile(r"[^']*"), '"': re.compile(r'[^"\\]*')}


def _flow_list(text: str) -> HeaderValue:
    """``[a, "b", 'c']`` as a list of text (YAML's flow sequence of scalars);
    anything else in brackets (nesting, an unclosed quote) stays text."""
    if not text.endswith("]"):
        return text
    items: list[HeaderValue] = []
    item: list[str] = []
    blank = True  # the item so far is only spaces
    quote = ""
    position, end = 1, len(text) - 1
    while position < end:
        run = (_QUOTED_RUN[quote] if quote else _PLAIN_RUN).match(text, position, end)
        stop = run.end() if run else position
        if stop > position:
            item.append(text[position:stop])
            blank = blank and not text[position:stop].strip()
            position = stop
            continue
        char = text[position]
        if quote:
            # An escape (in "...") or a doubled '' takes the next character along.
            doubled = char == "'" == text[position + 1]
            width = 2 if char == "\\" or doubled else 1
            item.append(text[position : position + width])
            quote = "" if width == 1 else quote
        elif char in "[]{}":
            return text
        elif char == ",":
            items.append(_unquote("".join(item).strip()))
            item, blank, width = [], True, 1
        else:  # a quote: it opens a quoted item only at the item's start
            quote = char if blank else ""
            item.append(char)
            blank, width = False, 1
        position += width
    if quote:
        return text
    last = "".join(item).strip()
    if last:
        items.append(_unquote(last))
    return items


def _unquote(text: str) -> str:
    """A scalar's text as meant: quotes removed, escapes read, and a ``# comment``
    after the closing quote left out (``'A' # why`` is ``A``, as YAML reads it)."""
    text = _without_comment(text)
    if len(text) >= 2 and text[0] == "'" and text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        try:
            value = json.loads(text)
        except ValueError:
            return _yaml_escapes(text[1:-1])
        if isinstance(value, str):
            return value
    return text


def _without_comment(text: str) -> str:
    """A quoted scalar without the ``# comment`` after its closing quote (a space
    before the ``#``); any other text as it is."""
    if text[:1] not in ("'", '"') or text[-1:] in ("'", '"'):
        return text
    end = _closing_quote(text)
    if end is None or text[end + 1 : end + 2] != " ":
        return text
    return text[: end + 1] if text[end + 1 :].lstrip(" ").startswith("#") else text


# YAML's escapes that JSON lacks (JSON's are read by json.loads), and the width of
# the hexadecimal ones.
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
    "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")


def _yaml_escapes(inner: str) -> str:
    """The text of a double-quoted YAML scalar's inside, escapes read as YAML reads
    them (``\\x41``, ``\\N``, ``\\_``, ``\\e``...); the text as written when an
    escape is none YAML knows (a hand's ``C:\\path``)."""
    out: list[str] = []
    position = 0
    while (found := inner.find("\\", position)) >= 0:
        out.append(inner[position:found])
        code = inner[found + 1 : found + 2]
        width = _HEX_ESCAPES.get(code)
        if width is not None:
            digits = inner[found + 2 : found + 2 + width]
            if len(digits) != width or not _HEX.issuperset(digits):
                return inner
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:  # beyond U+10FFFF
                return inner
            position = found + 2 + width
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
            position = found + 2
        else:
            return inner
    out.append(inner[position:])
    return "".join(out)


def read_header(
    text: str, file: str, *, first_line: int = 1
) -> tuple[dict[str, Any], dict[str, int]]:
    """The header's fields (text, lists of text, mappings) and the line of each top-level key.

    ``text`` is what lies between ``<!--`` and ``-->``; ``first_line`` is the
    line of the file it starts on, so errors name the file's own line.
    """
    reader = _Reader(text, file, first_line)
    found = reader.peek()
    if found is None:
        return {}, {}
    _, line = found
    # A header indented as a whole (its keys lined up under an indented `<!--`) is
    # read at its keys' indentation, as YAML reads an indented block mapping.
    lines: dict[str, int] = {}
    for offset, item in enumerate(reader.lines):
        if item is not None and item.indent == line.indent and (key := _split_key(item.text)):
            lines.setdefault(key[0], first_line + offset)
    fields = reader.mapping(line.indent)
    left = reader.peek()
    if left is not None:
        raise reader.fail("this line is indented less than the header's first key", left[0])
    return fields, lines
