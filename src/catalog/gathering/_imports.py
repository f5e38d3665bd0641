"""``@path`` imports in instruction files, found in one pass over the text.

An import is an ``@`` at the start of a line or after white space, followed by
a path (``@docs/style.md``, ``@~/notes.md``, ``@/abs/file.md``; ``\\ `` keeps a
space in it). Imports inside fenced code blocks (```` ``` ```` or ``~~~``)
and inline code spans (`` `@x` ``) are text, not imports, and so is an
``@`` inside a word (``user@example.com``) or one followed by something that
does not look like a path (``@@``, ``@#1``). Sentence punctuation ending the
token (``see @a.md.``) is not part of the path.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

__all__ = ["Import", "find_imports"]

_TRAILING = ".,;:!?)]}'\""


@dataclass(frozen=True, slots=True)
class Import:
    """One ``@path``: its line (from 1), the path as written, and where ``@path`` stands
    in the text (``text[start:end]``)."""

    line: int
    path: str
    start: int
    end: int


def find_imports(text: str) -> list[Import]:
    """The imports of ``text`` in order."""
    found: list[Import] = []
    fence: tuple[str, int] | None = None
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        at = offset
        offset += len(line) + 1
        marker = _fence(line)
        if fence is not None:
            closes = marker is not None and marker[0] == fence[0] and marker[1] >= fence[1]
            if closes and not line.strip().strip(fence[0]):
                fence = None
            continue
        if marker is not None:
            fence = marker
            continue
        if "@" in line:
            found.extend(
                Import(number, path, at + start, at + end)
                for path, start, end in _line_imports(line)
            )
    return found


def _fence(line: str) -> tuple[str, int] | None:
    """(character, length) when ``line`` opens or may close a fenced block."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or stripped[:3] not in ("```", "~~~"):
        return None
    char = stripped[0]
    length = len(stripped) - len(stripped.lstrip(char))
    if char == "`" and "`" in stripped[length:]:
        return None
    return char, length


def _code_spans(line: str) -> list[tuple[int, int]]:
    """The (start, end) ranges of the inline code spans of ``line``, in linear time."""
    runs: list[tuple[int, int]] = []
    index = 0
    while index < len(line):
        if line[index] == "`":
            start = index
            while index < len(line) and line[index] == "`":
                index += 1
            runs.append((start, index - start))
        else:
            index += 1
    by_length: dict[int, list[int]] = defaultdict(list)
    for number, (_, length) in enumerate(runs):
        by_length[length].append(number)
    cursor: dict[int, int] = defaultdict(int)
    spans: list[tuple[int, int]] = []
    number = 0
    while number < len(runs):
        start, length = runs[number]
        same = by_length[length]
        # Skip the runs of this length that lie before this one.
        while cursor[length] < len(same) and same[cursor[length]] <= number:
            cursor[length] += 1
        if cursor[length] == len(same):
            number += 1
            continue
        closer = same[cursor[length]]
        spans.append((start, runs[closer][0] + length))
        number = closer + 1
    return spans


def _line_imports(line: str) -> list[tuple[str, int, int]]:
    """(path, start, end) of each import of one line; ``line[start:end]`` is ``@path``."""
    spans = _code_spans(line) if "`" in line else []
    paths: list[tuple[str, int, int]] = []
    span = 0
    index = 0
    while True:
        index = line.find("@", index)
        if index < 0:
            return paths
        while span < len(spans) and spans[span][1] <= index:
            span += 1
        inside = span < len(spans) and spans[span][0] <= index
        if inside or (index > 0 and not line[index - 1].isspace()):
            index += 1
            continue
        start = index
        token, index = _token(line, index + 1)
        path = token.rstrip(_TRAILING)
        if _looks_like_path(path):
            # The punctuation stripped from the token stays in the text.
            paths.append((path, start, index - (len(token) - len(path))))


def _token(line: str, index: int) -> tuple[str, int]:
    """The path after an ``@`` (up to white space; ``\\ `` is a space) and where it ends."""
    chars: list[str] = []
    while index < len(line) and not line[index].isspace():
        if line[index] == "\\" and index + 1 < len(line) and line[index + 1] == " ":
            chars.append(" ")
            index += 2
        else:
            chars.append(line[index])
            index += 1
    return "".join(chars), index


def _looks_like_path(path: str) -> bool:
    if path.startswith(("./", "../", "~/")):
        return True
    if path.startswith("/"):
        return len(path) > 1
    return bool(path) and (path[0].isalnum() or path[0] in "._-")
