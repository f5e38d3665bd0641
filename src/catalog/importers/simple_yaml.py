"""The small subset of YAML that front-matter headers use, parsed without a YAML library.

Supported: block mappings and sequences nested by indentation (``- key: v``
items too), plain scalars, single- and double-quoted scalars (also over
several lines), literal and folded block scalars (``|``, ``>``, with ``-``/``+``)
and one-line flow sequences of scalars (``[a, "b"]``) or an empty ``{}``.
Plain ``true``/``false`` become booleans, ``null``/``~`` None and integers
ints; every other scalar stays text (``2.1`` is the string ``"2.1"``, which
is what a version field means). Anything else (anchors, tags, flow mappings,
several documents) is an :class:`~catalog.errors.ImporterError` naming the
file and line, so an unexpected header fails loudly instead of being misread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from catalog.errors import ImporterError

__all__ = ["parse_simple_yaml"]

_QUOTED = r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'"""
_KEY = re.compile(
    rf"""^(?P<key>{_QUOTED}|[^\s#'"\[\]{{}}&*!|>%@`,-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s+|$)"""
)
_FLOW_ITEM = re.compile(rf"""\s*({_QUOTED}|[^,'"\[\]{{}}]+)\s*(?:,|$)""")
_INT = re.compile(r"^[-+]?[0-9]+$")
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
    "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


@dataclass
class _Line:
    number: int
    indent: int
    text: str


def parse_simple_yaml(text: str, *, file: str, first_line: int = 1) -> dict[str, Any]:
    """Parse ``text`` (a block mapping) into a dict; ``first_line`` numbers its first line."""
    parser = _Parser(text, file, first_line)
    if parser.peek() is None:
        return {}
    result = parser.node(0)
    leftover = parser.peek()
    if leftover is not None:
        raise parser.error("unexpected indentation", leftover)
    if not isinstance(result, dict):
        raise parser.error("expected `key: value` lines", parser.lines[0])
    return result


