"""The placeholders of raw text: ``${...}`` as in a JavaScript template literal, and
the simple ``{{ NAME }}`` and ``{NAME}`` other sources write.

Imported bodies (Claude Code's prompt parts) carry the runtime's placeholders
as written: ``${GLOB_TOOL_NAME}``, or whole expressions such as
``${A?`x${B}`:""}``. The diff compares what they say, token by token
(:func:`placeholder_tokens`: names, numbers, punctuation, and the text of their
strings as the runtime decodes it), and an overlay binds the simple ones
(``${NAME}``) to values. A placeholder runs
from an unescaped ``${`` to the ``}`` that closes it, across strings and
nested template literals; ``\\${`` is text, and a ``${`` that is never closed
is text. Every function here is one pass over the text.

Other sources write their placeholders otherwise (:data:`PlaceholderSyntax`):
Codex's templates ``{{ NAME }}`` (``double-brace``), Python's format strings
``{NAME}`` (``single-brace``). A raw part says which its body uses, so that
:func:`unbound_names` and :func:`bind_placeholders` find its names in any of
them; only ``${...}`` has whole expressions and escapes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, NamedTuple

from catalog.lang.template import Template
from catalog.lang.values import Scope, render_value

__all__ = [
    "PLACEHOLDER_SYNTAXES",
    "PlaceholderSyntax",
    "Token",
    "bind_placeholders",
    "mask_placeholders",
    "placeholder_spans",
    "placeholder_tokens",
    "placeholders",
    "simple_name",
    "unbound_names",
    "written_as",
]

_SIMPLE = re.compile(r"\$\{\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\}")

PlaceholderSyntax = Literal["dollar-brace", "double-brace", "single-brace"]
"""How a raw body writes a placeholder named ``NAME``: ``${NAME}``, ``{{ NAME }}``
(spaces inside optional) or ``{NAME}``."""

# Each pattern is a run of fixed pieces whose neighbours share no character, so a
# failed match costs one scan of the name that started it: linear in the text.
_NAMED: Final[dict[PlaceholderSyntax, re.Pattern[str]]] = {
    "dollar-brace": re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}"),
    "double-brace": re.compile(r"\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\}\}"),
    "single-brace": re.compile(r"(?<![{$])\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})"),
}
PLACEHOLDER_SYNTAXES: Final = tuple(_NAMED)
"""The placeholder syntaxes a raw part may declare, the default first."""
_WRITTEN: Final[dict[PlaceholderSyntax, str]] = {
    "dollar-brace": "${{{}}}",
    "double-brace": "{{{{ {} }}}}",
    "single-brace": "{{{}}}",
}


def written_as(name: str, syntax: PlaceholderSyntax = "dollar-brace") -> str:
    """The placeholder ``name`` as a body of ``syntax`` writes it (``{{ NAME }}``)."""
    return _WRITTEN[syntax].format(name)


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


class Token(NamedTuple):
    """One token of a placeholder's code: ``code`` (a run of name characters, one
    punctuation character, or the ``${`` and ``}`` around an expression nested in a
    template literal) or ``text`` (a string literal's text, or a piece of a template
    literal's text, escapes decoded: ``"\\x41"`` is ``A``)."""

    kind: Literal["code", "text"]
    value: str


def placeholder_tokens(text: str) -> list[Token]:
    """The tokens of every placeholder in ``text``, in order; spacing between code
    tokens is left out, and quote marks are not tokens (``'x'`` and ``"x"`` read alike).

    A run of name characters is everything between spacing and ASCII punctuation
    (``_`` and ``$`` excepted): letters, digits, and also any control or
    non-ASCII character, so that nothing inside ``${...}`` escapes comparison.
    """
    found: list[Token] = []
    position = 0
    while (start := _next_placeholder(text, position)) >= 0:
        before = len(found)
        end = _expression_end(text, start + 2, found)
        if end < 0:  # never closed: text, and nothing it held counts
            del found[before:]
            break
        position = end
    return found


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


_TEMPLATE_TEXT = -1
_SPACING = frozenset(" \t\n")
# Outside string and template literals, these end a run of name characters.
_CODE_BREAKS = _SPACING | frozenset("!%&()*+,-./:;<=>?@[]^|~#\\'\"`{}")


def _expression_end(text: str, position: int, found: list[Token] | None = None) -> int:
    """Just after the ``}`` closing the expression that starts at ``position``, or -1.

    One pass with a stack of open levels (code with its brace depth, or a template
    literal's text), never recursion, however deep the nesting. With ``found``,
    the expression's tokens (see :func:`placeholder_tokens`) are added to it.
    """
    scan = _Scan(text, found, position)
    while position < len(text):
        if scan.stack[-1] == _TEMPLATE_TEXT:
            position = scan.template_text(position)
        else:
            position = scan.code(position)
            if not scan.stack:
                return position
    return -1


class _Scan:
    """The state of :func:`_expression_end`: each open level (the brace depth of code,
    or :data:`_TEMPLATE_TEXT`), where the current template literal's text started, and
    the tokens found (when asked for)."""

    def __init__(self, text: str, found: list[Token] | None, start: int) -> None:
        self.text = text
        self.found = found
        self.stack = [0]
        self.piece = start

    def _emit(self, kind: Literal["code", "text"], value: str) -> None:
        if self.found is not None:
            self.found.append(Token(kind, value))

    def template_text(self, position: int) -> int:
        """Read on from ``position`` in a template literal's text: the next position."""
        text = self.text
        char = text[position]
        if char == "\\":
            return position + 2
        if char != "`" and not text.startswith("${", position):
            return position + 1
        self._emit("text", _decode(text[self.piece : position]))
        if char == "`":
            self.stack.pop()
            return position + 1
        self.stack.append(0)
        self._emit("code", "${")
        return position + 2

    def code(self, position: int) -> int:
        """Read on from ``position`` in code: the next position (just after the closing
        ``}`` when the expression ends there, leaving the stack empty)."""
        text = self.text
        char = text[position]
        if char not in _CODE_BREAKS:
            end = position
            while end < len(text) and text[end] not in _CODE_BREAKS:
                end += 1
            self._emit("code", text[position:end])
            return end
        if char in "'\"":
            end = _string_end(text, position + 1, char)
            self._emit("text", _decode(text[position + 1 : end - 1]))
            return end
        self._bracket(char, position)
        if self.stack and char not in _SPACING and char != "`":
            self._emit("code", char)
        return position + 1

    def _bracket(self, char: str, position: int) -> None:
        """Open or close a level for ``char`` (a backquote or a brace) at ``position``."""
        stack = self.stack
        if char == "`":
            stack.append(_TEMPLATE_TEXT)
            self.piece = position + 1
        elif char == "{":
            stack[-1] += 1
        elif char == "}" and stack[-1] == 0:
            stack.pop()
            self.piece = position + 1  # back in a template literal's text, if any
        elif char == "}":
            stack[-1] -= 1


def _string_end(text: str, position: int, quote: str) -> int:
    """Just after the ``quote`` closing a string literal whose text starts at ``position``."""
    while position < len(text) and text[position] != quote:
        position += 2 if text[position] == "\\" else 1
    return position + 1


# A JavaScript escape: fixed alternatives of bounded length after a backslash, so a
# match costs constant time wherever it is tried.
_ESCAPE = re.compile(
    r"\\(u\{[0-9A-Fa-f]{1,6}\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|0(?![0-9])|.)", re.S
)
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "0": "\0",
    "\n": "",
}


