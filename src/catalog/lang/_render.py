"""What a compiled body is made of, and the loop that renders it.

:mod:`catalog.lang.template` compiles a body into a :data:`Body`: a text
alone, or a tuple of steps (texts, written as they are, and :class:`Write`,
:class:`If`, :class:`For` and :class:`Count` steps). :func:`fill` walks the
steps in one loop: a text costs its copy, a ``{{ env.cwd }}`` a look-up, and
only a branch holding more than a text, or a loop, walks steps of its own. A
step knows where its expression is written, to place an error there.

Limits: the values written inside loops, and the texts there (a loop body's
:class:`Count` counts its texts at once), are counted against
:data:`MAX_OUTPUT_LENGTH` as they are written (:class:`Limits`, which a body
without loops does without); everything else, which the body's own size
bounds, when the render ends (:func:`finish`). :func:`fill` adds up the
lengths of the values it writes, so that a body without loops, whose texts
add at most :func:`text_bound` characters, is measured part by part only when
that sum could pass the limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from catalog.errors import EvaluationError
from catalog.lang._lexing import Lines
from catalog.lang.values import (
    ITEM_COST,
    MAX_TEXT_LENGTH,
    Run,
    Scope,
    charge,
    iterate,
    render_value,
)

__all__ = [
    "MAX_LOOP_ITERATIONS",
    "MAX_OUTPUT_LENGTH",
    "Body",
    "Count",
    "For",
    "If",
    "Limits",
    "Step",
    "Write",
    "fill",
    "finish",
    "sequence",
    "text_bound",
    "too_long",
]

MAX_LOOP_ITERATIONS: Final = 100_000
"""Most loop iterations, all loops together, in one render."""
MAX_OUTPUT_LENGTH: Final = MAX_TEXT_LENGTH
"""Longest output of one render, in characters."""

_UNWRITABLE: Final = (TypeError, ValueError, OverflowError, RecursionError)
_WRITE_ERRORS: Final = (EvaluationError, *_UNWRITABLE)


class Limits:
    """What a render that loops has counted so far (characters written and loop
    iterations run), against the render's limits."""

    __slots__ = ("iterations", "size")

    def __init__(self) -> None:
        self.size = 0
        self.iterations = 0

    def count(self, size: int) -> None:
        """Count ``size`` characters about to be written against the output limit."""
        self.size += size
        if self.size > MAX_OUTPUT_LENGTH:
            raise too_long()

    def tick(self, units: int) -> None:
        """Count one loop iteration against :data:`MAX_LOOP_ITERATIONS`, spending
        ``units`` of the evaluation budget (what its body costs: :attr:`For.cost`)."""
        self.iterations += 1
        charge(units)
        if self.iterations > MAX_LOOP_ITERATIONS:
            raise EvaluationError(f"more than {MAX_LOOP_ITERATIONS} loop iterations in one render")


def too_long() -> EvaluationError:
    """The error of a render longer than :data:`MAX_OUTPUT_LENGTH`."""
    return EvaluationError(f"the rendered body would be longer than {MAX_OUTPUT_LENGTH} characters")


def finish(parts: list[str], bound: int | None = None) -> str:
    """The text a render wrote in ``parts``; past the output limit, its error.
    ``bound``, when given, is at least the text's length: under the limit, the
    parts need not be measured before they are joined."""
    if (bound is None or bound > MAX_OUTPUT_LENGTH) and sum(map(len, parts)) > MAX_OUTPUT_LENGTH:
        raise too_long()
    return "".join(parts)


def text_bound(body: Body | If) -> int:
    """The most characters the texts of ``body``, a body without loops, can write:
    every text of every branch, each written at most once."""
    if isinstance(body, str):
        return len(body)
    if isinstance(body, If):
        return text_bound(body.then) + text_bound(body.orelse)
    return sum(text_bound(step) for step in body if isinstance(step, str | If))


@dataclass(frozen=True, slots=True)
class Write:
    """``{{ expression }}``: the value ``evaluate`` reads, written as text (counted as it
    is written when ``counted``, inside a loop). ``source`` and ``offset`` say what is
    written where, for errors."""

    evaluate: Run
    counted: bool
    source: str
    offset: int
    lines: Lines

    def placed(self, exc: Exception) -> EvaluationError:
        """``exc``, raised by evaluating or writing the value, placed in the body."""
        if not isinstance(exc, EvaluationError):
            exc = EvaluationError(f"cannot write the value of {self.source!r}: {exc}")
        return self.lines.relocated(exc, self.offset)


@dataclass(frozen=True, slots=True)
class If:
    """``{% if test %}then{% else %}orelse{% endif %}``; an ``elif`` is an :class:`If`
    as ``orelse``. ``offset`` is where ``test`` is written."""

    test: Run
    then: Body
    orelse: Body | If
    offset: int
    lines: Lines


