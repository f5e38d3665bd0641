"""Did-you-mean hints: the known spellings closest to a mistyped name.

Every error about an unknown name (a field, a part, a command, a function)
ends with the same kind of hint, written here once.
"""

from __future__ import annotations

import re
import typing

__all__ = ["close_matches", "did_you_mean", "guess"]


def close_matches(name: str, candidates: typing.Iterable[str], *, n: int = 3) -> list[str]:
    """The spellings among ``candidates`` closest to ``name`` (likely typos of it),
    closest first, at most ``n``; the same whatever order ``candidates`` come in.

    A candidate that differs only in case (``MyBot``: ``mybot``), or that is one of
    the words of ``name`` (``os_name``, ``os-version``: ``os``), is what was meant:
    when there is one, only those are named, not a merely similar spelling
    (``hostname``)."""
    import difflib  # only when a hint is written: most commands never need it

    known = sorted(set(candidates))
    words = set(_WORDS.split(name.lower()))
    meant = [c for c in known if c.lower() == name.lower() and c != name]
    meant += [c for c in known if c.lower() in words and c not in meant and c != name]
    if meant:
        return meant[:n]
    return difflib.get_close_matches(name, known, n=n, cutoff=0.6)


_WORDS = re.compile(r"[_.\-\s]+")
"""What separates the words of a name."""


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
