"""Part bodies: placeholders and inline blocks, compiled once.

A part body is text with a few tags, in a syntax close to Jinja's but our
own (and much smaller)::

    {{ expr }}                      the value of an expression, written as text
    {% if expr %} ... {% elif expr %} ... {% else %} ... {% endif %}
    {% for name in expr %} ... {% endfor %}
    {# a comment #}                 removed

Expressions are those of :mod:`catalog.lang`, checked against the same
names. A value is written with :func:`catalog.lang.render_value` and is
*data*: it is inserted as it is and never read again as template, so a
CLAUDE.md holding ``{{ x }}`` comes out unchanged. A literal ``{{`` is
written ``{{ "{{" }}``.

Inside a ``for`` block the loop variable has the item shape of the iterated
value, and ``loop`` is a record with ``index`` (from 1), ``index0`` (from 0),
``first``, ``last`` and ``length``. Iterating none gives nothing; iterating a
value that is not a collection raises :class:`EvaluationError`.

Whitespace: a line holding only block tags (``{% ... %}`` or ``{# ... #}``)
and spaces or tabs disappears entirely, its line end included (Jinja's
``trim_blocks`` plus ``lstrip_blocks``), so a Markdown body can put its tags
on lines of their own and stay readable. Tags that share a line with text
or with a ``{{ }}`` leave the text as it is.

Errors are :class:`TemplateError` with the 1-based ``line`` and ``column`` in
the body: an unclosed tag, an unknown tag, an ``elif``/``else``/``endif``/
``endfor`` without its opener, a block left open (at the line of its opener),
a malformed ``for``, blocks nested deeper than :data:`MAX_BLOCK_DEPTH` (32),
and any expression error, placed where the expression sits in the body.
Evaluation errors while rendering carry the same position.

Limits while rendering: at most :data:`MAX_LOOP_ITERATIONS` (100 000) loop
iterations and :data:`MAX_OUTPUT_LENGTH` (10 million) characters of output
per render, so nested loops over large data cannot hang the process or
exhaust its memory.

The body is compiled once into a tree of closures; a body without any tag is
returned as it is.
"""

from __future__ import annotations

import bisect
import keyword
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, NoReturn, TypeAlias

from catalog.errors import EvaluationError, ExpressionError, TemplateError
from catalog.lang.compiler import Expression, ExpressionCache
from catalog.lang.shapes import SCALAR, RecordShape, Shape, did_you_mean
from catalog.lang.values import (
    ITEM_COST,
    MAX_TEXT_LENGTH,
    Scope,
    budgeted,
    charge,
    iterate,
    render_value,
)

__all__ = [
    "LOOP_SHAPE",
    "MAX_BLOCK_DEPTH",
    "MAX_LOOP_ITERATIONS",
    "MAX_OUTPUT_LENGTH",
    "Template",
    "compile_template",
]

MAX_BLOCK_DEPTH: Final = 32
"""Deepest nesting of ``if``/``for`` blocks."""
MAX_LOOP_ITERATIONS: Final = 100_000
"""Most loop iterations, all loops together, in one render."""
MAX_OUTPUT_LENGTH: Final = MAX_TEXT_LENGTH
"""Longest output of one render, in characters."""

LOOP_SHAPE: Final = RecordShape(
    {"index": SCALAR, "index0": SCALAR, "first": SCALAR, "last": SCALAR, "length": SCALAR},
    "loop",
)
"""The shape of ``loop`` inside a ``for`` block."""

_TAGS: Final = ("if", "elif", "else", "endif", "for", "endfor")
_OPENER: Final = re.compile(r"\{[{%#]")
_CLOSERS: Final[Mapping[str, str]] = {"{": "}}", "%": "%}", "#": "#}"}
_RESERVED: Final = frozenset({"true", "false", "none", "loop"})
_KEYWORD: Final = re.compile(r"\s*(\w*)")
_FOR: Final = re.compile(r"\s*(\S+)\s+in\s+(.*)", re.DOTALL)
_QUOTE: Final = re.compile("[\"']")
# What ends a string opened by each quote (a backslash escapes the next character).
_STRING_END: Final = {q: re.compile(f"[{q}\\\\\n]") for q in "\"'"}

_Kind: TypeAlias = Literal["text", "output", "block", "comment"]


