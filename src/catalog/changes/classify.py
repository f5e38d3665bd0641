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
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

from catalog.lang.placeholders import mask_placeholders, placeholder_tokens

__all__ = [
    "ASSEMBLY_KEYS",
    "PART_KEYS",
    "RENAME_SIMILARITY",
    "SHINGLE",
    "ChangeClass",
    "TextClass",
    "find_renames",
    "inside_placeholders",
    "moved_parts",
    "text_class",
    "words",
]

TextClass = Literal["prose", "whitespace", "placeholders"]
ChangeClass = Literal["prose", "whitespace", "placeholders", "assembly", "metadata"]
"""``prose``: words changed, also inside a ``${...}`` expression's names, numbers,
operators or strings; ``whitespace``: only spaces, tabs and line breaks;
``placeholders``: only the layout of ``${...}`` expressions (spacing between their
tokens, quote marks); ``assembly``: a key that changes what is assembled (order,
condition, agents...) with the same text; ``metadata``: only descriptive keys
(description, meta, reference tokens)."""

# Part keys that change what a catalog assembles; the rest only describe a part.
ASSEMBLY_KEYS = frozenset(
    {"kind", "name", "order", "when", "agents", "stability", "slot", "template", "required",
     "priority", "group"}
)  # fmt: skip

# Manifest keys compared for a part, in report order (body, sha256 and tokens
# are covered by the text comparison).
PART_KEYS = (
    "kind",
    "name",
    "order",
    "when",
    "agents",
    "stability",
    "slot",
    "template",
    "required",
    "priority",
    "group",
    "description",
    "file",
    "reference_tokens",
    "meta",
)

SHINGLE = 4
RENAME_SIMILARITY = 0.5
# A shingle found in more removed bodies than this says nothing about which one
# an added body came from (boilerplate): it is left out of the index.
_MAX_POSTINGS = 8


# Spacing is the space, the tab and the line feed, nothing else: a carriage return,
# a no-break space, a control or an invisible character is part of a word.
_SPACING = re.compile(r"[ \t\n]+")


def words(text: str) -> list[str]:
    """``text`` split at runs of spaces, tabs and line feeds (and only those)."""
    stripped = text.strip(" \t\n")
    return _SPACING.split(stripped) if stripped else []


def _placeholder_words(text: str) -> list[str]:
    """What the placeholders of ``text`` say, spacing aside: their code tokens, and
    the words of their strings, each marked with a ``"`` (a name is never a string)."""
    found: list[str] = []
    for kind, value in placeholder_tokens(text):
        if kind == "code":
            found.append(value)
        else:
            found.extend(f'"{word}' for word in words(value))
    return found


def text_class(old: str, new: str) -> TextClass | None:
    """How ``old`` became ``new``; None when they are equal.

    ``whitespace`` when their words are the same; ``placeholders`` when the
    texts are the same with every ``${...}`` emptied and the placeholders say
    the same (see :func:`_placeholder_words`): the same names, numbers,
    punctuation and words of text, in the same order; else ``prose``.
    """
    if old == new:
        return None
    if words(old) == words(new):
        return "whitespace"
    if words(mask_placeholders(old)) == words(mask_placeholders(new)) and _placeholder_words(
        old
    ) == _placeholder_words(new):
        return "placeholders"
    return "prose"


def inside_placeholders(old: str, new: str) -> list[str] | None:
    """For a prose change made only inside ``${...}`` (the text around the
    placeholders the same, word for word): the texts of the strings in ``new``'s
    placeholders that ``old``'s lack, escapes decoded, in order (empty when only a
    name, number or operator changed). None for any other change."""
    if words(mask_placeholders(old)) != words(mask_placeholders(new)):
        return None
    before = {value for kind, value in placeholder_tokens(old) if kind == "text"}
    fresh = (
        value
        for kind, value in placeholder_tokens(new)
        if kind == "text" and value not in before and value.strip(" \t\n")
    )
    return list(dict.fromkeys(fresh))


# A short body is compared by shorter shingles: one word changed in a body of
# ten words changes most of its 4-word shingles, so a part renamed with a
# one-word edit would not be found. (upper bound of a body's word count, size)
_SHORT_SHINGLES = ((8, 1), (16, 2))


def _shingle_size(count: int) -> int:
    """The words per shingle a body of ``count`` words is compared by: one word
    below 8 words, two below 16, else :data:`SHINGLE`, so that one changed word
    changes at most about a quarter of any body's shingles."""
    for below, size in _SHORT_SHINGLES:
        if count < below:
            return size
    return SHINGLE


def _shingles(words: Sequence[str], size: int) -> set[bytes]:
    """The runs of ``size`` words of a body (the whole body when it has fewer)."""
    if len(words) < size:
        return {" ".join(words).encode()} if words else set()
    return {
        hashlib.blake2b(" ".join(words[i : i + size]).encode(), digest_size=8).digest()
        for i in range(len(words) - size + 1)
    }


