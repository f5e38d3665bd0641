"""Did-you-mean hints: the known spellings closest to a mistyped name.

Every error about an unknown name (a field, a part, a command, a function)
ends with the same kind of hint, written here once.
"""

from __future__ import annotations

import typing

__all__ = ["close_matches", "did_you_mean", "guess"]


def close_matches(name: str, candidates: typing.Iterable[str], *, n: int = 3) -> list[str]:
    """The spellings among ``candidates`` closest to ``name`` (likely typos of it),
    closest first, at most ``n``; the same whatever order ``candidates`` come in."""
    import difflib  # only when a hint is written: most commands never need it

    return difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.6)


def guess(name: str, candidates: typing.Iterable[str], *, n: int = 3) -> str:
    """``did you mean 'a' or 'b'?`` for the spellings among ``candidates`` closest to
    ``name`` (see :func:`close_matches`); empty when none is close."""
    close = close_matches(name, candidates, n=n)
    return f"did you mean {' or '.join(map(repr, close))}?" if close else ""


def did_you_mean(name: str, known: typing.Iterable[str], *, what: str) -> str:
    """Return a hint naming the closest known spellings of ``name`` and all known ones.

    ``what`` names the list in the hint ("known names", "fields of Agent").
    The output is sorted, so it is the same in every process.
    """
    candidates = sorted(set(known))
    if not candidates:
        return f"there are no {what}"
    listing = f"{what}: {', '.join(candidates)}"
    close = guess(name, candidates)
    return f"{close} {listing}" if close else listing
