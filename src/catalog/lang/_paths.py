"""Bodies without loops, rendered along the path their branches take.

What a body without loops writes is settled by the outcomes of its tests: the
path its ``if`` blocks take. Along one path the body is a fixed sequence of
texts with values written between them. :class:`Paths` walks the tests alone
(the texts and the values in between are not visited), looks the path up and
writes the path's values between its texts in one join; the first time a path
is met, the body is flattened along it (:class:`_Path`). Each body keeps at
most :data:`MAX_PATHS` paths, keyed by outcomes only (never by values), whose
texts hold at most :data:`ROOM` times the characters of the body's own texts
(so what is kept grows with the catalog, not with the contexts met), and
renders any further path with :func:`~catalog.lang._render.fill` directly.

The tests and the values are those :func:`~catalog.lang._render.fill`
evaluates, in another order (every test of the path, then every value). So
that an error is the one ``fill`` raises, where it raises it, a render that
fails here is given to ``fill`` again: evaluating is pure, and only errors
take the second walk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from catalog.lang._render import MAX_OUTPUT_LENGTH, Body, If, Write, too_long
from catalog.lang.values import Run, Scope, render_value

__all__ = ["MAX_PATHS", "ROOM", "Paths"]

MAX_PATHS: Final = 64
"""Most paths one body keeps flattened."""
ROOM: Final = 4
"""The characters of the paths one body keeps, at most, in multiples of its texts'."""

_TEXT: Final = frozenset({str})


@dataclass(frozen=True, slots=True)
class _Choice:
    """An ``if`` block with its ``elif``s: the tests in order, and for each branch
    (the last one the ``else``, maybe empty) the blocks met inside it; ``inner`` is
    None when no branch holds a block."""

    first: Run
    others: tuple[Run, ...]
    inner: tuple[tuple[_Choice, ...], ...] | None


@dataclass(frozen=True, slots=True)
class _Path:
    """A body along one path: its texts, with ``writes`` evaluated between them (one
    text more than values), and the characters of the texts."""

    texts: tuple[str, ...]
    writes: tuple[Run, ...]
    size: int


def _chain(block: If) -> tuple[list[Run], list[Body]]:
    """The tests of an ``if`` block and its ``elif``s, and their bodies, the ``else``
    last."""
    tests: list[Run] = []
    bodies: list[Body] = []
    branch: Body | If = block
    while type(branch) is If:
        tests.append(branch.test)
        bodies.append(branch.then)
        branch = branch.orelse
    bodies.append(branch)  # type: ignore[arg-type]
    return tests, bodies


def _choices(body: Body) -> tuple[_Choice, ...]:
    """The blocks met in ``body`` outside any other block, in order."""
    if type(body) is str:
        return ()
    choices = []
    for step in body:
        if type(step) is If:
            tests, bodies = _chain(step)
            inner = tuple(_choices(branch) for branch in bodies)
            choices.append(_Choice(tests[0], tuple(tests[1:]), inner if any(inner) else None))
    return tuple(choices)


def _decide(choices: tuple[_Choice, ...], scope: Scope, path: list[int]) -> None:
    """Append to ``path`` the branch each block of ``choices`` takes under ``scope``,
    and those of the blocks inside the branches taken."""
    append = path.append
    for choice in choices:
        if choice.first(scope):
            taken = 0
        else:
            taken = 1
            for test in choice.others:
                if test(scope):
                    break
                taken += 1
        append(taken)
        if choice.inner is not None and choice.inner[taken]:
            _decide(choice.inner[taken], scope, path)


def _flatten(body: Body, path: tuple[int, ...]) -> _Path:
    """``body`` along ``path`` (as :func:`_decide` gives it)."""
    texts: list[list[str]] = [[]]
    writes: list[Run] = []
    taken: Iterator[int] = iter(path)

    def walk(body: Body) -> None:
        if type(body) is str:
            texts[-1].append(body)
            return
        for step in body:
            if type(step) is str:
                texts[-1].append(step)
            elif type(step) is Write:
                writes.append(step.evaluate)
                texts.append([])
            else:
                assert type(step) is If
                walk(_chain(step)[1][next(taken)])

    walk(body)
    joined = tuple("".join(text) for text in texts)
    return _Path(joined, tuple(writes), sum(map(len, joined)))


class Paths:
    """Renders a body without loops along its paths (see the module docstring)."""

    __slots__ = ("_body", "_choices", "_paths", "_room")

    def __init__(self, body: tuple[Write | If | str, ...], texts: int) -> None:
        """``texts`` is the characters of the body's texts (its ``text_bound``)."""
        self._body = body
        self._choices = _choices(body)
        self._paths: dict[tuple[int, ...], _Path] = {}
        self._room = ROOM * max(texts, 1)

    def render(self, scope: Scope, fill: Callable[[Scope], str]) -> str:
        """The body rendered under ``scope``; ``fill`` renders it step by step, for a
        path this body does not keep."""
        path: list[int] = []
        if self._choices:
            _decide(self._choices, scope, path)
        key = tuple(path)
        found = self._paths.get(key)
        if found is None:
            if len(self._paths) >= MAX_PATHS:
                return fill(scope)
            found = _flatten(self._body, key)
            if found.size > self._room:
                return fill(scope)
            self._room -= found.size  # a race may keep one path more: never without bound
            found = self._paths.setdefault(key, found)
        texts = found.texts
        if not found.writes:
            return texts[0]
        values = [write(scope) for write in found.writes]
        if not _TEXT.issuperset(map(type, values)):
            values = [value if type(value) is str else render_value(value) for value in values]
        if found.size + sum(map(len, values)) > MAX_OUTPUT_LENGTH:
            raise too_long()
        out = [""] * (2 * len(values) + 1)
        out[0::2] = texts
        out[1::2] = values
        return "".join(out)