def _sizes_for(count: int, sizes: set[int]) -> list[int]:
    """The shingle sizes an added body of ``count`` words is compared by: those of
    the removed bodies, but a short size only for a body short enough to be at
    least half alike a body of that size (four times the size's longest)."""
    limits = {size: below * 4 for below, size in _SHORT_SHINGLES}
    return sorted(size for size in sizes if count < limits.get(size, count + 1))


def find_renames(
    removed: Mapping[str, str], added: Mapping[str, str], *, threshold: float = RENAME_SIMILARITY
) -> list[tuple[str, str, float]]:
    """``(old id, new id, similarity)`` for each removed body that lives on in an added one.

    Same bodies pair first (similarity 1.0); then pairs whose word-shingle sets
    overlap by at least ``threshold`` (Jaccard), best first, each part used
    once. A pair is compared by the shingle size of its removed body
    (:func:`_shingle_size`: shorter for a short body). Ties go to the pair
    whose ids sort first, so the result does not depend on dictionary order.
    """
    pairs, left_removed, left_added = _same_bodies(removed, added)
    if not left_removed or not left_added:
        return pairs
    words = {old_id: removed[old_id].split() for old_id in left_removed}
    sizes = {old_id: _shingle_size(len(found)) for old_id, found in words.items()}
    shingles = {old_id: _shingles(words[old_id], sizes[old_id]) for old_id in left_removed}
    index: dict[tuple[int, bytes], list[str]] = {}
    for old_id, found in shingles.items():
        for shingle in found:
            index.setdefault((sizes[old_id], shingle), []).append(old_id)
    candidates: list[tuple[float, str, str]] = []
    for new_id in left_added:
        text = added[new_id].split()
        mine = {size: _shingles(text, size) for size in _sizes_for(len(text), set(sizes.values()))}
        for old_id, score in _scores(mine, sizes, shingles, index).items():
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


def _same_bodies(
    removed: Mapping[str, str], added: Mapping[str, str]
) -> tuple[list[tuple[str, str, float]], list[str], list[str]]:
    """The pairs of a removed and an added part with the same body (ids sorted, each
    used once), and the removed and added ids left unpaired."""
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
    return pairs, [i for i in sorted(removed) if i not in taken], left_added


def _scores(
    mine: Mapping[int, set[bytes]],
    sizes: Mapping[str, int],
    shingles: Mapping[str, set[bytes]],
    index: Mapping[tuple[int, bytes], list[str]],
) -> dict[str, float]:
    """The Jaccard similarity of an added body (its shingles by size, ``mine``) and each
    removed body it shares an indexed shingle with.

    A shingle more than :data:`_MAX_POSTINGS` removed bodies hold finds no
    candidate; a short body's score then counts every shingle (a few words:
    cheap), a long one's the indexed ones it was found by."""
    shared: Counter[str] = Counter()
    for size, found in mine.items():
        for shingle in found:
            postings = index.get((size, shingle))
            if postings is not None and len(postings) <= _MAX_POSTINGS:
                shared.update(postings)
    scores: dict[str, float] = {}
    for old_id, common in shared.items():
        own = mine[sizes[old_id]]
        if sizes[old_id] < SHINGLE:
            common = len(own & shingles[old_id])
        scores[old_id] = common / (len(own) + len(shingles[old_id]) - common)
    return scores


def moved_parts(before: Sequence[tuple[str, int]], after: Sequence[tuple[str, int]]) -> set[str]:
    """Ids of the shared parts to take out so that the rest keep their relative order.

    ``before`` and ``after`` are the ``(id, order)`` of two versions' parts in
    catalog order. The parts kept are a heaviest common subsequence of the two
    orders, a part whose ``order`` value is unchanged weighing 3 and a
    renumbered one 2: the parts an author renumbered are the ones called
    moved, not the neighbours they jumped over. Each id appears once on each
    side, so this is a heaviest increasing subsequence of new positions taken
    in old order: O(n log n), and O(n) when nothing moved (the usual case).
    """
    before_orders = dict(before)
    after_orders = dict(after)
    shared = [i for i in before_orders if i in after_orders]
    position = {
        part_id: index for index, part_id in enumerate(i for i, _ in after if i in before_orders)
    }
    sequence = [position[i] for i in shared]
    if sequence == list(range(len(sequence))):
        return set()
    weight = [2 + (before_orders[i] == after_orders[i]) for i in shared]
    # best[k]: the heaviest chain ending at a new position <= k (Fenwick tree of maxima).
    size = len(sequence)
    tree = [(0, -1)] * (size + 1)
    chain_end: list[tuple[int, int]] = []
    for index, value in enumerate(sequence):
        best, previous = 0, -1
        k = value  # prefix of positions < value
        while k > 0:
            if tree[k][0] > best:
                best, previous = tree[k]
            k -= k & -k
        total = best + weight[index]
        chain_end.append((total, previous))
        k = value + 1
        while k <= size:
            if total > tree[k][0]:
                tree[k] = (total, index)
            k += k & -k
    kept: set[str] = set()
    index = max(range(size), key=lambda i: (chain_end[i][0], -i))
    while index >= 0:
        kept.add(shared[index])
        index = chain_end[index][1]
    return set(shared) - kept
