"""What kind of change a part went through, and which removed parts were renamed.

A reviewer reading a release's diff wants the changes in words first: a part
whose prose changed matters more than one whose ``${...}`` placeholders were
reformatted, whose whitespace moved, or whose description was reworded.
:func:`text_class` tells these apart; :func:`find_renames` pairs a removed
part with an added one whose body is the same or nearly the same.

Both are linear in the size of the texts: renames are found through an index
of word shingles (runs of :data:`SHINGLE` words), never by comparing every
removed part with every added one.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from typing import Literal

from catalog.lang.placeholders import mask_placeholders

__all__ = [
    "ASSEMBLY_KEYS",
    "RENAME_SIMILARITY",
    "SHINGLE",
    "ChangeClass",
    "TextClass",
    "find_renames",
    "text_class",
]

TextClass = Literal["prose", "whitespace", "placeholders"]
ChangeClass = Literal["prose", "whitespace", "placeholders", "assembly", "metadata"]
"""``prose``: words changed; ``whitespace``: only spacing and line breaks;
``placeholders``: only the inside of ``${...}`` expressions; ``assembly``: a key
that changes what is assembled (order, condition, agents...) with the same
text; ``metadata``: only descriptive keys (description, meta, reference tokens)."""

# Part keys that change what a catalog assembles; the rest only describe a part.
ASSEMBLY_KEYS = frozenset(
    {"kind", "name", "order", "when", "agents", "stability", "slot", "template", "required",
     "priority"}
)  # fmt: skip

SHINGLE = 4
RENAME_SIMILARITY = 0.5
# A shingle found in more removed bodies than this says nothing about which one
# an added body came from (boilerplate): it is left out of the index.
_MAX_POSTINGS = 8


def text_class(old: str, new: str) -> TextClass | None:
    """How ``old`` became ``new``; None when they are equal."""
    if old == new:
        return None
    if old.split() == new.split():
        return "whitespace"
    if mask_placeholders(old).split() == mask_placeholders(new).split():
        return "placeholders"
    return "prose"


def _shingles(text: str) -> set[bytes]:
    words = text.split()
    if len(words) < SHINGLE:
        return {" ".join(words).encode()} if words else set()
    return {
        hashlib.blake2b(" ".join(words[i : i + SHINGLE]).encode(), digest_size=8).digest()
        for i in range(len(words) - SHINGLE + 1)
    }


def find_renames(
    removed: Mapping[str, str], added: Mapping[str, str], *, threshold: float = RENAME_SIMILARITY
) -> list[tuple[str, str, float]]:
    """``(old id, new id, similarity)`` for each removed body that lives on in an added one.

    Same bodies pair first (similarity 1.0); then pairs whose word-shingle sets
    overlap by at least ``threshold`` (Jaccard), best first, each part used
    once. Ties go to the pair whose ids sort first, so the result does not
    depend on dictionary order.
    """
    pairs: list[tuple[str, str, float]] = []
    by_body: dict[str, list[str]] = {}
    for old_id in sorted(removed):
        by_body.setdefault(removed[old_id], []).append(old_id)
    left_added = []
    for new_id in sorted(added):
        same = by_body.get(added[new_id])
        if same:
            pairs.append((same.pop(0), new_id, 1.0))
        else:
            left_added.append(new_id)
    taken = {old for old, _, _ in pairs}
    left_removed = [i for i in sorted(removed) if i not in taken]
    if not left_removed or not left_added:
        return pairs
    shingles = {old_id: _shingles(removed[old_id]) for old_id in left_removed}
    index: dict[bytes, list[str]] = {}
    for old_id, found in shingles.items():
        for shingle in found:
            index.setdefault(shingle, []).append(old_id)
    candidates: list[tuple[float, str, str]] = []
    for new_id in left_added:
        mine = _shingles(added[new_id])
        shared: Counter[str] = Counter()
        for shingle in mine:
            postings = index.get(shingle)
            if postings is not None and len(postings) <= _MAX_POSTINGS:
                shared.update(postings)
        for old_id, common in shared.items():
            score = common / (len(mine) + len(shingles[old_id]) - common)
            if score >= threshold:
                candidates.append((-score, old_id, new_id))
    candidates.sort()
    used_old: set[str] = set()
    used_new: set[str] = set()
    for negative, old_id, new_id in candidates:
        if old_id not in used_old and new_id not in used_new:
            pairs.append((old_id, new_id, round(-negative, 3)))
            used_old.add(old_id)
            used_new.add(new_id)
    return pairs
