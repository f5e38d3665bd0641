"""The bracket dialect: user-written templates such as ``Today is [system:date].``

Part bodies are written by catalog authors in the template language of
:mod:`catalog.lang.template`. Some agents also let their *users* write a system
prompt template, in a smaller syntax that is forgiving by design: a user's
typo must never stop the agent. This module renders such templates::

    [type:name]                      the value bound to type:name
    [if type:name] ... [endif]       kept when the value is non-empty
    [if !type:name] ... [else] ... [endif]
                                     negation, an optional else, any nesting

Values come from a mapping of bindings (``{"system:date": "2025-01-31"}``).
A *dynamic type* is bound with a key that ends in a colon and maps names to
values: with ``{"file:": {"AGENTS.md": "..."}}``, ``[file:AGENTS.md]`` is that
file's text. Spaces ending a name are ignored: ``[if git:branch ]`` is
``[if git:branch]``. An unknown type or a missing name renders as nothing (and
is false in ``[if]``). What ``[if]`` tests is chosen by the caller: by default
a value holds when it is not blank; with ``defined=True`` when it is not none,
so an empty file or a clean ``git status`` exists and only a missing value
does not (an agent whose resolver maps "not existing" to null). A tag
without its partner (``[endif]`` alone, an ``[if]`` never closed, a second
``[else]``) stays in the text as written.
Values are data: they are inserted as they are and never read again as
template.

A line holding nothing but one ``[if]``, ``[else]`` or ``[endif]`` tag
disappears with its line end, so a template can put its tags on lines of
their own.

Hostile templates: tags are found by one hand-written left-to-right scan (no
backtracking regular expression), so parsing is linear in the template's
length; a template longer than :data:`MAX_TEMPLATE_LENGTH` (256 KiB) or an
output longer than ``max_output`` (10 million characters by default) raises
:class:`~catalog.errors.EvaluationError` instead of rendering.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from catalog.errors import EvaluationError

__all__ = [
    "MAX_NESTING",
    "MAX_OUTPUT_LENGTH",
    "MAX_TEMPLATE_LENGTH",
    "MAX_TYPE_LENGTH",
    "find_references",
    "render_brackets",
]

MAX_NESTING: Final = 32
"""Deepest nesting of ``[if]`` blocks; deeper ones stay literal text."""
MAX_TEMPLATE_LENGTH: Final = 256 * 1024
"""Longest template rendered, in characters; a longer one is refused."""
MAX_OUTPUT_LENGTH: Final = 10_000_000
"""Longest output of one render by default, in characters."""

MAX_TYPE_LENGTH: Final = 64
"""Longest type in ``[type:name]``; a longer one is not a tag."""

_TYPE: Final = re.compile(r"[a-z][a-z0-9_]*")  # fullmatch on at most MAX_TYPE_LENGTH characters


@dataclass(frozen=True, slots=True)
class _Tag:
    kind: str  # "if" | "else" | "endif" | "var"
    start: int
    end: int
    negate: bool = False
    type: str = ""
    name: str = ""


@dataclass(slots=True)
class _If:
    tag: _Tag
    then: list[_Piece]
    orelse: list[_Piece] | None = None


_Piece: TypeAlias = "str | _Tag | _If"


def _tags(text: str) -> list[_Tag]:
    """Every tag of ``text``, in one left-to-right pass (no backtracking regex).

    A tag is ``[`` ... ``]`` on one line. Each ``[`` is looked at once: its
    closing ``]`` and the next line end come from pointers that only move
    forward, and its type is looked for in at most :data:`MAX_TYPE_LENGTH`
    characters, so the whole scan is linear in the length of ``text``.
    """
    found: list[_Tag] = []
    size = len(text)
    close = newline = -1
    start = text.find("[")
    while start >= 0:
        if close <= start:
            close = text.find("]", start + 1)
            if close < 0:
                break  # no "]" after this point: no more tags
        if newline <= start:
            newline = text.find("\n", start + 1)
            if newline < 0:
                newline = size
        # Every tag starts with a lowercase letter ("if", "else", "endif", a type).
        lead = text[start + 1]
        tag = _tag(text, start, close) if close < newline and "a" <= lead <= "z" else None
        if tag is not None:
            found.append(tag)
        start = text.find("[", close + 1 if tag is not None else start + 1)
    return found


def _tag(text: str, start: int, close: int) -> _Tag | None:
    """The tag ``text[start : close + 1]``, or None when it is not one."""
    if close - start <= 6:
        inner = text[start + 1 : close]
        if inner == "else" or inner == "endif":
            return _Tag(inner, start, close + 1)
    if text.startswith("if ", start + 1):
        at = start + 4
        while at < close and text[at] == " ":
            at += 1
        negate = at < close and text[at] == "!"
        parsed = _type_name(text, at + negate, close)
        if parsed is not None:
            return _Tag("if", start, close + 1, negate, *parsed)
    parsed = _type_name(text, start + 1, close)
    return _Tag("var", start, close + 1, False, *parsed) if parsed is not None else None


def _type_name(text: str, at: int, close: int) -> tuple[str, str] | None:
    """``(type, name)`` of ``type:name`` at ``text[at:close]``; None when malformed.

    The type is ``[a-z][a-z0-9_]*`` (at most :data:`MAX_TYPE_LENGTH` characters,
    so looking for its colon costs a bounded time); the name starts with a
    character that is neither ``]`` nor a space and runs to ``close``; spaces
    ending it are dropped.
    """
    colon = text.find(":", at, min(close - 1, at + MAX_TYPE_LENGTH + 1))
    if colon < 0 or text[colon + 1].isspace() or _TYPE.fullmatch(text, at, colon) is None:
        return None
    return text[at:colon], text[colon + 1 : close].rstrip()


def _matched(tags: list[_Tag]) -> set[int]:
    """Indices of the control tags that have their partners; the rest stay literal."""
    stack: list[tuple[int, int | None]] = []
    matched: set[int] = set()
    for index, tag in enumerate(tags):
        if tag.kind == "if":
            stack.append((index, None))
        elif tag.kind == "else" and stack and stack[-1][1] is None:
            stack[-1] = (stack[-1][0], index)
        elif tag.kind == "endif" and stack:
            opener, orelse = stack.pop()
            if len(stack) < MAX_NESTING:
                matched.update(i for i in (opener, orelse, index) if i is not None)
    return matched


class _LineSpans:
    """The span to cut for each control tag, asked in text order: the tag's whole
    line when it stands alone on it, else the tag itself.

    The line start, the line end and the first non-blank character of the line
    are remembered between questions, so all the questions together cost one
    pass over the text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_start = 0
        self.scanned = 0  # the text before this offset has been searched for line ends
        self.first_solid = _skip_blanks(text, 0, " \t")  # the line's first non-blank

    def span(self, tag: _Tag) -> tuple[int, int]:
        text = self.text
        newline = text.rfind("\n", self.scanned, tag.start)
        if newline >= 0:
            self.line_start = newline + 1
            self.first_solid = _skip_blanks(text, self.line_start, " \t")
        self.scanned = tag.start
        if self.first_solid < tag.start:
            return tag.start, tag.end
        after = _skip_blanks(text, tag.end, " \t\r")
        if after < len(text) and text[after] != "\n":
            return tag.start, tag.end
        return self.line_start, min(after + 1, len(text))