class _Output:
    """The pieces of one render, with its iteration and size budget."""

    __slots__ = ("iterations", "parts", "size")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.iterations = 0

    def write(self, text: str) -> None:
        """Add ``text`` to the output, within :data:`MAX_OUTPUT_LENGTH`."""
        self.size += len(text)
        charge(len(text))
        if self.size > MAX_OUTPUT_LENGTH:
            raise EvaluationError(
                f"the rendered body would be longer than {MAX_OUTPUT_LENGTH} characters"
            )
        self.parts.append(text)

    def tick(self) -> None:
        """Count one loop iteration against :data:`MAX_LOOP_ITERATIONS`."""
        self.iterations += 1
        charge(ITEM_COST)
        if self.iterations > MAX_LOOP_ITERATIONS:
            raise EvaluationError(f"more than {MAX_LOOP_ITERATIONS} loop iterations in one render")


_Render: TypeAlias = Callable[[Scope, _Output], None]


@dataclass(frozen=True, slots=True)
class Template:
    """A compiled part body; ``render(scope)`` fills it from a scope.

    ``names`` holds the root names the body reads (loop variables excluded);
    ``is_static`` is true when the body has no tag at all, in which case
    ``render`` returns ``source`` itself. ``render`` is the compiled closure
    itself (as :attr:`Expression.evaluate <catalog.lang.Expression.evaluate>`
    is), run under the evaluation budget of :mod:`catalog.lang.values`. It raises
    :class:`EvaluationError` (with the body line and column) when a value does
    not fit the operation applied to it.
    """

    source: str
    names: frozenset[str]
    is_static: bool
    render: Callable[[Scope], str] = field(repr=False, compare=False)


def compile_template(
    source: str, names: Mapping[str, Shape], expressions: ExpressionCache | None = None
) -> Template:
    """Parse and compile a part body once; raises :class:`TemplateError` when malformed.

    ``expressions`` shares compiled expressions between the bodies of one catalog.
    """
    if _OPENER.search(source) is None:
        return Template(source, frozenset(), True, lambda scope: source)
    lines = _Lines(source)
    tokens = _trim_block_lines(_tokenize(source, lines))
    compiler = _Compiler(lines, names, expressions or ExpressionCache())
    run = compiler.compile(tokens)
    if isinstance(run, str):
        text = run
        return Template(source, frozenset(compiler.used), False, lambda scope: text)

    def render(scope: Scope) -> str:
        out = _Output()
        run(scope, out)
        return "".join(out.parts)

    return Template(source, frozenset(compiler.used), False, budgeted(render, "the body"))


# --------------------------------------------------------------------------
# Lexing


class _Lines:
    """Turns offsets in the body into 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] | None = None  # found when first needed: an error, most often

    def position(self, offset: int) -> tuple[int, int]:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self._text)]
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def relocated(self, error: EvaluationError, offset: int) -> EvaluationError:
        """``error``, raised by the expression starting at ``offset``, placed in the body."""
        line, column = self.position(offset + (error.column or 1) - 1)
        return error.located(line=line, column=column)

    def error(self, message: str, offset: int, hint: str | None = None) -> NoReturn:
        line, column = self.position(offset)
        raise TemplateError(message, line=line, column=column, hint=hint)


@dataclass(frozen=True, slots=True)
class _Token:
    """A run of text or one tag; ``inner`` is where the tag's content starts."""

    kind: _Kind
    start: int
    inner: int
    content: str


def _tokenize(source: str, lines: _Lines) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while (found := _OPENER.search(source, position)) is not None:
        if found.start() > position:
            tokens.append(_Token("text", position, position, source[position : found.start()]))
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
        tokens.append(_Token(kind, found.start(), inner, source[inner:end]))
        position = end + len(closer)
    if position < len(source):
        tokens.append(_Token("text", position, position, source[position:]))
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


def _is_block(token: _Token) -> bool:
    return token.kind in ("block", "comment")


def _trim_block_lines(tokens: list[_Token]) -> list[_Token]:
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


def _run_end(tokens: list[_Token], first: int) -> int:
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


def _alone_on_line(tokens: list[_Token], first: int, end: int) -> bool:
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


def _cut_line(tokens: list[_Token], first: int, end: int, keep: dict[int, tuple[int, int]]) -> None:
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


def _kept(tokens: list[_Token], keep: dict[int, tuple[int, int]]) -> list[_Token]:
    """The tokens with each text token cut to its kept span (dropped when empty)."""
    trimmed: list[_Token] = []
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


# --------------------------------------------------------------------------
# Compiling


class _Frame:
    """An open block while compiling: its branches so far and what it binds."""

    __slots__ = (
        "bound",
        "branches",
        "has_else",
        "kind",
        "names",
        "pieces",
        "start",
        "test",
        "variable",
    )

    def __init__(
        self,
        kind: Literal["root", "if", "for"],
        start: int,
        names: Mapping[str, Shape],
        bound: frozenset[str],
    ) -> None:
        self.kind = kind
        self.start = start
        self.names = names
        self.bound = bound
        self.pieces: list[str | _Render] = []
        self.branches: list[tuple[Expression, int, str | _Render]] = []
        self.test: tuple[Expression, int] | None = None
        self.has_else = False
        self.variable = ""