def _unescape(match: re.Match[str]) -> str:
    escape = match.group(1)
    if escape[0] in "ux" and len(escape) > 1:
        code = int(escape.strip("u{}x"), 16)
        return chr(code) if code <= 0x10FFFF else match.group()
    return _SIMPLE_ESCAPES.get(escape, escape)


def _decode(raw: str) -> str:
    """A string literal's text as the runtime reads it: escapes (``\\n``, ``\\x41``,
    ``\\u0041``, ``\\u{1F600}``) decoded, a surrogate pair joined into its character."""
    if "\\" not in raw:
        return raw
    decoded = _ESCAPE.sub(_unescape, raw)
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def _simple_spans(text: str, syntax: PlaceholderSyntax) -> list[tuple[int, int, str]]:
    """``(start, end, NAME)`` of every placeholder of ``syntax`` that is a name: for
    ``${NAME}``, every unescaped one, also those nested in a larger expression's
    template literals (``${A?`use ${TOOL}`:""}``)."""
    found = []
    for match in _NAMED[syntax].finditer(text):
        start = match.start()
        if syntax != "dollar-brace":
            found.append((start, match.end(), match.group(1)))
            continue
        slashes = 0
        while start - slashes > 0 and text[start - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            found.append((start, match.end(), match.group(1)))
    return found


def unbound_names(
    text: str, bound: Mapping[str, object], syntax: PlaceholderSyntax = "dollar-brace"
) -> list[str]:
    """The names of the placeholders of ``syntax`` in ``text`` (nested ``${NAME}``
    included) that ``bound`` leaves as written, each once, in order."""
    names = (name for _, _, name in _simple_spans(text, syntax))
    return [n for n in dict.fromkeys(names) if n not in bound]


def bind_placeholders(
    text: str,
    values: Mapping[str, str],
    expressions: Mapping[str, tuple[frozenset[str], Callable[[Scope], Any]]],
    syntax: PlaceholderSyntax = "dollar-brace",
) -> Template | None:
    """``text`` with its placeholders of ``syntax`` that are names filled (``${NAME}``,
    ``{{ NAME }}`` or ``{NAME}``): from ``values`` (text) or
    ``expressions`` (name -> the root names it reads and its compiled closure,
    rendered when the prompt is assembled), also where one is nested in a larger
    expression's template literal. Placeholders bound by neither, and every
    ``${...}`` that is more than a name, stay as written. None when nothing in
    ``text`` is bound."""
    pieces: list[str | Callable[[Scope], Any]] = []
    names: set[str] = set()
    position = 0
    for start, end, name in _simple_spans(text, syntax):
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