def _skip_blanks(text: str, at: int, blanks: str) -> int:
    """The offset of the first character at or after ``at`` that is not in ``blanks``."""
    while at < len(text) and text[at] in blanks:
        at += 1
    return at


def _parse(text: str) -> list[_Piece]:
    tags = _tags(text)
    matched = _matched(tags)
    lines = _LineSpans(text)
    root: list[_Piece] = []
    stack: list[tuple[_If, list[_Piece]]] = []
    current = root
    position = 0
    for index, tag in enumerate(tags):
        control = tag.kind != "var"
        if control and index not in matched:
            continue  # left in the text as written
        start, end = lines.span(tag) if control else (tag.start, tag.end)
        start = max(start, position)
        if start > position:
            current.append(text[position:start])
        position = max(position, end)
        if tag.kind == "var":
            current.append(tag)
        elif tag.kind == "if":
            block = _If(tag, [])
            current.append(block)
            stack.append((block, current))
            current = block.then
        elif tag.kind == "else":
            block = stack[-1][0]
            block.orelse = []
            current = block.orelse
        else:
            current = stack.pop()[1]
    if position < len(text):
        current.append(text[position:])
    return root


def _lookup(bindings: Mapping[str, Any], type_: str, name: str) -> Any:
    key = f"{type_}:{name}"
    if key in bindings:
        return bindings[key]
    dynamic = bindings.get(f"{type_}:")
    if isinstance(dynamic, Mapping):
        return dynamic.get(name)
    return None


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    return bool(value)


def _defined(value: Any) -> bool:
    return value is not None


def render_brackets(
    text: str,
    bindings: Mapping[str, Any],
    render: Callable[[Any], str] = str,
    *,
    max_output: int = MAX_OUTPUT_LENGTH,
    defined: bool = False,
) -> str:
    """Render the bracket template ``text`` against ``bindings``; see the module docstring.

    ``render`` turns a bound value into text (none is always empty); with
    ``defined``, ``[if]`` holds for every value but none, blank ones included.
    A template longer than :data:`MAX_TEMPLATE_LENGTH` characters, or an
    output that would pass ``max_output`` characters, raises
    :class:`EvaluationError`.
    """
    if len(text) > MAX_TEMPLATE_LENGTH:
        raise EvaluationError(
            f"the bracket template is {len(text)} characters long, more than the limit "
            f"of {MAX_TEMPLATE_LENGTH}"
        )
    holds_for = _defined if defined else _truthy
    out: list[str] = []
    size = 0

    def write(piece: str) -> None:
        nonlocal size
        size += len(piece)
        if size > max_output:
            raise EvaluationError(
                f"the rendered bracket template would be longer than {max_output} characters"
            )
        out.append(piece)

    def emit(pieces: list[_Piece]) -> None:
        for piece in pieces:
            if isinstance(piece, str):
                write(piece)
            elif isinstance(piece, _Tag):
                value = _lookup(bindings, piece.type, piece.name)
                if value is not None:
                    write(render(value))
            else:
                tag = piece.tag
                holds = holds_for(_lookup(bindings, tag.type, tag.name)) != tag.negate
                if holds:
                    emit(piece.then)
                elif piece.orelse is not None:
                    emit(piece.orelse)

    emit(_parse(text))
    return "".join(out)


def find_references(text: str, type_: str) -> list[str]:
    """The names a template uses with ``type_`` (``[file:X]``, ``[if !file:X]``), in order."""
    names: dict[str, None] = {}
    for tag in _tags(text):
        if tag.kind in ("var", "if") and tag.type == type_:
            names.setdefault(tag.name)
    return list(names)
