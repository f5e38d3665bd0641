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
their own. Rendering is one pass over the text: its time and output are
bounded by the size of the template and of the values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

__all__ = ["MAX_NESTING", "find_references", "render_brackets"]

MAX_NESTING: Final = 32
"""Deepest nesting of ``[if]`` blocks; deeper ones stay literal text."""

_NAME = r"([a-z][a-z0-9_]*):([^\]\s][^\]\n]*)"
_TAG: Final = re.compile(rf"\[(?:if +(!?){_NAME}|(else)|(endif)|{_NAME})\]")


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
    found = []
    for m in _TAG.finditer(text):
        negate, if_type, if_name, is_else, is_endif, var_type, var_name = m.groups()
        if if_type is not None:
            found.append(_Tag("if", m.start(), m.end(), negate == "!", if_type, if_name.rstrip()))
        elif is_else:
            found.append(_Tag("else", m.start(), m.end()))
        elif is_endif:
            found.append(_Tag("endif", m.start(), m.end()))
        else:
            found.append(_Tag("var", m.start(), m.end(), False, var_type, var_name.rstrip()))
    return found


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


def _line_span(text: str, tag: _Tag) -> tuple[int, int]:
    """The span to cut for a control tag: its whole line when it stands alone on it."""
    line_start = text.rfind("\n", 0, tag.start) + 1
    line_end = text.find("\n", tag.end)
    stop = len(text) if line_end < 0 else line_end + 1
    before, after = text[line_start : tag.start], text[tag.end : stop]
    if not before.strip(" \t") and not after.strip(" \t\r\n"):
        return line_start, stop
    return tag.start, tag.end


def _parse(text: str) -> list[_Piece]:
    tags = _tags(text)
    matched = _matched(tags)
    root: list[_Piece] = []
    stack: list[tuple[_If, list[_Piece]]] = []
    current = root
    position = 0
    for index, tag in enumerate(tags):
        control = tag.kind != "var"
        if control and index not in matched:
            continue  # left in the text as written
        start, end = _line_span(text, tag) if control else (tag.start, tag.end)
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
    defined: bool = False,
) -> str:
    """Render the bracket template ``text`` against ``bindings``; see the module docstring.

    ``render`` turns a bound value into text (none is always empty); with
    ``defined``, ``[if]`` holds for every value but none, blank ones included.
    """
    holds_for = _defined if defined else _truthy
    out: list[str] = []

    def emit(pieces: list[_Piece]) -> None:
        for piece in pieces:
            if isinstance(piece, str):
                out.append(piece)
            elif isinstance(piece, _Tag):
                value = _lookup(bindings, piece.type, piece.name)
                if value is not None:
                    out.append(render(value))
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
    names: list[str] = []
    for tag in _tags(text):
        if tag.kind in ("var", "if") and tag.type == type_ and tag.name not in names:
            names.append(tag.name)
    return names
