"""A part's history (log, blame, grep) on hand-written histories whose every answer is
known: renames, removals and re-additions, whitespace-only, placeholder-only,
metadata and assembly changes, a line removed and added back, repeated lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tomli_w

from catalog.changes.history import CatalogHistory, open_history
from catalog.errors import ManifestError, NotFoundError, UsageError
from catalog.io.catalog_path import CatalogPath
from tests._support.history_story import STORY, assert_log_agrees_with_diff, part, write_history
from tests.conftest import sha


@pytest.fixture
def story(tmp_path: Path) -> CatalogHistory:
    write_history(tmp_path / "catalogs", STORY, "story")
    return open_history("story", paths=[tmp_path / "catalogs"], cache=False)


def rows(history: CatalogHistory, pid: str | None = None, **options: Any) -> list[tuple[Any, ...]]:
    found = history.log(pid, **options)
    return [(e.version, e.change, e.id, e.old_id, e.tokens, e.delta, e.text) for e in found.entries]


def test_a_part_changed_in_every_way_diff_knows(story: CatalogHistory) -> None:
    assert rows(story, "intro") == [
        ("1.0.0", "added", "intro", None, 7, 7, None),
        ("1.1.0", "whitespace", "intro", None, 7, 0, "whitespace"),
        ("1.2.0", "prose", "intro", None, 5, -2, "prose"),
        ("1.3.0", "prose", "intro", None, 10, 5, "prose"),
        ("1.4.0", "metadata", "intro", None, 10, 0, None),
        ("1.5.0", "assembly", "intro", None, 10, 0, None),
    ]
    assert rows(story, "tips") == [
        ("1.0.0", "added", "tips", None, 8, 8, None),
        ("1.1.0", "placeholders", "tips", None, 9, 1, "placeholders"),
    ]


def test_renames_are_followed_and_an_id_taken_again_is_a_new_part(story: CatalogHistory) -> None:
    # rules -> guidelines (same body) -> rules-v2 (same body); a new "rules" in 1.6.0.
    expected = [
        ("1.0.0", "added", "rules", None, 9, 9, None),
        ("1.2.0", "renamed", "guidelines", "rules", 9, 0, None),
        ("1.4.0", "prose", "guidelines", None, 11, 2, "prose"),
        ("1.6.0", "renamed", "rules-v2", "guidelines", 11, 0, None),
    ]
    assert rows(story, "rules-v2") == expected
    assert rows(story, "guidelines") == expected
    assert rows(story, "rules") == [("1.6.0", "added", "rules", None, 12, 12, None)]
    renamed = story.log("rules-v2").entries[1]
    assert renamed.similarity == 1.0 and renamed.sha256 is not None


def test_a_part_removed_and_added_back_is_one_part(story: CatalogHistory) -> None:
    assert rows(story, "notes") == [
        ("1.0.0", "added", "notes", None, 5, 5, None),
        ("1.1.0", "removed", "notes", None, 0, -5, None),
        ("1.3.0", "added", "notes", None, 5, 5, None),
        ("1.6.0", "removed", "notes", None, 0, -5, None),
    ]
    removed = story.log("notes").entries[1]
    assert removed.sha256 is None and removed.kind == "reminder"


def test_log_of_a_kind_and_of_some_versions(story: CatalogHistory) -> None:
    assert [(v, c, i) for v, c, i, *_ in rows(story, kind="reminder")] == [
        ("1.0.0", "added", "notes"),
        ("1.1.0", "removed", "notes"),
        ("1.3.0", "added", "notes"),
        ("1.6.0", "removed", "notes"),
    ]
    assert [(v, c, i) for v, c, i, *_ in rows(story, kind="system", versions=">=1.5")] == [
        ("1.5.0", "assembly", "intro"),
        ("1.6.0", "added", "rules"),
        ("1.6.0", "renamed", "rules-v2"),
    ]
    assert rows(story, "intro", versions="==1.1.0") == [
        ("1.1.0", "whitespace", "intro", None, 7, 0, "whitespace")
    ]
    data = story.log("tips").to_dict()
    assert data["catalog"] == "story" and data["part"] == "tips" and data["kind"] is None
    assert data["entries"][1] == {
        "version": "1.1.0",
        "change": "placeholders",
        "id": "tips",
        "old_id": None,
        "kind": "system",
        "tokens": 9,
        "delta": 1,
        "text": "placeholders",
        "similarity": None,
        "sha256": story.log("tips").entries[1].sha256,
        "reused": False,
    }


def test_blame_dates_each_line_from_when_it_was_there_ever_since(story: CatalogHistory) -> None:
    blamed = story.blame("intro", "1.3.0")
    assert [(b.line, b.text, b.version) for b in blamed.lines] == [
        (1, "Hello.", "1.0.0"),
        (2, "Be brief.", "1.3.0"),  # removed in 1.2.0, added back in 1.3.0
        (3, "Use tools.", "1.0.0"),
        (4, "Ask first.", "1.3.0"),
    ]
    # Through two renames, and a line rewritten in 1.4.0.
    assert [(b.text, b.version) for b in story.blame("rules-v2").lines] == [
        ("Rule A.", "1.0.0"),
        ("Rule B, rewritten.", "1.4.0"),
        ("Rule C.", "1.0.0"),
    ]
    # A part re-added dates from its re-addition: it was absent in 1.1.0 and 1.2.0.
    assert {b.version for b in story.blame("notes", "1.5.0").lines} == {"1.3.0"}
    assert story.blame("intro", "1.0.0").to_dict() == {
        "catalog": "story",
        "version": "1.0.0",
        "part": "intro",
        "holders": [],
        "lines": [
            {"line": 1, "text": "Hello.", "version": "1.0.0"},
            {"line": 2, "text": "Be brief.", "version": "1.0.0"},
            {"line": 3, "text": "Use tools.", "version": "1.0.0"},
        ],
    }


def test_repeated_lines_are_counted(tmp_path: Path) -> None:
    bodies = ["x\n\ny\n", "x\n\ny\n\nz\n", "x\n\ny\n\nz\n\nw\n", "x\n\nw\n"]
    story = {f"1.{n}.0": [part("p", body, 10, 1)] for n, body in enumerate(bodies)}
    write_history(tmp_path, story, "blanks")
    history = open_history("blanks", paths=[tmp_path], cache=False)
    # The blank lines: one since 1.0.0, a second since 1.1.0, a third since 1.2.0.
    assert [(b.text, b.version) for b in history.blame("p", "1.2.0").lines] == [
        ("x", "1.0.0"),
        ("", "1.0.0"),
        ("y", "1.0.0"),
        ("", "1.1.0"),
        ("z", "1.1.0"),
        ("", "1.2.0"),
        ("w", "1.2.0"),
    ]
    # 1.3.0 holds one blank line, present in every version: it dates from 1.0.0.
    assert [(b.text, b.version) for b in history.blame("p").lines] == [
        ("x", "1.0.0"),
        ("", "1.0.0"),
        ("w", "1.2.0"),
    ]


def test_grep_says_where_a_text_was_first_and_last(story: CatalogHistory) -> None:
    found = story.grep("Rule B")
    assert [m.to_dict() for m in found.matches] == [
        {
            "part": "rules-v2",
            "kind": "system",
            "first": "1.0.0",
            "last": "1.6.0",
            "in_newest": True,
            "versions": ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0"],
            "ids": ["rules", "guidelines", "rules-v2"],
        }
    ]
    brief = story.grep("Be brief.")
    assert [(m.part, m.first, m.last, m.in_newest, m.versions) for m in brief.matches] == [
        ("intro", "1.0.0", "1.6.0", True, ("1.0.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0"))
    ]
    notes = story.grep("Note two")
    assert [(m.part, m.last, m.in_newest) for m in notes.matches] == [("notes", "1.5.0", False)]
    # Within some versions the newest searched is the one that counts.
    early = story.grep("Note two", versions="<1.3").matches[0]
    assert (early.last, early.in_newest) == ("1.0.0", False)
    assert story.grep("Note two", versions="<=1.5").matches[0].in_newest is True
    assert story.grep("Note", kind="system").matches == ()
    assert [m.part for m in story.grep("rule b", ignore_case=True).matches] == ["rules-v2"]
    assert story.grep("rule b").matches == ()
    # Sorted by the version that first said it.
    assert [m.part for m in story.grep("e").matches] == [
        "intro",
        "notes",
        "rules-v2",
        "tips",
        "rules",
    ]
    assert story.grep("Be brief.").to_dict()["newest"] == "1.6.0"


def test_grep_patterns(story: CatalogHistory) -> None:
    assert [m.part for m in story.grep("Rule*rewritten", pattern=True).matches] == ["rules-v2"]
    assert story.grep("Rule*rewritten", pattern=True).matches[0].first == "1.4.0"
    # A wildcard stays within a line: "Hello." and "Use tools." are on two lines.
    assert story.grep("Hello*tools", pattern=True).matches == ()
    assert [m.part for m in story.grep("tip*${*}", pattern=True, ignore_case=True).matches] == [
        "tips"
    ]


def test_what_cannot_be_answered_says_why(story: CatalogHistory, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match=r"no version of 'story' has a part 'intr'") as info:
        story.log("intr")
    assert "did you mean 'intro'?" in str(info.value)
    with pytest.raises(NotFoundError, match=r"story 1.6.0 has no part 'notes'") as info:
        story.blame("notes")
    assert "from 1.0.0 to 1.5.0" in str(info.value)
    with pytest.raises(NotFoundError, match=r"no version of 'story' satisfies '>=2'"):
        story.grep("x", versions=">=2")
    with pytest.raises(UsageError, match="not a part kind"):
        story.log(kind="tools")
    with pytest.raises(UsageError, match="name a part"):
        story.log()
    with pytest.raises(UsageError, match="empty"):
        story.grep("")
    with pytest.raises(NotFoundError, match="no catalog named 'nothing'"):
        open_history("nothing", paths=[tmp_path])
    with pytest.raises(NotFoundError, match="not a catalog name"):
        open_history("../story", paths=[tmp_path])


def test_an_overlay_takes_its_bodies_from_its_base(tmp_path: Path) -> None:
    write_history(tmp_path, {"1.0.0": [part("x", "Base one.\nKept.\n", 10, 4)],
                             "2.0.0": [part("x", "Base two.\nKept.\n", 10, 4)]}, "up")  # fmt: skip
    for version, base, body in (("1.0.0", "1.0.0", "Base one.\nKept.\n"),
                                ("1.1.0", "2.0.0", "Base two.\nKept.\n")):  # fmt: skip
        folder = tmp_path / "ov" / version
        folder.mkdir(parents=True)
        manifest = {
            "catalog": {"name": "ov", "version": version, "base": f"up@=={base}"},
            "part": [{"id": "x", "from": "x", "order": 10, "tokens": 4, "sha256": sha(body)}],
        }
        (folder / "catalog.toml").write_text(tomli_w.dumps(manifest), encoding="utf-8")
    history = open_history("ov", paths=[tmp_path], cache=False)
    assert rows(history, "x") == [
        ("1.0.0", "added", "x", None, 4, 4, None),
        ("1.1.0", "prose", "x", None, 4, 0, "prose"),
    ]
    assert [(b.text, b.version) for b in history.blame("x").lines] == [
        ("Base two.", "1.1.0"),
        ("Kept.", "1.0.0"),
    ]
    assert history.body("x", "1.0.0") == "Base one.\nKept.\n"


def test_a_tampered_body_is_an_error_naming_it(tmp_path: Path) -> None:
    write_history(tmp_path, {"1.0.0": [part("p", "One.\n", 10, 1)],
                             "1.1.0": [part("p", "Two.\n", 10, 1)]}, "t")  # fmt: skip
    (tmp_path / "t" / "1.0.0" / "p.md").write_text("Changed.\n", encoding="utf-8")
    history = open_history("t", paths=[tmp_path], cache=False)
    with pytest.raises(ManifestError, match=r"part 'p': .*p.md has sha256") as info:
        history.log("p")
    assert "catalog stamp" in str(info.value)
    (tmp_path / "t" / "1.0.0" / "p.md").unlink()
    with pytest.raises(ManifestError, match=r"1.0.0/catalog.toml: .*does not exist"):
        open_history("t", paths=[tmp_path], cache=False).blame("p")


@pytest.mark.parametrize("name", ["coding-agent", "dispatch", "moltis", "opal", "pi"])
def test_the_bundled_catalogs_agree_with_diff(name: str) -> None:
    catalog_path = CatalogPath(use_env=False)
    assert (
        assert_log_agrees_with_diff(open_history(name, catalog_path=catalog_path), catalog_path) > 0
    )
