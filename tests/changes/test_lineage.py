"""A reused id: when a part is removed and its id later given to another text, ``log``,
``blame`` and the part page keep the two parts apart, say which held the id when, and
answer for either (``as_of``). Hand-written histories whose answers are known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from catalog.changes.history import CatalogHistory, IdHolder, open_history
from catalog.errors import NotFoundError, UsageError
from tests._support.reused_ids import (
    CODEX,
    GPT,
    STORY,
    part,
)
from tests.conftest import run_cli, write_catalog


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for version, parts in STORY.items():
        write_catalog(tmp_path / "catalogs", "agent", version, parts)
    return tmp_path / "catalogs"


@pytest.fixture
def story(root: Path) -> CatalogHistory:
    return open_history("agent", paths=[root], cache=False)


def _rows(history: CatalogHistory, part: str | None, **options: Any) -> list[tuple[Any, ...]]:
    found = history.log(part, **options)
    return [(e.version, e.change, e.id, e.old_id, e.reused) for e in found.entries]


def test_a_name_given_to_another_prompt_by_a_rename_starts_no_splice(
    story: CatalogHistory,
) -> None:
    assert _rows(story, "codex") == [
        ("1.0.0", "added", "gpt", None, False),
        ("1.2.0", "renamed", "codex", "gpt", True),
    ]
    assert story.log("codex").holders == (
        IdHolder("1.0.0", "1.0.0", "1.0.0", "codex", shown=False),
        IdHolder("1.2.0", "1.3.0", "1.3.0", "codex", shown=True),
    )
    assert _rows(story, "codex", as_of="1.0.0") == [
        ("1.0.0", "added", "codex", None, False),
        ("1.1.0", "removed", "codex", None, False),
    ]
    assert [h.shown for h in story.log("codex", as_of="<1.1").holders] == [True, False]
    assert story.log("gpt").holders == ()  # one part only ever had the id gpt


def test_a_part_added_back_with_a_like_text_is_the_samepart(story: CatalogHistory) -> None:
    assert _rows(story, "anthropic") == [
        ("1.0.0", "added", "anthropic", None, False),
        ("1.1.0", "removed", "anthropic", None, False),
        ("1.2.0", "added", "anthropic", None, False),
    ]
    assert story.log("anthropic").holders == ()


def test_an_id_given_to_an_unlike_text_is_anotherpart(story: CatalogHistory) -> None:
    assert _rows(story, "beast") == [("1.3.0", "added", "beast", None, True)]
    assert _rows(story, "beast", as_of="1.1.0") == [
        ("1.0.0", "added", "beast", None, False),
        ("1.2.0", "removed", "beast", None, False),
    ]
    assert story.log("beast").holders == (
        IdHolder("1.0.0", "1.1.0", "1.1.0", "beast", shown=False),
        IdHolder("1.3.0", "1.3.0", "1.3.0", "beast", shown=True),
    )
    by_kind = [row for row in _rows(story, None, kind="system") if row[2] == "beast"]
    assert by_kind == [
        ("1.0.0", "added", "beast", None, False),
        ("1.2.0", "removed", "beast", None, False),
        ("1.3.0", "added", "beast", None, True),
    ]


def test_as_of_a_version_without_the_id_is_an_error(story: CatalogHistory) -> None:
    with pytest.raises(NotFoundError, match=r"agent 1\.2\.0 has no part 'beast'"):
        story.log("beast", as_of="1.2.0")
    with pytest.raises(UsageError, match="name the part"):
        story.log(None, kind="system", as_of="1.0.0")


def test_blame_answers_for_the_holder_of_the_version_asked(story: CatalogHistory) -> None:
    new = story.blame("beast")
    assert [(line.text, line.version) for line in new.lines] == [
        ("A different prompt now named beast.", "1.3.0"),
        ("Nothing in common with the old one.", "1.3.0"),
    ]
    assert [h.shown for h in new.holders] == [False, True]
    old = story.blame("codex", "1.0.0")
    assert [line.text for line in old.lines] == CODEX.splitlines()
    assert {line.version for line in old.lines} == {"1.0.0"}
    assert old.to_dict()["holders"][0] == {
        "first": "1.0.0",
        "last": "1.0.0",
        "newest": "1.0.0",
        "now": "codex",
        "shown": True,
    }
    renamed = story.blame("codex", "1.3.0")  # gpt's lines, dating from 1.0.0 under gpt
    assert {line.version for line in renamed.lines} == {"1.0.0"}


def test_log_and_blame_say_who_held_the_id(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "log", "agent", "codex", "--path", str(root))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "agent: codex: 2 changes",
        "'codex' was the id of 2 different parts, one after another:",
        "  1.0.0 to 1.0.0: catalog log agent codex --as-of 1.0.0",
        "  1.2.0 to 1.3.0: shown here",
        "version       tokens   delta  change",
        "1.0.0             40     +40  added",
        "1.2.0             40       0  renamed from gpt (an id an earlier part had)",
    ]
    code, out, _ = run_cli(capsys, "log", "agent", "codex", "--as-of", "1.0.0", "--path", str(root))
    assert code == 0
    assert out.splitlines()[2:4] == [
        "  1.0.0 to 1.0.0: shown here",
        "  1.2.0 to 1.3.0: catalog log agent codex --as-of 1.3.0",
    ]
    code, out, _ = run_cli(capsys, "blame", "agent@1.1", "beast", "--path", str(root))
    assert code == 0
    assert out.splitlines() == [
        "'beast' was the id of 2 different parts, one after another:",
        "  1.0.0 to 1.1.0: shown here",
        "  1.3.0 to 1.3.0: catalog blame agent@==1.3.0 beast",
        "1.0.0 1  Beast mode: keep going until the problem is solved.",
        "1.0.0 2  Think hard.",
    ]


def test_a_renamed_holder_is_named_by_its_id_now(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 1.4.0: the second holder of codex is renamed to gpt-5: the id codex is free again.
    write_catalog(root, "agent", "1.4.0", [part("gpt-5", GPT, 20)])
    history = open_history("agent", paths=[root], cache=False)
    assert history.log("codex").holders[-1] == IdHolder(
        "1.2.0", "1.3.0", "1.4.0", "gpt-5", shown=True
    )
    code, out, _ = run_cli(capsys, "log", "agent", "codex", "--path", str(root))
    assert code == 0
    assert "  1.2.0 to 1.3.0, now gpt-5 (in 1.4.0): shown here" in out.splitlines()
