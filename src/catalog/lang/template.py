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

The body is compiled once into steps that one loop walks (texts, values to
write, branches and loops: :mod:`catalog.lang._render`, with the expressions
compiled to closures); a body without any tag is returned as it is. Compiling
with ``constants`` (the ``part`` and ``agent`` of one agent's plan) substitutes
them: an ``{% if %}`` whose test is known keeps only the branch that runs,
and a ``{{ }}`` whose value is known becomes text (see :mod:`catalog.lang.compiler`).

A body spends an evaluation budget when it runs a loop, calls a function or
adds: the running one (an assembly's, shared by all its parts), else one of its
own. What it writes is counted against that budget once, when the render ends
(the output limit, checked at every write, keeps it far below the budget), and
each loop iteration spends for the expression nodes of its body. A body that
only reads values and writes them needs no budget.
"""

from __future__ import annotations

import keyword
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

from catalog.errors import EvaluationError, ExpressionError, TemplateError
from catalog.lang._lexing import OPENER, Lines, Token, tokenize, trim_block_lines
from catalog.lang._render import (
    MAX_LOOP_ITERATIONS,
    MAX_OUTPUT_LENGTH,
    Body,
    Count,
    For,
    If,
    Limits,
    Write,
    fill,
    finish,
    sequence,
    text_bound,
)
from catalog.lang.compiler import Expression, ExpressionCache
from catalog.lang.shapes import SCALAR, RecordShape, Shape
from catalog.lang.values import (
    ITEM_COST,
    NODE_COST,
    Path,
    Scope,
    budgeted,
    charge,
    render_value,
)
from catalog.text.suggest import did_you_mean

__all__ = [
    "LOOP_SHAPE",
    "MAX_BLOCK_DEPTH",
    "MAX_LOOP_ITERATIONS",
    "MAX_OUTPUT_LENGTH",
    "Template",
    "compile_template",
    "tag_expressions",
]

MAX_BLOCK_DEPTH: Final = 32
"""Deepest nesting of ``if``/``for`` blocks."""

LOOP_SHAPE: Final = RecordShape(
    {"index": SCALAR, "index0": SCALAR, "first": SCALAR, "last": SCALAR, "length": SCALAR},
    "loop",
)
"""The shape of ``loop`` inside a ``for`` block."""

_TAGS: Final = ("if", "elif", "else", "endif", "for", "endfor")
_RESERVED: Final = frozenset({"true", "false", "none", "loop"})
_KEYWORD: Final = re.compile(r"\s*(\w*)")
_FOR: Final = re.compile(r"\s*(\S+)\s+in\s+(.*)", re.DOTALL)


_UNWRITABLE: Final = (TypeError, ValueError, OverflowError, RecursionError)
_NO_SCOPE: Final[Scope] = types.MappingProxyType({})
_Piece: TypeAlias = "str | Write | If | For"


@dataclass(frozen=True, slots=True)
class Template:
    """A compiled part body; ``render(scope)`` fills it from a scope.

    ``names`` holds the root names the body reads (loop variables excluded) and
    ``reads`` the paths it reads them by (see :class:`~catalog.lang.Expression`);
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
    reads: frozenset[Path] = field(default=frozenset(), repr=False, compare=False)


def compile_template(
    source: str,
    names: Mapping[str, Shape],
    expressions: ExpressionCache | None = None,
    constants: Mapping[str, Any] | None = None,
) -> Template:
    """Parse and compile a part body once; raises :class:`TemplateError` when malformed.

    ``expressions`` shares compiled expressions between the bodies of one catalog;
    ``constants`` are values of some of ``names`` known now (see the module docstring).
    """
    if OPENER.search(source) is None:
        return Template(source, frozenset(), True, lambda scope: source)
    lines = Lines(source)
    tokens = trim_block_lines(tokenize(source, lines))
    compiler = _Compiler(lines, names, expressions or ExpressionCache(), constants or {})
    run = compiler.compile(tokens)
    reads = frozenset(compiler.reads)
    roots = frozenset(path[0] for path in reads)
    if isinstance(run, str):
        text = run
        return Template(source, roots, False, lambda scope: text, reads)

    spends, loops = compiler.spends, compiler.loops
    steps = run
    texts = None if loops else text_bound(steps)

    def walk(scope: Scope) -> str:
        parts: list[str] = []
        if texts is None:
            fill(steps, scope, parts, Limits())
            return finish(parts)
        return finish(parts, texts + fill(steps, scope, parts, None))

    def render(scope: Scope) -> str:
        text = walk(scope)
        if spends:
            charge(len(text))
        return text

    walked = budgeted(render, "the body") if spends else render
    return Template(source, roots, False, walked, reads)


def tag_expressions(source: str) -> list[str]:
    """The expression texts of a body's tags, in order: what ``{{ }}`` writes, the tests
    of ``if`` and ``elif`` and what ``for`` loops over. Read without compiling, for
    callers that look at what a body tests; a malformed body gives what precedes
    the fault."""
    if OPENER.search(source) is None:
        return []
    try:
        tokens = tokenize(source, Lines(source))
    except TemplateError:
        return []
    found: list[str] = []
    for token in tokens:
        if token.kind == "output":
            found.append(token.content)
        elif token.kind == "block":
            keyword = _KEYWORD.match(token.content)
            word = keyword.group(1) if keyword else ""
            rest = token.content[keyword.end() if keyword else 0 :]
            if word in ("if", "elif"):
                found.append(rest)
            elif word == "for" and (loop := _FOR.fullmatch(rest)) is not None:
                found.append(loop.group(2))
    return found


# --------------------------------------------------------------------------
# Compiling


class _Frame:
    """An open block while compiling: its branches so far, what it binds, and the
    paths read by the branch being compiled."""

    __slots__ = (
        "bound",
        "branches",
        "constants",
        "has_else",
        "kind",
        "looping",
        "names",
        "nodes",
        "pieces",
        "reads",
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
        constants: Mapping[str, Any],
    ) -> None:
        self.kind = kind
        self.start = start
        self.names = names
        self.bound = bound
        self.constants = constants
        self.looping = kind == "for"
        self.pieces: list[_Piece] = []
        self.reads: set[Path] = set()
        self.branches: list[_Branch] = []
        self.test: tuple[Expression, int] | None = None
        self.has_else = False
        self.variable = ""
        self.nodes = 0  # of the expressions met in this block, outside inner loops


_Branch: TypeAlias = tuple[Expression, int, Body, frozenset[Path]]
"""One branch of an ``if``: its test, where the test is written, its body, and the
paths the test and the body read."""


class _Compiler:
    """Turns the token list into one render closure, checking every tag.

    ``reads`` collects the paths the body reads; ``loops`` is set when it runs a
    loop, and ``spends`` when it runs a loop or an expression that calls a function
    or adds (see the module docstring).
    """

    def __init__(
        self,
        lines: Lines,
        names: Mapping[str, Shape],
        expressions: ExpressionCache,
        constants: Mapping[str, Any],
    ) -> None:
        self._lines = lines
        self._expressions = expressions
        self._stack = [_Frame("root", 0, names, frozenset(), constants)]
        self.reads = self._stack[0].reads
        self.spends = False
        self.loops = False

    def compile(self, tokens: list[Token]) -> Body:
        for token in tokens:
            frame = self._stack[-1]
            if token.kind == "text":
                frame.pieces.append(token.content)
            elif token.kind == "output":
                expression = self._expression(token.content, token.inner, frame)
                frame.pieces.append(self._output(expression, token.inner, frame))
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
        return sequence(self._stack[0].pieces, counted=False)

    # -- tags

    def _block(self, token: Token) -> None:
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
            frame.test = (self._expression(rest, offset, frame, condition=True), offset)
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
        self, kind: Literal["if", "for"], token: Token, begin: Callable[[_Frame], None]
    ) -> None:
        if len(self._stack) > MAX_BLOCK_DEPTH:
            self._lines.error(f"blocks are nested more than {MAX_BLOCK_DEPTH} deep", token.start)
        outer = self._stack[-1]
        frame = _Frame(kind, token.start, outer.names, outer.bound, outer.constants)
        frame.looping = frame.looping or outer.looping
        begin(frame)
        self._stack.append(frame)

    def _begin_if(self, frame: _Frame, rest: str, offset: int) -> None:
        frame.test = (self._expression(rest, offset, frame, condition=True), offset)

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
        if variable in frame.constants:  # the loop variable hides the constant
            frame.constants = {k: v for k, v in frame.constants.items() if k != variable}

    def _inside(self, kind: str, word: str, token: Token) -> _Frame:
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

    def _no_argument(self, word: str, rest: str, token: Token, hint: str | None) -> None:
        if rest.strip():
            self._lines.error(f"'{word}' takes nothing after it", token.start, hint)

    def _next_branch(self, frame: _Frame) -> None:
        if frame.test is not None:
            test, offset = frame.test
            reads = frozenset(frame.reads | test.reads)
            body = sequence(frame.pieces, counted=frame.looping)
            frame.branches.append((test, offset, body, reads))
        frame.test = None
        frame.pieces = []
        frame.reads = set()

    def _close(self, frame: _Frame) -> None:
        self._stack.pop()
        outer = self._stack[-1]
        if frame.kind == "for":
            assert frame.test is not None
            iterable, offset = frame.test
            self.spends = self.loops = True
            body = sequence(frame.pieces, counted=True)
            cost = ITEM_COST + NODE_COST * (frame.nodes - iterable.nodes)
            outer.nodes += iterable.nodes  # evaluated once where the loop stands
            step = For(frame.variable, iterable.evaluate, body, offset, self._lines, cost)
            outer.pieces.append(step)
            hidden = (frame.variable, "loop")
            outer.reads |= iterable.reads
            outer.reads.update(path for path in frame.reads if path[0] not in hidden)
            return
        outer.nodes += frame.nodes
        orelse: tuple[Body, frozenset[Path]] | None = None
        if frame.has_else:
            orelse = (sequence(frame.pieces, counted=frame.looping), frozenset(frame.reads))
        else:
            self._next_branch(frame)
        taken = self._conditional(frame.branches, orelse, outer)
        if type(taken) is tuple:  # known while compiling: its steps stand in the block's place
            outer.pieces += [step for step in taken if not isinstance(step, Count)]
        else:
            outer.pieces.append(taken)  # type: ignore[arg-type]

    # -- expressions and render closures

    def _expression(
        self, text: str, offset: int, frame: _Frame, *, condition: bool = False
    ) -> Expression:
        try:
            expression = self._expressions.compile(
                text, frame.names, frame.constants, condition=condition
            )
        except ExpressionError as exc:
            self._lines.error(exc.message, offset + (exc.column or 1) - 1, exc.hint)
        self.spends = self.spends or expression.builds
        frame.nodes += expression.nodes
        return expression

    def _output(self, expression: Expression, offset: int, frame: _Frame) -> str | Write:
        """What ``{{ expression }}`` writes: the text itself when its value is known."""
        if not expression.names:
            try:
                return render_value(expression.evaluate(_NO_SCOPE))
            except (EvaluationError, *_UNWRITABLE):
                pass  # the error comes when rendering, as written
        frame.reads |= expression.reads
        source = expression.source.strip()
        return Write(expression.evaluate, frame.looping, source, offset, self._lines)

    def _conditional(
        self,
        branches: list[_Branch],
        orelse: tuple[Body, frozenset[Path]] | None,
        outer: _Frame,
    ) -> Body | If:
        """An ``if`` block: only its branches that can be taken are kept, and one taken
        whenever it is reached ends the block (its body is then the block's)."""
        kept: list[_Branch] = []
        for branch in branches:
            known = _known_truth(branch[0])
            if known is None:
                kept.append(branch)
            elif known:
                orelse = (branch[2], branch[3])
                break
        for _test, _offset, _body, reads in kept:
            outer.reads |= reads
        if orelse is not None:
            outer.reads |= orelse[1]
        # An if/elif/else is a chain of ifs, each with the rest as its else.
        chain: Body | If = "" if orelse is None else orelse[0]
        for test, offset, then, _ in reversed(kept):
            chain = If(test.evaluate, then, chain, offset, self._lines)
        return chain


def _known_truth(test: Expression) -> bool | None:
    """Whether a test that reads nothing holds; None when it reads the scope or fails
    (the error then comes when rendering, as written)."""
    if test.names:
        return None
    try:
        return bool(test.evaluate(_NO_SCOPE))
    except EvaluationError:
        return None