@dataclass(frozen=True, slots=True)
class For:
    """``{% for variable in iterable %}body{% endfor %}``; ``offset`` is where
    ``iterable`` is written. ``cost`` is what each iteration spends of the
    evaluation budget: :data:`ITEM_COST`, and :data:`NODE_COST` for each node of
    the expressions its body evaluates (outside the loops inside it, which spend
    their own), so that a loop's work counts whatever its expressions do."""

    variable: str
    iterable: Run
    body: Body
    offset: int
    lines: Lines
    cost: int = ITEM_COST


@dataclass(frozen=True, slots=True)
class Count:
    """The characters of the texts of a body inside a loop, counted against the output
    limit before they are written: they are written whatever happens."""

    size: int


Step: TypeAlias = "str | Write | If | For | Count"
Body: TypeAlias = "str | tuple[Step, ...]"
"""A compiled body: a text alone (outside loops), or its steps."""


def sequence(pieces: list[str | Write | If | For], *, counted: bool) -> Body:
    """The body made of ``pieces``, next texts joined. Outside loops a text alone is
    kept as text; inside one (``counted``) a :class:`Count` of its texts comes first."""
    steps: list[Step] = []
    for piece in pieces:
        if type(piece) is not str:
            steps.append(piece)
        elif steps and type(steps[-1]) is str:
            steps[-1] += piece
        elif piece:
            steps.append(piece)
    if counted:
        fixed = sum(len(step) for step in steps if isinstance(step, str))
        if fixed:
            steps.insert(0, Count(fixed))
    elif len(steps) == 1 and type(steps[0]) is str:
        return steps[0]
    return tuple(steps) if steps else ""


def fill(body: tuple[Step, ...], scope: Scope, parts: list[str], limits: Limits | None) -> int:
    """Render the steps of ``body`` into ``parts``, reading values from ``scope``, and
    give the characters of the values written; ``limits`` counts what is written
    inside loops (None in a body without loops). The kinds of step are tested most
    frequent first: texts, then branches."""
    append = parts.append
    written = 0
    for step in body:
        kind = type(step)
        if kind is str:
            append(step)  # type: ignore[arg-type]
        elif kind is If:
            try:
                holds = step.test(scope)  # type: ignore[union-attr]
            except EvaluationError as exc:
                raise step.lines.relocated(exc, step.offset) from None  # type: ignore[union-attr]
            taken = step.then if holds else step.orelse  # type: ignore[union-attr]
            if type(taken) is str:
                if taken:
                    append(taken)
                continue
            if type(taken) is If:  # an elif
                taken = _taken(taken, scope)
                if type(taken) is str:
                    if taken:
                        append(taken)
                    continue
            written += fill(taken, scope, parts, limits)  # type: ignore[arg-type]
        elif kind is Write:
            try:
                value = step.evaluate(scope)  # type: ignore[union-attr]
                text = value if type(value) is str else render_value(value)
            except _WRITE_ERRORS as exc:
                raise step.placed(exc) from None  # type: ignore[union-attr]
            if step.counted:  # type: ignore[union-attr]
                limits.count(len(text))  # type: ignore[union-attr]
            append(text)
            written += len(text)
        elif kind is Count:
            limits.count(step.size)  # type: ignore[union-attr]
        else:
            written += _loop(step, scope, parts, limits)  # type: ignore[arg-type]
    return written


def _taken(branch: If, scope: Scope) -> Body:
    """The body an ``elif`` chain renders under ``scope``."""
    while True:
        try:
            holds = branch.test(scope)
        except EvaluationError as exc:
            raise branch.lines.relocated(exc, branch.offset) from None
        taken = branch.then if holds else branch.orelse
        if type(taken) is not If:
            return taken  # type: ignore[return-value]
        branch = taken


def _loop(step: For, scope: Scope, parts: list[str], limits: Limits) -> int:
    """Render the body of ``step`` once for each item, with ``loop`` and its variable;
    give the characters of the values written."""
    try:
        items = iterate(step.iterable(scope))
    except EvaluationError as exc:
        raise step.lines.relocated(exc, step.offset) from None
    except TypeError as exc:
        raise step.lines.relocated(EvaluationError(str(exc)), step.offset) from None
    body, variable = step.body, step.variable
    length = len(items)
    local: dict[str, Any] = dict(scope)
    written = 0
    for index, item in enumerate(items):
        limits.tick(step.cost)
        local[variable] = item
        local["loop"] = {
            "index": index + 1,
            "index0": index,
            "first": index == 0,
            "last": index == length - 1,
            "length": length,
        }
        if body:
            written += fill(body, local, parts, limits)  # type: ignore[arg-type]
    return written
