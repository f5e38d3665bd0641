"""An offline estimate of the token count Anthropic's API gives for a text (``claude``).

Anthropic publishes no tokenizer for its current models; its token-counting
API is online. cl100k counts fall well short of it for prompt text (about
1.58 times on the parts of Claude Code 2.1.240 counted with the current model),
and by how much depends on the text: code, punctuation and non-ASCII text
cost relatively more. :func:`estimate` is a small linear model over the
cl100k count and a few text features (:data:`FEATURES`), computed from the
text's UTF-8 bytes mapped once to their classes (letter, digit, punctuation,
space...) and counted there: linear, without building a list of matches.
Its coefficients were fitted against the counts published with Claude Code's
prompts (imported releases carry them as ``reference_tokens``);
``scripts/calibrate_claude.py`` re-derives them from an imported history and
prints how close the estimate comes. It is an estimate: on the 594 distinct
texts counted with the current model in the nine fixture releases it falls
within ±15 % of the published count for 98.7 % of them (a plain factor of
1.6 manages 82 %); fitted without 2.1.240, it hit all 80 texts new in 2.1.240.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["COEFFICIENTS", "FEATURES", "estimate", "features"]

FEATURES = (
    "cl100k",  # the cl100k_base count
    "chars",
    "non_ascii",  # UTF-8 bytes beyond one per character
    "punctuation",
    "digits",
    "newlines",
    "space_runs",  # runs of two or more spaces (indentation, alignment)
    "uppercase",
    "words",  # runs of ASCII letters
    "constant",
)

# Fitted by scripts/calibrate_claude.py on the parts of the nine fixture releases
# (2.0.14 to 2.1.240) whose ccVersion is 2.1.180 or later: 594 distinct texts.
COEFFICIENTS: tuple[float, ...] = (
    0.95501,  # cl100k
    0.18301,  # chars
    -0.04966,  # non_ascii
    0.14747,  # punctuation
    0.29014,  # digits
    0.24969,  # newlines
    -1.51869,  # space_runs
    0.60242,  # uppercase
    -0.52196,  # words
    -1.65350,  # constant
)

_PUNCTUATION = b"""{}[]()<>;:=+-*/\\|&^%$#@!?`~"',._"""


def _class_of(byte: int) -> str:
    """The class a byte of UTF-8 is counted in: an upper case letter ``A``, another
    letter ``a``, a digit ``9``, a punctuation mark ``.``, a space, or anything else
    ``_`` (the bytes of a character beyond ASCII among them)."""
    char = chr(byte)
    if byte >= 128 or not char.isprintable():
        return "_"
    if char.isalpha():
        return "A" if char.isupper() else "a"
    if char.isdigit():
        return "9"
    if byte in _PUNCTUATION:
        return "."
    return " " if char == " " else "_"


_CLASSES = "".join(map(_class_of, range(256))).encode()
# Those classes with the letters as one: "w" (a word's), " " and the rest as "_".
_LETTERS = bytes(ord("w" if byte in b"Aa" else " " if byte == 32 else "_") for byte in range(256))


def features(text: str, cl100k: int) -> tuple[float, ...]:
    """The values of :data:`FEATURES` for ``text`` whose cl100k count is ``cl100k``.

    A word is a run of ASCII letters and a space run two or more spaces, so each
    is counted where it starts: a letter, or two spaces, after anything else.
    """
    data = text.encode("utf-8")
    classes = data.translate(_CLASSES)
    letters = b"_" + classes.translate(_LETTERS)  # something else before the first
    return (
        float(cl100k),
        float(len(text)),
        float(len(data) - len(text)),
        float(classes.count(b".")),
        float(classes.count(b"9")),
        float(text.count("\n")),
        float(letters.count(b"_  ") + letters.count(b"w  ")),
        float(classes.count(b"A")),
        float(letters.count(b"_w") + letters.count(b" w")),
        1.0,
    )


def estimate(text: str, cl100k: int, coefficients: Sequence[float] = COEFFICIENTS) -> int:
    """The estimated count of ``text`` (never negative; 0 for an empty text)."""
    if not text:
        return 0
    value = sum(w * f for w, f in zip(coefficients, features(text, cl100k), strict=True))
    return max(1, round(value))
