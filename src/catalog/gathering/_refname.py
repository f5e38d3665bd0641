"""Git's ref-name rules, so that what ``.git/HEAD`` holds reaches a prompt only as a ref.

``HEAD`` is a file of the repository, which may be a stranger's: its text
must not put spaces, line breaks or whole sentences into ``env.git_branch``.
:func:`ref_problem` applies the rules of ``git check-ref-format`` to the ref
``HEAD`` points at, and a few more for text that goes into a prompt. One
pass over a name of bounded length, no regular expression.
"""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["MAX_REF_LENGTH", "ref_problem"]

MAX_REF_LENGTH: Final = 255
"""Longest ref accepted, in characters, ``refs/heads/`` included."""

_FORBIDDEN: Final = frozenset(" ~^:?*[\\")
# Unicode classes refused besides git's rules: controls (C0, DEL, C1 such as
# NEL), format characters (bidirectional overrides, zero-width characters),
# surrogates, private use and unassigned code points, and every separator
# (spaces other than ASCII's, line and paragraph separators).
_REFUSED_CLASSES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"})


def ref_problem(ref: str) -> str | None:
    """Why ``ref`` (such as ``refs/heads/main``) is not a valid ref name; None when it is.

    Git's rules (``git check-ref-format``): it starts with ``refs/``; no
    component is empty, starts with ``.`` or ends with ``.lock``; no ``..``,
    no ``@{``; no control character, space, ``~ ^ : ? * [ \\``; it does not
    end with ``/`` or ``.``; a branch name does not start with ``-``
    (``git check-ref-format --branch``). Besides, it has at most
    :data:`MAX_REF_LENGTH` characters and no character that Unicode classes
    as a control, a format character or a separator.
    """
    if len(ref) > MAX_REF_LENGTH:
        return f"it is longer than {MAX_REF_LENGTH} characters"
    if not ref.startswith("refs/"):
        return "it does not start with refs/"
    return _character_problem(ref) or _shape_problem(ref)


def _character_problem(ref: str) -> str | None:
    """The first character of ``ref`` a ref may not hold, said; None when there is none."""
    for char in ref:
        if char in _FORBIDDEN:
            return f"it holds {char!r}"
        if char == "\ufffd":
            return "it is not UTF-8 text"
        if unicodedata.category(char) in _REFUSED_CLASSES:
            return f"it holds the character U+{ord(char):04X}"
    return None


def _shape_problem(ref: str) -> str | None:
    """What in the sequences and components of ``ref`` git refuses; None when nothing."""
    for sequence in ("..", "@{"):
        if sequence in ref:
            return f"it holds {sequence!r}"
    if ref.endswith(("/", ".")):
        return f"it ends with {ref[-1]!r}"
    for component in ref.split("/"):
        if not component:
            return "it holds an empty component ('//')"
        if component.startswith("."):
            return f"its component {component!r} starts with '.'"
        if component.endswith(".lock"):
            return f"its component {component!r} ends with '.lock'"
    if ref.startswith("refs/heads/-"):
        return "the branch name starts with '-'"
    return None
