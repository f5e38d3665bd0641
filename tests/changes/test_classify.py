"""Change classes and renames (catalog.changes.classify) and how diffs report them.

Every boundary between the classes of a text change: what is only whitespace, only
the layout of a placeholder, and what is a change of wording a reviewer must see."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import catalog
from catalog.changes.classify import (
    _shingle_size,
    _shingles,
    _sizes_for,
    find_renames,
    inside_placeholders,
    moved_parts,
    text_class,
    words,
)
from catalog.changes.history import open_history
from catalog.changes.render import render_markdown, render_text
from catalog.io.catalog_path import load_dir
from tests.conftest import write_catalog

PROSE = "Use the ${READ_TOOL_NAME} tool to read files before you edit them."


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (PROSE, PROSE, None),
        (PROSE, PROSE.replace(" ", "  ").replace("files", "files\n"), "whitespace"),
        (PROSE, PROSE.replace("${READ_TOOL_NAME}", "${ READ_TOOL_NAME }"), "placeholders"),
        (
            'A ${X ? "yes" : ""} b',
            'A ${X?"yes":""} b',
            "placeholders",
        ),
        (
            'A ${\n  FLAG\n    ? `x`\n    : ""\n} b',
            'A ${FLAG?`x`:""} b',
            "placeholders",
        ),
        (PROSE, PROSE.replace("read files", "read every file"), "prose"),
        (PROSE, PROSE.replace("${READ_TOOL_NAME}", "Read"), "prose"),
    ],
)
def test_text_classes(old: str, new: str, expected: str | None) -> None:
    assert text_class(old, new) == expected


def _words(rng: random.Random, count: int) -> str:
    vocabulary = [f"w{n}" for n in range(5000)]
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def test_renames_same_and_nearly_same_bodies() -> None:
    rng = random.Random(7)
    whiteboard = _words(rng, 300)
    guide = _words(rng, 200)
    edited = guide.replace(guide.split()[50], "changed", 1) + " one more sentence here"
    pairs = find_renames(
        {"skill-artifact-whiteboard": whiteboard, "data-guide": guide, "gone": _words(rng, 80)},
        {"skill-whiteboard": whiteboard, "data-guide-v2": edited, "fresh": _words(rng, 80)},
    )
    assert [(old, new) for old, new, _ in pairs] == [
        ("skill-artifact-whiteboard", "skill-whiteboard"),
        ("data-guide", "data-guide-v2"),
    ]
    assert pairs[0][2] == 1.0
    assert 0.5 <= pairs[1][2] < 1.0


def test_renames_pair_each_part_once_best_first() -> None:
    rng = random.Random(3)
    base = _words(rng, 200)
    closer = base + " tail"
    farther = " ".join(base.split()[:150]) + " " + _words(rng, 50)
    pairs = find_renames({"old": base}, {"far": farther, "near": closer})
    assert [(old, new) for old, new, _ in pairs] == [("old", "near")]


def test_renames_scale_to_hundreds_of_parts() -> None:
    # 700 removed and 700 added parts, each added one a light edit of one removed
    # one: every pair is found (an index of shingles, not 490,000 comparisons).
    rng = random.Random(11)
    removed = {f"old-{n}": _words(rng, 120) for n in range(700)}
    shuffled = list(removed.items())
    rng.shuffle(shuffled)
    added = {
        f"new-{old.removeprefix('old-')}": body.replace(body.split()[10], "edited", 1)
        for old, body in shuffled
    }
    pairs = find_renames(removed, added)
    assert len(pairs) == 700
    assert all(old.removeprefix("old-") == new.removeprefix("new-") for old, new, _ in pairs)


def test_boilerplate_alone_is_no_rename() -> None:
    # Bodies sharing only a line that most parts have are different parts.
    common = "Follow the instructions below carefully and answer briefly."
    removed = {f"r{n}": f"{common} {_words(random.Random(n), 40)}" for n in range(10)}
    added = {f"a{n}": f"{common} {_words(random.Random(100 + n), 40)}" for n in range(10)}
    assert find_renames(removed, added) == []


@pytest.fixture
def release_pair(make_catalog: Callable[..., Path]) -> catalog.CatalogDiff:
    rng = random.Random(5)
    board = _words(rng, 100)

    def part(part_id: str, body: str, **more: object) -> dict[str, object]:
        return {"id": part_id, "body": body, "template": False, **more}

    old = make_catalog(
        "rel",
        "1.0.0",
        parts=[
            part("prose", PROSE, meta={"name": "Prose part", "variables": ["A", "B"]}),
            part("spaces", PROSE),
            part("holes", PROSE),
            part("described", PROSE, description="Old words"),
            part("skill-artifact-whiteboard", board, meta={"name": "Skill: Artifact whiteboard"}),
            part("gone", "Removed for good."),
        ],
    )
    new = make_catalog(
        "rel",
        "1.1.0",
        parts=[
            part(
                "prose",
                PROSE.replace("read files", "read every file"),
                meta={"name": "Prose part", "variables": ["B", "C"]},
            ),
            part("spaces", PROSE.replace(" the ", "  the ")),
            part("holes", PROSE.replace("${READ_TOOL_NAME}", "${ READ_TOOL_NAME }")),
            part("described", PROSE, description="New words"),
            part("skill-whiteboard", board, meta={"name": "Skill: Whiteboard"}),
            part("fresh", "A new part."),
        ],
    )
    return catalog.diff(load_dir(old), load_dir(new), counter=len)


def test_each_change_has_its_class(release_pair: catalog.CatalogDiff) -> None:
    classes = {p.id: (p.status, p.change) for p in release_pair.changes}
    assert classes == {
        "prose": ("changed", "prose"),
        "spaces": ("changed", "whitespace"),
        "holes": ("changed", "placeholders"),
        "described": ("changed", "metadata"),
        "skill-whiteboard": ("renamed", None),
        "gone": ("removed", None),
        "fresh": ("added", None),
    }
    renamed = next(p for p in release_pair.changes if p.status == "renamed")
    assert (renamed.old_id, renamed.old_name, renamed.similarity) == (
        "skill-artifact-whiteboard",
        "Skill: Artifact whiteboard",
        1.0,
    )
    summary = release_pair.to_dict()["summary"]
    assert (summary["renamed"], summary["only_whitespace"], summary["only_metadata"]) == (1, 1, 1)


def test_markdown_reads_like_a_changelog(release_pair: catalog.CatalogDiff) -> None:
    bullets = [line for line in render_markdown(release_pair).splitlines() if line[:2] == "- "]
    assert bullets == [
        "- **NEW:** fresh: system, order 60 (+11 tokens)",
        "- **REMOVED:** gone (-17 tokens)",
        "- **RENAMED:** Skill: Artifact whiteboard (`skill-artifact-whiteboard`) → "
        "Skill: Whiteboard (`skill-whiteboard`) (100% alike) (+0 tokens)",
        "- Prose part (`prose`): text changed; meta.variables +`C`, -`A` (+5 tokens)",
        "- 1 part changed only in metadata, 1 only inside placeholders, 1 only in whitespace "
        "— `--all` lists them",
    ]
    everything = render_markdown(release_pair, all_changes=True)
    assert "`--all`" not in everything
    assert "- spaces: whitespace changed (+1 tokens)" in everything
    assert "- holes: placeholders changed (+2 tokens)" in everything
    assert "- New words (`described`): description `Old words` → `New words` (+0 tokens)" in (
        everything
    )


def test_text_folds_the_same_kinds(release_pair: catalog.CatalogDiff) -> None:
    text = render_text(release_pair)
    assert "  > skill-artifact-whiteboard -> skill-whiteboard  (system, order 50)" in text
    assert (
        "  1 part changed only in metadata, 1 only inside placeholders, 1 only in whitespace "
        "(--all lists them)" in text
    )
    assert "  ~ spaces" not in text
    assert "  ~ spaces" in render_text(release_pair, all_changes=True)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use Bash here.", "use Bash here."),  # one letter's case
        ("Use Bash here.", "USE BASH HERE."),
        ("Use Bash here.", "Use bash here."),
        ("straße", "STRASSE"),  # the same under casefold, not the same text
        ("Use Bash here.", "Use Bash here"),  # punctuation
        ("Use Bash here.", "Use Bash, here."),
        ("Use Bash here.", "UseBash here."),  # two words joined
        ("Use Bash here.", "Use Ba sh here."),  # one word split
        ("a\nb", "a\r\nb"),  # a carriage return is part of a word
        ("a b", "a\u00a0b"),  # a no-break space too
        ("ab", "a\u200bb"),  # and an invisible one
        ("a b", "a b\x0b"),
        ("café", "cafe\u0301"),  # another normal form
        ("one two", "two one"),  # the same words in another order
        ("one", "one one"),
        ("", "one"),
        ("one", ""),
        ("Use ${A} here.", "Use ${a} here."),  # a placeholder's name, another case
        ('Say ${X ? "Yes" : ""}.', 'Say ${X ? "yes" : ""}.'),  # a string's word
        ('Say ${X ? "a b" : ""}.', 'Say ${X ? "ab" : ""}.'),
        ("Use ${A} here.", "Use ${B} here."),
        ("Use ${A + 1} here.", "Use ${A + 2} here."),
        ("Use ${A + 1} here.", "Use ${A - 1} here."),
        ("Use ${A} here.", "Use ${ A } Here."),  # layout inside and a word outside
        ("Use ${A} here.", "Use A here."),
    ],
)
def test_a_change_of_wording_is_prose(old: str, new: str) -> None:
    assert text_class(old, new) == "prose"
    assert text_class(new, old) == "prose"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use Bash here.", "Use  Bash here."),
        ("Use Bash here.", "Use\tBash here."),
        ("Use Bash here.", "Use\nBash here."),
        ("Use Bash here.", "Use \t\n Bash here."),
        ("Use Bash here.", " Use Bash here."),
        ("Use Bash here.", "Use Bash here.\n"),
        ("Use Bash here.", "\n\nUse Bash here.\n\n"),
        ("", " \n\t"),
        ('Say ${X ? "a b" : ""}.', 'Say ${X ? "a  b" : ""}.'),  # spacing inside a string
    ],
)
def test_a_change_of_spaces_tabs_and_line_feeds_alone_is_whitespace(old: str, new: str) -> None:
    assert text_class(old, new) == "whitespace"
    assert text_class(new, old) == "whitespace"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use ${A} here.", "Use ${ A } here."),
        ("Use ${A+1} here.", "Use ${A + 1} here."),
        ('Say ${X ? "yes" : ""}.', "Say ${X ? 'yes' : ''}."),  # quote marks
        ('Say ${X ? "yes" : ""}.', "Say ${X ? `yes` : ``}."),
        ("Use ${A} here.", "Use  ${ A }  here."),  # and whitespace around
    ],
)
def test_a_change_of_placeholder_layout_alone_is_placeholders(old: str, new: str) -> None:
    assert text_class(old, new) == "placeholders"
    assert text_class(new, old) == "placeholders"


@pytest.mark.parametrize("text", ["", " ", "Use Bash.", "Use ${A}.", "a\r\nb"])
def test_the_same_text_is_no_change(text: str) -> None:
    assert text_class(text, text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        (" \t\n", []),
        ("a", ["a"]),
        (" a\tb\nc ", ["a", "b", "c"]),
        ("a\r\nb", ["a\r", "b"]),
        ("a\u00a0b", ["a\u00a0b"]),
        ("A a", ["A", "a"]),
    ],
)
def test_words_split_at_spaces_tabs_and_line_feeds_only(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('Say ${X ? "yes" : ""}.', 'Say ${X ? "Yes" : ""}.', ["Yes"]),
        ('Say ${X ? "yes" : ""}.', 'Say ${X ? "yes" : "no"}.', ["no"]),
        ("Use ${A} here.", "Use ${B} here.", []),
        ("Use ${A} here.", "Use ${A} there.", None),
        ("Use ${A} here.", "use ${A} here.", None),
    ],
)
def test_inside_placeholders_names_the_new_strings(
    old: str, new: str, expected: list[str] | None
) -> None:
    assert inside_placeholders(old, new) == expected


def test_a_case_only_edit_is_shown_by_default_in_a_diff(
    make_catalog: Callable[..., Path],
) -> None:
    """`catalog diff` folds whitespace changes into one line by default: a change of case
    is wording, listed with the prose changes."""
    old = make_catalog("demo", "1.0.0", [{"id": "rule", "body": "Never push to main."}])
    new = make_catalog("demo", "1.1.0", [{"id": "rule", "body": "Never push to Main."}])
    changes = catalog.diff(load_dir(old), load_dir(new), counter=len)
    assert [(p.id, p.status, p.change) for p in changes.changes] == [("rule", "changed", "prose")]
    assert "rule" in render_text(changes)
    assert "only in whitespace" not in render_text(changes)


def test_a_placeholders_names_and_strings_are_told_apart() -> None:
    """A name and a string of the same letters say different things; spacing inside a
    string, with the placeholder's layout changed too, is still only layout."""
    assert text_class("Use ${A} here.", 'Use ${"A"} here.') == "prose"
    assert text_class('Use ${A + "B"} here.', 'Use ${"A" + B} here.') == "prose"
    assert text_class('Say ${X ? "a b" : ""}.', 'Say ${X?"a  b":""}.') == "placeholders"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('Say ${X ? "" : ""}.', 'Say ${X ? "X" : ""}.', ["X"]),
        ('Say ${X ? "" : ""}.', 'Say ${X ? "\u00a0" : ""}.', ["\u00a0"]),  # not spacing
        ('Say ${X ? "" : ""}.', 'Say ${X ? " \t" : ""}.', []),  # spacing alone is no text
    ],
)
def test_inside_placeholders_keeps_strings_with_any_character_but_spacing(
    old: str, new: str, expected: list[str]
) -> None:
    assert inside_placeholders(old, new) == expected