class _Compiler:
    """Turns the token list into one render closure, checking every tag."""

    def __init__(
        self, lines: _Lines, names: Mapping[str, Shape], expressions: ExpressionCache
    ) -> None:
        self._lines = lines
        self._expressions = expressions
        self._stack = [_Frame("root", 0, names, frozenset())]
        self.used: set[str] = set()

    def compile(self, tokens: list[_Token]) -> str | _Render:
        for token in tokens:
            frame = self._stack[-1]
            if token.kind == "text":
                frame.pieces.append(token.content)
            elif token.kind == "output":
                expression = self._expression(token.content, token.inner, frame)
                frame.pieces.append(self._output(expression, token.inner))
            elif token.kind == "block":
                self._block(token)
        if len(self._stack) > 1:
            frame = self._stack[-1]
            closer = "endif" if frame.kind == "if" else "endfor"
            line, _ = self._lines.position(frame.start)
            self._lines.error(
                f"the '{frame.kind}' block opened on line {line} is never closed",
                frame.start,
                f"add {{% {closer} %}}",
            )
        return _sequence(self._stack[0].pieces)

    # -- tags

    def _block(self, token: _Token) -> None:
        found = _KEYWORD.match(token.content)
        word = found.group(1) if found else ""
        rest = token.content[found.end() if found else 0 :]
        offset = token.inner + (found.end() if found else 0)
        if word == "if":
            self._open("if", token, lambda frame: self._begin_if(frame, rest, offset))
        elif word == "for":
            self._open("for", token, lambda frame: self._begin_for(frame, rest, offset))
        elif word == "elif":
            frame = self._inside("if", word, token)
            if frame.has_else:
                self._lines.error("'elif' after 'else'", token.start)
            self._next_branch(frame)
            frame.test = (self._expression(rest, offset, frame), offset)
        elif word == "else":
            self._no_argument(word, rest, token, "write {% elif condition %}")
            frame = self._inside("if", word, token)
            if frame.has_else:
                self._lines.error("a second 'else' in the same 'if'", token.start)
            self._next_branch(frame)
            frame.has_else = True
        elif word in ("endif", "endfor"):
            self._no_argument(word, rest, token, None)
            self._close(self._inside(word[3:], word, token))
        elif not token.content.strip():
            self._lines.error("empty tag", token.start, f"tags: {', '.join(_TAGS)}")
        else:
            written = word or token.content.split()[0]
            hint = did_you_mean(written, _TAGS, what="tags")
            if written[0] in "-+":
                hint = (
                    f"whitespace control is not supported (lines holding only tags vanish); {hint}"
                )
            self._lines.error(f"unknown tag '{written}'", token.start, hint)

    def _open(
        self, kind: Literal["if", "for"], token: _Token, begin: Callable[[_Frame], None]
    ) -> None:
        if len(self._stack) > MAX_BLOCK_DEPTH:
            self._lines.error(f"blocks are nested more than {MAX_BLOCK_DEPTH} deep", token.start)
        outer = self._stack[-1]
        frame = _Frame(kind, token.start, outer.names, outer.bound)
        begin(frame)
        self._stack.append(frame)

    def _begin_if(self, frame: _Frame, rest: str, offset: int) -> None:
        frame.test = (self._expression(rest, offset, frame), offset)

    def _begin_for(self, frame: _Frame, rest: str, offset: int) -> None:
        found = _FOR.fullmatch(rest)
        if found is None:
            self._lines.error("malformed 'for': expected {% for NAME in EXPRESSION %}", frame.start)
        variable = found.group(1)
        at = offset + found.start(1)
        if not variable.isidentifier() or keyword.iskeyword(variable):
            self._lines.error(f"'{variable}' is not a valid loop variable name", at)
        if variable.startswith("_") or variable in _RESERVED:
            self._lines.error(f"'{variable}' cannot be a loop variable name", at)
        iterable = self._expression(found.group(2), offset + found.start(2), frame)
        try:
            item = iterable.shape.element(where=iterable.source.strip())
        except ExpressionError as exc:
            self._lines.error(exc.message, offset + found.start(2), exc.hint)
        frame.test = (iterable, offset + found.start(2))
        frame.variable = variable
        frame.names = {**frame.names, variable: item, "loop": LOOP_SHAPE}
        frame.bound = frame.bound | {variable, "loop"}

    def _inside(self, kind: str, word: str, token: _Token) -> _Frame:
        frame = self._stack[-1]
        if frame.kind == kind:
            return frame
        if frame.kind == "root":
            self._lines.error(f"'{word}' without a matching '{kind}'", token.start)
        line, _ = self._lines.position(frame.start)
        closer = "endif" if frame.kind == "if" else "endfor"
        self._lines.error(
            f"'{word}' found, but the open block is the '{frame.kind}' of line {line}",
            token.start,
            f"close that block with {{% {closer} %}} first",
        )

    def _no_argument(self, word: str, rest: str, token: _Token, hint: str | None) -> None:
        if rest.strip():
            self._lines.error(f"'{word}' takes nothing after it", token.start, hint)

    def _next_branch(self, frame: _Frame) -> None:
        if frame.test is not None:
            test, offset = frame.test
            frame.branches.append((test, offset, _sequence(frame.pieces)))
        frame.test = None
        frame.pieces = []

    def _close(self, frame: _Frame) -> None:
        self._stack.pop()
        outer = self._stack[-1]
        if frame.kind == "for":
            assert frame.test is not None
            iterable, offset = frame.test
            outer.pieces.append(
                self._loop(frame.variable, iterable, offset, _sequence(frame.pieces))
            )
            return
        orelse: str | _Render | None = None
        if frame.has_else:
            orelse = _sequence(frame.pieces)
        else:
            self._next_branch(frame)
        outer.pieces.append(self._conditional(tuple(frame.branches), orelse))

    # -- expressions and render closures

    def _expression(self, text: str, offset: int, frame: _Frame) -> Expression:
        try:
            expression = self._expressions.compile(text, frame.names)
        except ExpressionError as exc:
            self._lines.error(exc.message, offset + (exc.column or 1) - 1, exc.hint)
        self.used |= expression.names - frame.bound
        return expression

    def _output(self, expression: Expression, offset: int) -> _Render:
        lines = self._lines

        evaluate = expression.evaluate

        def run(scope: Scope, out: _Output) -> None:
            try:
                text = render_value(evaluate(scope))
            except EvaluationError as exc:
                raise lines.relocated(exc, offset) from None
            except (TypeError, ValueError, OverflowError, RecursionError) as exc:
                raise lines.relocated(
                    EvaluationError(
                        f"cannot write the value of {expression.source.strip()!r}: {exc}"
                    ),
                    offset,
                ) from None
            out.write(text)

        return run

    def _conditional(
        self,
        branches: tuple[tuple[Expression, int, str | _Render], ...],
        orelse: str | _Render | None,
    ) -> _Render:
        compiled = tuple(
            (test.evaluate, offset, _as_render(body)) for test, offset, body in branches
        )
        fallback = _as_render(orelse) if orelse is not None else None
        lines = self._lines

        def run(scope: Scope, out: _Output) -> None:
            for test, offset, body in compiled:
                try:
                    chosen = test(scope)
                except EvaluationError as exc:
                    raise lines.relocated(exc, offset) from None
                if chosen:
                    body(scope, out)
                    return
            if fallback is not None:
                fallback(scope, out)

        return run

    def _loop(
        self, variable: str, iterable: Expression, offset: int, body: str | _Render
    ) -> _Render:
        run_body = _as_render(body)
        evaluate = iterable.evaluate
        lines = self._lines

        def run(scope: Scope, out: _Output) -> None:
            try:
                items = iterate(evaluate(scope))
            except EvaluationError as exc:
                raise lines.relocated(exc, offset) from None
            except TypeError as exc:
                raise lines.relocated(EvaluationError(str(exc)), offset) from None
            length = len(items)
            local: dict[str, Any] = dict(scope)
            for index, item in enumerate(items):
                out.tick()
                local[variable] = item
                local["loop"] = {
                    "index": index + 1,
                    "index0": index,
                    "first": index == 0,
                    "last": index == length - 1,
                    "length": length,
                }
                run_body(local, out)

        return run


def _sequence(pieces: list[str | _Render]) -> str | _Render:
    """One render for a block body: adjacent texts merged, a pure text kept as text."""
    merged: list[str | _Render] = []
    text = ""
    for piece in pieces:
        if isinstance(piece, str):
            text += piece
            continue
        if text:
            merged.append(text)
            text = ""
        merged.append(piece)
    if not merged:
        return text
    if text:
        merged.append(text)
    items = tuple(merged)

    def run(scope: Scope, out: _Output) -> None:
        for item in items:
            if type(item) is str:  # fixed text: written directly, no closure call
                out.write(item)
            else:
                item(scope, out)  # type: ignore[operator]

    return run


def _as_render(piece: str | _Render) -> _Render:
    if not isinstance(piece, str):
        return piece
    text = piece

    def write(scope: Scope, out: _Output) -> None:
        out.write(text)

    return write
