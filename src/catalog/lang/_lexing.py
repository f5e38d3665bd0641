"""Part bodies as tokens: runs of text and tags, and the rule for lines of tags.

:func:`tokenize` cuts a body into text and ``{{ }}``, ``{% %}`` and ``{# #}``
tags (a tag's closer inside a quoted string does not close it), and
:func:`trim_block_lines` applies the whitespace rule of
:mod:`catalog.lang.template`: a line holding only block tags disappears, its
line end included. :class:`Lines` turns offsets in the body into the line and
column errors report.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal, NoReturn, TypeAlias

from catalog.errors import EvaluationError, TemplateError

__all__ = ["OPENER", "Lines", "Token", "tokenize", "trim_block_lines"]

OPENER: Final = re.compile(r"\{[{%#]")
"""Where a tag may open."""
_CLOSERS: Final[Mapping[str, str]] = {"{": "}}", "%": "%}", "#": "#}"}
_QUOTE: Final = re.compile("[\"']")
# What ends a string opened by each quote (a backslash escapes the next character).
_STRING_END: Final = {q: re.compile(f"[{q}\\\\\n]") for q in "\"'"}

_Kind: TypeAlias = Literal["text", "output", "block", "comment"]


class Lines:
    """Turns offsets in the body into 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] | None = None  # found when first needed: an error, most often

    def position(self, offset: int) -> tuple[int, int]:
        """The line and column of ``offset``."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self._text)]
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def relocated(self, error: EvaluationError, offset: int) -> EvaluationError:
        """``error``, raised by the expression starting at ``offset``, placed in the body."""
        line, column = self.position(offset + (error.column or 1) - 1)
        return error.located(line=line, column=column)

    def error(self, message: str, offset: int, hint: str | None = None) -> NoReturn:
        """Raise :class:`TemplateError` at ``offset``."""
        line, column = self.position(offset)
        raise TemplateError(message, line=line, column=column, hint=hint)


@dataclass(frozen=True, slots=True)
class Token:
    """A run of text or one tag; ``inner`` is where the tag's content starts."""

    kind: _Kind
    start: int
    inner: int
    content: str


def tokenize(source: str, lines: Lines) -> list[Token]:
    """The runs of text and the tags of ``source``; an unclosed tag is an error."""
    tokens: list[Token] = []
    position = 0
    while (found := OPENER.search(source, position)) is not None:
        if found.start() > position:
            tokens.append(Token("text", position, position, source[position : found.start()]))
        mark = source[found.start() + 1]
        closer = _CLOSERS[mark]
        inner = found.end()
        end = source.find(closer, inner) if mark == "#" else _find_closer(source, inner, closer)
        if end < 0:
            lines.error(
                f"'{found.group()}' is never closed",
                found.start(),
                f"close it with '{closer}'; write a literal '{found.group()}' "
                f'as {{{{ "{found.group()}" }}}}',
            )
        kind: _Kind = "output" if mark == "{" else "block" if mark == "%" else "comment"
        tokens.append(Token(kind, found.start(), inner, source[inner:end]))
        position = end + len(closer)
    if position < len(source):
        tokens.append(Token("text", position, position, source[position:]))
    return tokens


def _find_closer(source: str, start: int, closer: str) -> int:
    """Offset of ``closer`` after ``start``, skipping over quoted strings.

    ``{{ "}}" }}`` closes at the second ``}}``. A string ends at its quote or
    at the end of its line, and a backslash in it escapes the next character.
    When the quotes do not balance, the first ``closer`` is taken and the
    expression compiler reports the broken string.
    """
    first = end = source.find(closer, start)
    index = start
    while end >= 0:
        quote = _QUOTE.search(source, index, end)
        if quote is None:
            return end  # no string opens before this closer: it closes the tag
        string_end = _STRING_END[quote.group()]
        found = string_end.search(source, quote.end())
        while found is not None and found.group() == "\\":
            found = string_end.search(source, found.end() + 1)
        index = len(source) if found is None else found.end()
        if index > end:  # the string ran over that closer: look for the next one
            end = source.find(closer, index)
    return first


def _blank(text: str) -> bool:
    return not text.strip(" \t\r")


def _is_block(token: Token) -> bool:
    return token.kind in ("block", "comment")


def trim_block_lines(tokens: list[Token]) -> list[Token]:
    """Apply the whitespace rule: lines holding only block tags disappear.

    A run of block/comment tags (with only spaces between them) is on a line
    of its own when the text before it, back to a line start, and the text
    after it, up to and including the line end, are blank. Both cuts are
    computed on the original texts, then applied.
    """
    # The span of each text token that stays, as (start, stop) in its content.
    keep = {i: (0, len(t.content)) for i, t in enumerate(tokens) if t.kind == "text"}
    index = 0
    while index < len(tokens):
        if not _is_block(tokens[index]):
            index += 1
            continue
        end = _run_end(tokens, index)
        if _alone_on_line(tokens, index, end):
            _cut_line(tokens, index, end, keep)
        index = end + 1
    return _kept(tokens, keep)


def _run_end(tokens: list[Token], first: int) -> int:
    """The index of the last block tag of the run starting at ``first``: block tags
    separated by nothing but spaces on the same line."""
    last = len(tokens) - 1
    end = first
    for probe in range(first + 1, last + 1):
        token = tokens[probe]
        if _is_block(token):
            end = probe
        elif not (
            token.kind == "text"
            and "\n" not in token.content
            and _blank(token.content)
            and probe < last
            and _is_block(tokens[probe + 1])
        ):
            break
    return end


def _alone_on_line(tokens: list[Token], first: int, end: int) -> bool:
    """Whether the run ``first..end`` has only blank text before it back to a line
    start (or the body's start) and after it up to the line end (or the body's end)."""
    last = len(tokens) - 1
    before = tokens[first - 1] if first > 0 else None
    after = tokens[end + 1] if end < last else None
    left_ok = before is None or (
        before.kind == "text"
        and _blank(before.content.rpartition("\n")[2])
        and ("\n" in before.content or first - 1 == 0)
    )
    right_ok = after is None or (
        after.kind == "text"
        and _blank(after.content.partition("\n")[0])
        and ("\n" in after.content or end + 1 == last)
    )
    return left_ok and right_ok


def _cut_line(tokens: list[Token], first: int, end: int, keep: dict[int, tuple[int, int]]) -> None:
    """Drop the line of the run ``first..end`` from ``keep``: the blanks between its
    tags, the blank text before it on its line, and the rest of its line, line end
    included."""
    for inside in range(first + 1, end):
        keep.pop(inside, None)
    if first > 0:
        start, _ = keep[first - 1]
        keep[first - 1] = (start, tokens[first - 1].content.rfind("\n") + 1)
    if end < len(tokens) - 1:
        after = tokens[end + 1].content
        _, stop = keep[end + 1]
        newline = after.find("\n")
        keep[end + 1] = (len(after) if newline < 0 else newline + 1, stop)


def _kept(tokens: list[Token], keep: dict[int, tuple[int, int]]) -> list[Token]:
    """The tokens with each text token cut to its kept span (dropped when empty)."""
    trimmed: list[Token] = []
    for i, token in enumerate(tokens):
        if token.kind != "text":
            trimmed.append(token)
        elif i in keep:
            start, stop = keep[i]
            if start == 0 and stop == len(token.content):
                trimmed.append(token)
            elif start < stop:
                trimmed.append(replace(token, content=token.content[start:stop]))
    return trimmed
