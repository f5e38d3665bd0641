"""Text made safe to show a person: no character that acts on a terminal or hides.

A report (a diff, a validation finding, an error quoting a file name) shows
what it quotes. A control character written raw acts on the terminal instead
(``ESC [2K`` erases the line that shows a change, ``ESC ]0;`` retitles the
window, ``ESC ]52;`` writes the clipboard, a bare carriage return writes over
the line), and an invisible one hides (bidi overrides reorder what is shown,
tag characters carry text that models read and people do not see). Each such
character is shown as ``<U+XXXX>`` instead: :func:`visible`,
:func:`visible_line`; :func:`json_visible` writes them as JSON escapes, so the
data a program parses stay exact. :func:`hidden_runs` finds them, for
``catalog validate``.

The hidden characters: every control (C0 but tab and line
feed, DEL, C1), every format character (Unicode category Cf: soft hyphen,
zero-width characters, bidi marks, embeddings, overrides and isolates, the
word joiner and invisible operators, the byte order mark, tag characters...),
the line and paragraph separators, surrogates, the invisible fillers and
joiners (U+034F, U+115F, U+1160, U+17B4, U+17B5, U+3164, U+FFA0), the
Mongolian and supplementary variation selectors, and two or more variation
selectors U+FE00-U+FE0F in a row (one after an emoji is how emoji are written;
a run can carry hidden bytes). Every pattern here is a character class: linear.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

__all__ = ["hidden_runs", "json_visible", "script_pattern", "visible", "visible_line"]

_CLASS: Final = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891"
    "\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\u3164\ud800-\udfff\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_SELECTORS: Final = "[\ufe00-\ufe0f]{2,}"


@cache
def _pattern(extra: str = "", run: bool = False) -> re.Pattern[str]:
    """One hidden character (or ``extra`` besides), or with ``run`` a run of them;
    compiled on first use (half a millisecond each), not when a command starts."""
    one = f"[{extra}{_CLASS}]|{_SELECTORS}"
    return re.compile(f"(?:{one})+" if run else one)


def _shown(match: re.Match[str]) -> str:
    return "".join(f"<U+{ord(char):04X}>" for char in match.group())


def visible(text: str) -> str:
    """``text`` with every hidden character written as ``<U+XXXX>``; tabs and line
    feeds stay."""
    return _pattern().sub(_shown, text)


def visible_line(text: str) -> str:
    """``text`` on one line: as :func:`visible`, and tabs and line feeds shown too
    (for a name, a label, a file name)."""
    return _pattern("\t\n").sub(_shown, text)


def _json_escape(match: re.Match[str]) -> str:
    escaped = []
    for char in match.group():
        code = ord(char)
        if code > 0xFFFF:  # JSON writes an astral character as its UTF-16 surrogate pair
            code -= 0x10000
            escaped.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{code:04x}")
    return "".join(escaped)


def json_visible(document: str) -> str:
    """A JSON document (as :func:`json.dumps` writes it) with every hidden character
    inside its strings written as a ``\\uXXXX`` escape: parsed, it gives the same data."""
    return _pattern().sub(_json_escape, document)


def script_pattern() -> str:
    """The pattern of one hidden character for a script in a web page (a JavaScript
    ``RegExp`` with the ``u`` flag): the rule of :func:`visible`, every character
    outside printable ASCII written as ``\\u{XXXX}`` (a page cannot carry a surrogate)."""
    return "".join(
        char if " " <= char <= "~" else f"\\u{{{ord(char):X}}}" for char in _pattern().pattern
    )


def hidden_runs(text: str) -> list[tuple[int, str]]:
    """``(offset, run)`` for every run of hidden characters in ``text``, in order."""
    return [(match.start(), match.group()) for match in _pattern(run=True).finditer(text)]