@pytest.mark.parametrize(("text", "expected"), [("X a X", ["X", "a", "X"]), ("XaX", ["XaX"])])
def test_words_strip_only_spacing(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(("count", "size"), [(0, 1), (7, 1), (8, 2), (15, 2), (16, 4), (500, 4)])
def test_a_body_is_compared_by_shorter_shingles_the_shorter_it_is(count: int, size: int) -> None:
    """Below 8 words one word per shingle, below 16 two, else four."""
    assert _shingle_size(count) == size


def test_shingles_are_runs_of_words_hashed_and_a_short_body_is_one() -> None:
    def hashed(text: str) -> bytes:
        return hashlib.blake2b(text.encode(), digest_size=8).digest()

    assert _shingles([], 4) == set()
    assert _shingles(["a", "b"], 4) == {b"a b"}
    assert _shingles(["a", "b"], 2) == {hashed("a b")}
    assert _shingles(["a", "b", "c"], 2) == {hashed("a b"), hashed("b c")}
    assert _shingles(["a", "b", "c", "d", "e"], 4) == {hashed("a b c d"), hashed("b c d e")}


@pytest.mark.parametrize(
    ("count", "sizes", "expected"),
    [
        (31, {1, 2, 4}, [1, 2, 4]),  # a size-1 body (under 8 words) is half alike under 32
        (32, {1, 2, 4}, [2, 4]),
        (63, {2, 4}, [2, 4]),
        (64, {2, 4}, [4]),
        (1000, {4}, [4]),
    ],
)
def test_an_added_body_is_compared_only_by_sizes_it_could_match(
    count: int, sizes: set[int], expected: list[int]
) -> None:
    assert _sizes_for(count, sizes) == expected


def test_a_rename_at_exactly_the_threshold_is_found_and_its_similarity_rounded() -> None:
    # one-word shingles: 3 shared of 6 in all is 0.5; 2 of 3 is 0.667
    assert find_renames({"old": "a b c"}, {"new": "a b c d e f"}) == [("old", "new", 0.5)]
    assert find_renames({"old": "a b"}, {"new": "a b c"}) == [("old", "new", 0.667)]
    assert find_renames({"old": "a b"}, {"new": "a b c d e"}) == []  # 0.4


def test_each_added_part_is_paired_once() -> None:
    removed = {"x": "a b c e", "y": "a b c f"}
    assert find_renames(removed, {"n": "a b c g"}) == [("x", "n", 0.6)]


def test_many_same_bodies_pair_in_id_order() -> None:
    """Same bodies pair by their text, however many share it (a boilerplate body that
    the shingle index leaves out)."""
    removed = {f"r{i}": "Same text here." for i in range(10)}
    added = {f"a{i}": "Same text here." for i in range(10)}
    assert find_renames(removed, added) == [(f"r{i}", f"a{i}", 1.0) for i in range(10)]


def test_a_shingle_in_eight_removed_bodies_still_finds_them() -> None:
    removed = {f"r{i}": f"common words here x{i}" for i in range(8)}
    assert find_renames(removed, {"a": "common words here y"}) == [("r0", "a", 0.6)]
    removed["r8"] = "common words here x8"  # in nine: boilerplate, it finds none
    assert find_renames(removed, {"a": "common words here y"}) == []


def test_a_long_body_is_scored_by_the_shingles_it_was_found_by() -> None:
    # Nine long bodies open with the same four words: that shingle is boilerplate,
    # left out of the index and out of a long body's score. "t" (16 words: 13
    # shingles) and "n" (its last word changed: 13 shingles) share 12, the
    # boilerplate one among them: 11 / (13 + 13 - 11) = 0.733, not 12 / 14.
    opening = "you are a helper"
    removed = {f"o{i}": f"{opening} " + " ".join(f"o{i}w{k}" for k in range(12)) for i in range(8)}
    removed["t"] = f"{opening} " + " ".join(f"t{k}" for k in range(12))
    added = {"n": removed["t"].replace("t11", "changed")}
    assert find_renames(removed, added) == [("t", "n", 0.733)]


def _heaviest(before: list[tuple[str, int]], after: list[tuple[str, int]]) -> int:
    """The weight of a heaviest common subsequence of the two orders (3 a part whose
    order is unchanged, 2 one renumbered), by the plain quadratic recurrence."""
    orders = dict(after)
    position = {part: index for index, (part, _) in enumerate(after)}
    shared = [(part, order) for part, order in before if part in position]
    best: list[int] = []
    for i, (part, order) in enumerate(shared):
        weight = 2 + (orders[part] == order)
        earlier = [best[j] for j in range(i) if position[shared[j][0]] < position[part]]
        best.append(weight + max(earlier, default=0))
    return max(best, default=0)


@given(st.permutations(list("abcdefghij")), st.lists(st.booleans(), min_size=10, max_size=10))
def test_the_parts_kept_in_place_are_a_heaviest_common_order(
    order: list[str], renumbered: list[bool]
) -> None:
    before = [(part, 10 * (index + 1)) for index, part in enumerate("abcdefghij")]
    numbers = dict(before)
    after = [
        (part, numbers[part] + 1 if renumbered[i] else numbers[part])
        for i, part in enumerate(order)
    ]
    moved = moved_parts(before, after)
    kept = [part for part, _ in before if part not in moved]
    assert kept == [part for part, _ in after if part not in moved]  # the same order
    orders = dict(after)
    assert sum(2 + (orders[p] == numbers[p]) for p in kept) == _heaviest(before, after)


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        ([("a", 10), ("b", 20)], [("a", 10), ("b", 20)], set()),
        ([("a", 10), ("b", 20)], [("b", 20), ("a", 10)], {"b"}),  # a tie: the first kept
        ([("a", 10), ("b", 20)], [("b", 5), ("a", 10)], {"b"}),  # the renumbered one moved
        ([("a", 10), ("b", 20)], [("b", 20), ("a", 30)], {"a"}),
        ([("a", 1), ("b", 2), ("c", 3)], [("c", 3), ("a", 1), ("b", 2)], {"c"}),
        ([("a", 1), ("b", 2), ("c", 3)], [("b", 2), ("c", 3), ("a", 1)], {"a"}),
        ([("a", 1), ("b", 2), ("c", 3)], [("c", 3), ("b", 2), ("a", 1)], {"b", "c"}),
        ([("a", 1), ("b", 2), ("x", 9)], [("y", 0), ("b", 2), ("a", 1)], {"b"}),  # not shared
        # Ties between chains as heavy as each other: the parts first in the old order kept.
        ([("a", 1), ("b", 2), ("c", 3)], [("b", 2), ("a", 1), ("c", 3)], {"b"}),
        (
            [("a", 1), ("b", 2), ("c", 3), ("d", 4)],
            [("b", 2), ("d", 4), ("a", 1), ("c", 3)],
            {"b", "d"},
        ),
        (  # two unchanged weigh as much as three renumbered (6): a tie, the first kept
            [("u1", 1), ("u2", 2), ("r1", 3), ("r2", 4), ("r3", 5)],
            [("r1", 30), ("r2", 40), ("r3", 50), ("u1", 1), ("u2", 2)],
            {"r1", "r2", "r3"},
        ),
        (  # three unchanged outweigh four renumbered (9 to 8)
            [("u1", 1), ("u2", 2), ("u3", 3), ("r1", 4), ("r2", 5), ("r3", 6), ("r4", 7)],
            [("r1", 40), ("r2", 50), ("r3", 60), ("r4", 70), ("u1", 1), ("u2", 2), ("u3", 3)],
            {"r1", "r2", "r3", "r4"},
        ),
    ],
)
def test_moved_parts_by_hand(
    before: list[tuple[str, int]], after: list[tuple[str, int]], moved: set[str]
) -> None:
    assert moved_parts(before, after) == moved


def test_a_group_change_is_an_assembly_change(tmp_path: Path) -> None:
    """A part's ``group`` is an assembly key: diff and log report a part joining a group
    as an assembly change."""
    root = tmp_path / "catalogs"
    old = write_catalog(root, "demo", "1.0.0", [{"id": "a", "body": "A."}, {"id": "b"}])
    new = write_catalog(
        root, "demo", "1.1.0", [{"id": "a", "body": "A.", "group": "g"}, {"id": "b"}]
    )
    result = catalog.diff(load_dir(old), load_dir(new))
    changed = {p.id: (p.change, [(f.key, f.old, f.new) for f in p.fields]) for p in result.changes}
    assert changed == {"a": ("assembly", [("group", None, "g")])}
    entries = open_history("demo", paths=[root], cache=False).log("a").entries
    assert [(e.version, e.change) for e in entries] == [("1.0.0", "added"), ("1.1.0", "assembly")]
