"""Path globs matched in linear time: ``*``, ``?``, ``[...]``, ``**`` and ``{a,b}``.

Globs come from files nobody here wrote (a rule's ``paths:``), so they are
never turned into a backtracking regular expression. A glob is compiled to a
small automaton (Thompson's construction) that is run over the path one
character at a time, keeping the set of live states: matching costs at most
(path length x glob length) steps, and the state sets met are memoised.

The dialect, the one rule files use:

* ``*`` any run of characters within one path segment, ``?`` one character,
  ``[abc]`` / ``[a-z]`` / ``[!a]`` (or ``[^a]``) one character of a set; none
  of them matches ``/``;
* ``**`` as a whole segment: any number of folders (``src/**/*.py`` matches
  ``src/a.py`` and ``src/a/b.py``; ``src/**`` everything under ``src``);
  ``**`` inside a segment is a ``*``;
* ``{a,b}``: one of the comma-separated alternatives, nested braces allowed;
* ``\\`` makes the next character literal;
* a glob without ``/`` matches a file name at any depth (``*.py`` matches
  ``a.py`` and ``src/a.py``), as in ``.gitignore``; a leading ``/`` or ``./``
  anchors it at the base folder; a trailing ``/`` means everything below.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_GLOB_LENGTH",
    "CharClass",
    "Glob",
    "GlobBudgetError",
    "GlobError",
    "MatchBudget",
    "parse_char_class",
]

MAX_GLOB_LENGTH = 256
"""The longest glob accepted, in characters."""

_MAX_NESTING = 32
_MAX_MEMO = 4096

# Automaton states: (kind, argument, targets).
_SPLIT, _CHAR, _ANY, _SEGMENT_CHAR, _CLASS, _MATCH = range(6)


@dataclass(frozen=True, slots=True)
class CharClass:
    """A ``[...]`` class: its ranges of characters (a lone character is a range of one),
    and whether it is negated (``[!...]``, ``[^...]``)."""

    negated: bool
    ranges: tuple[tuple[str, str], ...]

    def __contains__(self, char: str) -> bool:
        return any(low <= char <= high for low, high in self.ranges) != self.negated


"""A ``[...]`` class as (negated, ranges of characters)."""
"""A ``[...]`` class: whether it is negated, and its (low, high) character ranges."""


class GlobError(ValueError):
    """A glob that cannot be compiled (too long or too deeply nested)."""


class GlobBudgetError(GlobError):
    """A :class:`MatchBudget` ran out."""


class MatchBudget:
    """Work allowed to a series of matches (automaton states visited), shared by them.

    A gathering matches many rule globs against many touched files: one budget
    bounds the whole, whatever globs and paths it is given.
    """

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.left = steps

    def spend(self, work: int) -> None:
        """Take ``work`` steps; :class:`GlobBudgetError` when none are left."""
        self.left -= work
        if self.left < 0:
            raise GlobBudgetError(f"glob matching stopped after {self.steps} steps")


class _Automaton:
    """The states of one glob; fragments are (start, end) pairs, ``end`` an open split."""

    def __init__(self) -> None:
        self.kinds: list[int] = []
        self.args: list[Any] = []
        self.targets: list[list[int]] = []

    def state(self, kind: int, arg: Any = None) -> int:
        self.kinds.append(kind)
        self.args.append(arg)
        self.targets.append([])
        return len(self.kinds) - 1

    def empty(self) -> tuple[int, int]:
        node = self.state(_SPLIT)
        return node, node

    def consume(self, kind: int, arg: Any = None) -> tuple[int, int]:
        start, end = self.state(kind, arg), self.state(_SPLIT)
        self.targets[start].append(end)
        return start, end

    def chain(self, fragments: list[tuple[int, int]]) -> tuple[int, int]:
        if not fragments:
            return self.empty()
        for (_, end), (start, _) in itertools.pairwise(fragments):
            self.targets[end].append(start)
        return fragments[0][0], fragments[-1][1]

    def either(self, fragments: list[tuple[int, int]]) -> tuple[int, int]:
        start, end = self.state(_SPLIT), self.state(_SPLIT)
        for first, last in fragments:
            self.targets[start].append(first)
            self.targets[last].append(end)
        return start, end

    def repeat(self, kind: int) -> tuple[int, int]:
        """Zero or more characters accepted by ``kind``."""
        loop, char, end = self.state(_SPLIT), self.state(kind), self.state(_SPLIT)
        self.targets[loop] += [char, end]
        self.targets[char].append(loop)
        return loop, end

    def optional(self, fragment: tuple[int, int]) -> tuple[int, int]:
        start, end = self.state(_SPLIT), self.state(_SPLIT)
        self.targets[start] += [fragment[0], end]
        self.targets[fragment[1]].append(end)
        return start, end


def _pairs(text: str) -> tuple[dict[int, int], dict[int, int]]:
    """Matching braces (open -> close) and classes (open -> close), found in one pass."""
    braces: dict[int, int] = {}
    classes: dict[int, int] = {}
    open_braces: list[int] = []
    # The next ']' at or after each index, to find a class's end without rescanning.
    next_close = [len(text)] * (len(text) + 1)
    for index in range(len(text) - 1, -1, -1):
        next_close[index] = index if text[index] == "]" else next_close[index + 1]
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            body = index + 1
            if body < len(text) and text[body] in "!^":
                body += 1
            if body < len(text) and text[body] == "]":
                body += 1
            close = next_close[body] if body <= len(text) else len(text)
            if close < len(text):
                classes[index] = close
                index = close + 1
                continue
        elif char == "{":
            open_braces.append(index)
        elif char == "}" and open_braces:
            braces[open_braces.pop()] = index
        index += 1
    return braces, classes


def parse_char_class(body: str) -> CharClass:
    """``[...]``'s inside as a :class:`CharClass`."""
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    ranges: list[tuple[str, str]] = []
    index = 0
    while index < len(body):
        low = body[index]
        if index + 2 < len(body) and body[index + 1] == "-":
            ranges.append((low, body[index + 2]))
            index += 3
        else:
            ranges.append((low, low))
            index += 1
    return CharClass(negated, tuple(ranges))


