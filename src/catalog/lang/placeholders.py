"""The ``${...}`` placeholders of text written as a JavaScript template literal.

Imported bodies (Claude Code's prompt parts) carry the runtime's placeholders
as written: ``${GLOB_TOOL_NAME}``, or whole expressions such as
``${A?`x${B}`:""}``. The diff classifies a change made only inside them, and
an overlay binds the simple ones (``${NAME}``) to values. A placeholder runs
from an unescaped ``${`` to the ``}`` that closes it, across strings and
nested template literals; ``\\${`` is text, and a ``${`` that is never closed
is text. Every function here is one pass over the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from catalog.lang.template import Template
from catalog.lang.values import Scope, render_value

__all__ = [
    "bind_placeholders",
    "mask_placeholders",
    "placeholder_spans",
    "placeholders",
    "simple_name",
    "unbound_names",
]

_SIMPLE = re.compile(r"\$\{\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\}")
_SIMPLE_ANYWHERE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def placeholder_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every ``${...}`` placeholder in ``text``, in order."""
    spans: list[tuple[int, int]] = []
    position = 0
    while (start := _next_placeholder(text, position)) >= 0:
        end = _expression_end(text, start + 2)
        if end < 0:
            break
        spans.append((start, end))
        position = end
    return spans


def placeholders(text: str) -> list[str]:
    """The ``${...}`` placeholders in ``text``, verbatim, each once, in order."""
    return list(dict.fromkeys(text[start:end] for start, end in placeholder_spans(text)))


def simple_name(placeholder: str) -> str | None:
    """``NAME`` for a simple ``${NAME}`` placeholder (a JavaScript identifier), else None."""
    found = _SIMPLE.fullmatch(placeholder)
    return found.group(1) if found else None


def mask_placeholders(text: str) -> str:
    """``text`` with every placeholder's expression emptied (``${}``): what is left is
    the prose around them."""
    pieces = []
    position = 0
    for start, end in placeholder_spans(text):
        pieces.append(text[position:start])
        pieces.append("${}")
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _next_placeholder(text: str, position: int) -> int:
    """Where the next unescaped ``${`` starts, or -1 (``\\${`` is text: an odd run of
    backslashes before the ``$`` escapes it)."""
    while (found := text.find("${", position)) >= 0:
        slashes = 0
        while found - slashes > position and text[found - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return found
        position = found + 2
    return -1


def _expression_end(text: str, position: int) -> int:
    """Just after the ``}`` closing the expression that starts at ``position``, or -1."""
    depth = 0
    while position < len(text):
        char = text[position]
        if char in "'\"":
            position = _string_end(text, position + 1, char)
            continue
        if char == "`":
            position = _template_end(text, position + 1)
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return position + 1
            depth -= 1
        position += 1
    return -1


def _string_end(text: str, position: int, quote: str) -> int:
    while position < len(text) and text[position] != quote:
        position += 2 if text[position] == "\\" else 1
    return position + 1


def _template_end(text: str, position: int) -> int:
    """Just after the backtick closing a nested template literal (or the text's end)."""
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
        elif char == "`":
            return position + 1
        elif text.startswith("${", position):
            end = _expression_end(text, position + 2)
            position = len(text) if end < 0 else end
        else:
            position += 1
    return len(text)


def _simple_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, NAME)`` of every unescaped ``${NAME}``, also those nested in a
    larger expression's template literals (``${A?`use ${TOOL}`:""}``)."""
    found = []
    for match in _SIMPLE_ANYWHERE.finditer(text):
        start = match.start()
        slashes = 0
        while start - slashes > 0 and text[start - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            found.append((start, match.end(), match.group(1)))
    return found


def unbound_names(text: str, bound: Mapping[str, object]) -> list[str]:
    """The ``${NAME}`` placeholders of ``text`` (nested ones included) that ``bound``
    leaves as written, each once, in order."""
    names = (name for _, _, name in _simple_spans(text))
    return [n for n in dict.fromkeys(names) if n not in bound]


def bind_placeholders(
    text: str,
    values: Mapping[str, str],
    expressions: Mapping[str, tuple[frozenset[str], Callable[[Scope], Any]]],
) -> Template | None:
    """``text`` with its ``${NAME}`` placeholders filled: from ``values`` (text) or
    ``expressions`` (name -> the root names it reads and its compiled closure,
    rendered when the prompt is assembled), also where one is nested in a larger
    expression's template literal. Placeholders bound by neither, and every
    ``${...}`` that is more than a name, stay as written. None when nothing in
    ``text`` is bound."""
    pieces: list[str | Callable[[Scope], Any]] = []
    names: set[str] = set()
    position = 0
    for start, end, name in _simple_spans(text):
        if name not in values and name not in expressions:
            continue
        pieces.append(text[position:start])
        if name in values:
            pieces.append(values[name])
        else:
            reads, run = expressions[name]
            names |= reads
            pieces.append(run)
        position = end
    if not pieces:
        return None
    pieces.append(text[position:])
    if all(isinstance(piece, str) for piece in pieces):
        # Not marked static: a static template stands for the body as written.
        filled = "".join(str(piece) for piece in pieces)
        return Template(text, frozenset(), False, lambda scope: filled)

    def render(scope: Scope) -> str:
        return "".join(
            piece if isinstance(piece, str) else render_value(piece(scope)) for piece in pieces
        )

    return Template(text, frozenset(names), False, render)
