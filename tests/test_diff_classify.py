"""Change classes and renames (catalog.changes.classify) and how diffs report them."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

import catalog
from catalog.changes.classify import find_renames, text_class
from catalog.changes.render import render_markdown, render_text
from catalog.io.catalog_path import load_dir

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
