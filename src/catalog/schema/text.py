"""The one check of the texts in parsed data, wherever it comes from.

JSON's ``"\\ud800"`` escapes give strings no UTF-8 writer can encode, which
would reach a fingerprint, a store or stdout and end in a traceback; no prompt
store keeps a NUL character. Every JSON document, context, stored text and
server request is checked here, naming the key that holds the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from catalog.errors import format_key

__all__ = ["TextProblem", "text_problem"]

# A UTF-16 surrogate: a code point that is half of a pair, never a character on its own.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class TextProblem:
    """A text :func:`text_problem` refuses: where (a key path, empty for the data
    itself), what is wrong and what to do."""

    where: str
    message: str
    hint: str


def text_problem(data: Any, *, nul: bool = False) -> TextProblem | None:
    """The first text in parsed ``data`` (mapping keys included) that no UTF-8 writer can
    encode (a lone surrogate, as JSON's ``"\\ud800"`` gives); with ``nul``, one holding
    a NUL character too (no PostgreSQL text keeps one). None when every text is fine.
    Walked without recursion, in linear time: once without keeping paths, and once
    more with them only to name where a refused text is."""
    if not _any_fault(data, nul):
        return None
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            found = _text_fault(value, nul)
            if found is not None:
                return TextProblem(format_key(path), f"the text {found[0]}", found[1])
        elif isinstance(value, dict):
            for key, child in value.items():
                found = _text_fault(key, nul) if isinstance(key, str) else None
                if found is not None:
                    return TextProblem(format_key(path), f"the key {key!a} {found[0]}", found[1])
                stack.append((child, (*path, key)))
        elif isinstance(value, list | tuple):
            stack.extend((child, (*path, index)) for index, child in enumerate(value))
    return None


def _any_fault(data: Any, nul: bool) -> bool:
    """Whether :func:`text_problem` finds anything in ``data``: the same walk, without
    the key path of every value (most data holds no fault, and paths cost most). The
    texts of a container are checked as they are met, the containers stacked."""
    stack: list[Any] = [(data,)]
    while stack:
        children = stack.pop()
        for value in children:
            if isinstance(value, str):
                if (nul or not value.isascii()) and _faulty(value, nul):
                    return True
            elif isinstance(value, dict):
                for key in value:
                    if isinstance(key, str) and (nul or not key.isascii()) and _faulty(key, nul):
                        return True
                stack.append(value.values())
            elif isinstance(value, list | tuple):
                stack.append(value)
    return False


def _faulty(text: str, nul: bool) -> bool:
    """Whether :func:`_text_fault` finds anything in ``text``; most texts are ASCII."""
    if nul and "\0" in text:
        return True
    return not text.isascii() and _SURROGATE.search(text) is not None


def _text_fault(text: str, nul: bool) -> tuple[str, str] | None:
    """What is wrong with ``text`` and what to do, or None."""
    if nul and "\0" in text:
        return (
            "holds a NUL character (\\u0000), which no prompt store keeps",
            "leave the NUL character out",
        )
    if not text.isascii():
        found = _SURROGATE.search(text)
        if found is not None:
            return (
                f"holds a lone surrogate (\\u{ord(found.group()):04x}), half of a pair, "
                "not a character",
                "write the character itself, or the pair of \\u escapes that makes it "
                "(\\ud83d\\ude00 is 😀)",
            )
    return None