class _Parser:
    """Recursive descent over a glob whose brace and class pairs are known in advance."""

    def __init__(self, text: str, automaton: _Automaton) -> None:
        self.text = text
        self.nfa = automaton
        self.braces, self.classes = _pairs(text)

    def sequence(self, start: int, stop: int, depth: int) -> tuple[int, int]:
        """The fragment for ``text[start:stop]``, a sequence with no top-level comma."""
        if depth > _MAX_NESTING:
            raise GlobError(f"braces nested more than {_MAX_NESTING} deep")
        text, nfa = self.text, self.nfa
        parts: list[tuple[int, int]] = []
        index = start
        while index < stop:
            char = text[index]
            if char == "\\" and index + 1 < stop:
                parts.append(nfa.consume(_CHAR, text[index + 1]))
                index += 2
            elif char == "*":
                run_end = index
                while run_end < stop and text[run_end] == "*":
                    run_end += 1
                whole_segment = (index == 0 or text[index - 1] == "/") and (
                    run_end >= stop or text[run_end] == "/"
                )
                if whole_segment and run_end - index >= 2:
                    if run_end < stop and text[run_end] == "/":
                        # "**/": zero or more folders.
                        folders = nfa.chain([nfa.repeat(_ANY), nfa.consume(_CHAR, "/")])
                        parts.append(nfa.optional(folders))
                        run_end += 1
                    else:
                        parts.append(nfa.repeat(_ANY))
                else:
                    parts.append(nfa.repeat(_SEGMENT_CHAR))
                index = run_end
            elif char == "?":
                parts.append(nfa.consume(_SEGMENT_CHAR))
                index += 1
            elif char == "[" and index in self.classes:
                close = self.classes[index]
                parts.append(nfa.consume(_CLASS, parse_char_class(text[index + 1 : close])))
                index = close + 1
            elif char == "{" and index in self.braces:
                close = self.braces[index]
                parts.append(self.alternatives(index + 1, close, depth + 1))
                index = close + 1
            else:
                parts.append(nfa.consume(_CHAR, char))
                index += 1
        return nfa.chain(parts)

    def alternatives(self, start: int, stop: int, depth: int) -> tuple[int, int]:
        """The fragment for a brace group's inside: its top-level commas split it."""
        choices: list[tuple[int, int]] = []
        index = piece = start
        while index < stop:
            char = self.text[index]
            if char == "\\":
                index += 2
                continue
            if char == "[" and index in self.classes:
                index = self.classes[index] + 1
                continue
            if char == "{" and index in self.braces:
                index = self.braces[index] + 1
                continue
            if char == ",":
                choices.append(self.sequence(piece, index, depth))
                piece = index + 1
            index += 1
        choices.append(self.sequence(piece, stop, depth))
        return self.nfa.either(choices)