class _Parser:
    def __init__(self, text: str, file: str, first_line: int) -> None:
        self.file = file
        self.lines = [
            _Line(first_line + n, len(raw) - len(raw.lstrip(" ")), raw.lstrip(" "))
            for n, raw in enumerate(text.split("\n"))
        ]
        self.pos = 0

    def error(self, message: str, line: _Line) -> ImporterError:
        return ImporterError(
            f"header: {message}",
            file=self.file,
            line=line.number,
            hint="the header is the YAML subset described in catalog.importers.simple_yaml",
        )

    def peek(self) -> _Line | None:
        """The next line with content (skipping blank and comment lines)."""
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line.text.strip() and not line.text.startswith("#"):
                if line.text.startswith("\t"):
                    raise self.error("tabs may not indent YAML", line)
                return line
            self.pos += 1
        return None

    def node(self, indent: int) -> Any:
        line = self.peek()
        if line is None or line.indent < indent:
            return None
        if _is_item(line.text):
            return self.sequence(line.indent)
        return self.mapping(line.indent)

    def mapping(self, indent: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        while (line := self.peek()) is not None and line.indent >= indent:
            if line.indent > indent:
                raise self.error("unexpected indentation", line)
            found = _KEY.match(line.text)
            if found is None:
                raise self.error(f"expected `key: value`, found {line.text.strip()!r}", line)
            key = self.unquote_key(found.group("key"), line)
            if key in result:
                raise self.error(f"duplicate key {key!r}", line)
            self.pos += 1
            result[key] = self.value(line.text[found.end() :], indent, line)
        return result

    def sequence(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while (line := self.peek()) is not None and line.indent >= indent:
            if line.indent > indent:
                raise self.error("unexpected indentation", line)
            if not _is_item(line.text):
                break  # the next key of the mapping that holds this sequence
            rest = line.text[1:]
            content = rest.lstrip(" ")
            if _KEY.match(content):
                # "- key: value": a mapping whose first key sits after the dash.
                self.lines[self.pos] = _Line(
                    line.number, indent + 1 + len(rest) - len(content), content
                )
                items.append(self.mapping(self.lines[self.pos].indent))
            else:
                self.pos += 1
                items.append(self.value(content, indent, line))
        return items

    def value(self, rest: str, indent: int, line: _Line) -> Any:
        rest = rest.strip()
        if not rest or rest.startswith("#"):
            nested = self.peek()
            if nested is not None and nested.indent == indent and _is_item(nested.text):
                return self.sequence(indent)  # "key:" followed by "- item" at the key's indent
            return self.node(indent + 1)
        if rest[0] in "|>":
            return self.block_scalar(rest, indent, line)
        if rest[0] in "'\"":
            return self.quoted(rest, line)
        if rest[0] == "[":
            return self.flow_sequence(rest, line)
        if rest == "{}":
            return {}
        if rest[0] in "{&*!%@`":
            raise self.error(f"unsupported YAML {rest[0]!r} (flow mappings, anchors, tags)", line)
        return _plain(re.sub(r"\s+#.*$", "", rest))

    def quoted(self, rest: str, line: _Line) -> str:
        quote = rest[0]
        raw = rest[1:]
        pieces = [raw]
        while (end := _closing_quote(raw, quote)) is None:
            if self.pos >= len(self.lines):
                raise self.error(f"unclosed {quote} string", line)
            raw = self.lines[self.pos].text
            pieces.append(raw)
            self.pos += 1
        pieces[-1] = raw[:end]
        after = raw[end + 1 :].strip()
        if after and not after.startswith("#"):
            raise self.error(f"unexpected text after the closing quote: {after!r}", line)
        folded = _fold(pieces, escaped_breaks=quote == '"')
        if quote == "'":
            return folded.replace("''", "'")
        try:
            return _unescape(folded)
        except ValueError as exc:
            raise self.error(str(exc), line) from None

    def unquote_key(self, key: str, line: _Line) -> str:
        if key[:1] in "'\"":
            return self.quoted(key, line)
        return key

    def block_scalar(self, rest: str, indent: int, line: _Line) -> str:
        header = re.sub(r"\s+#.*$", "", rest)
        if not re.fullmatch(r"[|>][-+]?", header):
            raise self.error(f"unsupported block scalar header {rest!r}", line)
        body: list[str] = []
        block_indent = None
        while self.pos < len(self.lines):
            candidate = self.lines[self.pos]
            if candidate.text.strip():
                if block_indent is None:
                    block_indent = candidate.indent
                if candidate.indent < block_indent or candidate.indent <= indent:
                    break
                body.append(" " * (candidate.indent - block_indent) + candidate.text)
            else:
                body.append("")
            self.pos += 1
        while body and not body[-1] and header[-1] != "+":
            body.pop()
        text = _fold_block(body) if header[0] == ">" else "\n".join(body)
        return text if header.endswith("-") else text + "\n"

    def flow_sequence(self, rest: str, line: _Line) -> list[Any]:
        stripped = re.sub(r"\s+#.*$", "", rest)
        if not stripped.endswith("]"):
            raise self.error("a flow sequence must close on its line", line)
        inner = stripped[1:-1].strip()
        items: list[Any] = []
        covered = 0
        for found in _FLOW_ITEM.finditer(inner):
            covered += len(found.group(0))
            item = found.group(1).strip()
            items.append(self.quoted(item, line) if item[0] in "'\"" else _plain(item))
        if covered != len(inner):
            raise self.error(f"unsupported flow sequence {rest!r}", line)
        return items


def _is_item(text: str) -> bool:
    return text == "-" or text.startswith("- ")


def _plain(text: str) -> Any:
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if text in ("null", "Null", "NULL", "~"):
        return None
    if _INT.match(text):
        return int(text)
    return text


def _closing_quote(text: str, quote: str) -> int | None:
    """Index of the quote that closes a quoted scalar in ``text``, or None."""
    index = 0
    while index < len(text):
        char = text[index]
        if quote == '"' and char == "\\":
            index += 2
            continue
        if char == quote:
            if quote == "'" and text[index + 1 : index + 2] == "'":
                index += 2
                continue
            return index
        index += 1
    return None


def _fold(pieces: list[str], *, escaped_breaks: bool) -> str:
    """Join the lines of a multi-line quoted scalar the way YAML folds them."""
    if len(pieces) == 1:
        return pieces[0]
    lines = [pieces[0].rstrip(" "), *(p.strip(" ") for p in pieces[1:-1]), pieces[-1].lstrip(" ")]
    out = lines[0]
    blank_run = 0
    for line in lines[1:]:
        if not line:
            blank_run += 1
            continue
        if blank_run:
            out += "\n" * blank_run
        elif escaped_breaks and out.endswith("\\") and (len(out) - len(out.rstrip("\\"))) % 2:
            out = out[:-1]
        else:
            out += " "
        out += line
        blank_run = 0
    return out + "\n" * blank_run


def _fold_block(lines: list[str]) -> str:
    """Fold a ``>`` block: line breaks between plain lines become spaces, blank lines breaks."""
    out: list[str] = []
    breaks = 0
    previous: str | None = None
    for line in lines:
        if not line:
            breaks += 1
            continue
        if previous is not None:
            # More-indented lines keep their line breaks.
            kept = line.startswith(" ") or previous.startswith(" ")
            out.append("\n" * (breaks + kept) if breaks or kept else " ")
        else:
            out.append("\n" * breaks)
        out.append(line)
        previous, breaks = line, 0
    return "".join(out) + "\n" * breaks


def _unescape(text: str) -> str:
    """Resolve the escapes of a double-quoted scalar (``ValueError`` on a bad one)."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        code = text[index + 1 : index + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            index += 2
        elif code in _HEX_ESCAPES:
            digits = text[index + 2 : index + 2 + _HEX_ESCAPES[code]]
            if len(digits) != _HEX_ESCAPES[code] or not re.fullmatch(r"[0-9A-Fa-f]+", digits):
                raise ValueError(f"bad escape \\{code}{digits}")
            out.append(chr(int(digits, 16)))
            index += 2 + len(digits)
        else:
            raise ValueError(f"unknown escape \\{code}")
    # JSON-style writers escape astral characters as surrogate pairs (\\uD83E\\uDD16).
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")