def _normalise(pattern: str) -> str:
    text = pattern.strip()
    if text.startswith("./"):
        return text[2:]
    if text.startswith("/"):
        return text.lstrip("/")
    if text.endswith("/"):
        text += "**"
    if "/" not in text.rstrip("/"):
        text = "**/" + text
    return text


class Glob:
    """One compiled glob; :meth:`match` tells whether a ``/``-separated relative path matches."""

    def __init__(self, pattern: str) -> None:
        if len(pattern) > MAX_GLOB_LENGTH:
            raise GlobError(f"a glob longer than {MAX_GLOB_LENGTH} characters")
        self.pattern = pattern
        text = _normalise(pattern)
        # The literal start every match begins with: most paths are refused on it alone.
        cut = next((i for i, char in enumerate(text) if char in "*?[{\\"), len(text))
        self._prefix = text[:cut]
        nfa = _Automaton()
        start, end = _Parser(text, nfa).sequence(0, len(text), 0)
        accept = nfa.state(_MATCH)
        nfa.targets[end].append(accept)
        self._nfa = nfa
        self._accept = accept
        self._start = self._closure([start])
        self._memo: dict[tuple[frozenset[int], str], frozenset[int]] = {}

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"

    def _closure(self, states: list[int]) -> frozenset[int]:
        kinds, targets = self._nfa.kinds, self._nfa.targets
        seen: set[int] = set()
        stack = list(states)
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            if kinds[state] == _SPLIT:
                stack.extend(targets[state])
        # Split states only lead elsewhere: the set keeps the states that consume or accept.
        return frozenset(state for state in seen if kinds[state] != _SPLIT)

    def _step(
        self, states: frozenset[int], char: str, budget: MatchBudget | None
    ) -> frozenset[int]:
        key = (states, char)
        found = self._memo.get(key)
        if budget is not None:
            budget.spend(1 if found is not None else len(states) + 1)
        if found is not None:
            return found
        kinds, args, targets = self._nfa.kinds, self._nfa.args, self._nfa.targets
        following: list[int] = []
        for state in states:
            kind = kinds[state]
            if kind == _MATCH:
                continue
            if kind == _CHAR:
                ok = args[state] == char
            elif kind == _ANY:
                ok = True
            elif char == "/":
                ok = False
            elif kind == _SEGMENT_CHAR:
                ok = True
            else:
                ok = char in args[state]
            if ok:
                following.extend(targets[state])
        result = self._closure(following)
        if len(self._memo) >= _MAX_MEMO:
            self._memo.clear()
        self._memo[key] = result
        return result

    def match(self, path: str, budget: MatchBudget | None = None) -> bool:
        """Whether ``path`` (relative, ``/``-separated) matches the glob.

        With ``budget``, the work is taken from it; :class:`GlobBudgetError`
        when it runs out.
        """
        if not path.startswith(self._prefix):
            return False
        states = self._start
        for char in path:
            states = self._step(states, char, budget)
            if not states:
                return False
        return self._accept in states
