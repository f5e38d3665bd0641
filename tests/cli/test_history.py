"""``catalog log``, ``blame`` and ``grep``: text for people, JSON for programs, errors
without tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import catalog
from catalog.changes.history.cache import cache_folder
from catalog.cli import build_parser
from catalog.cli._completion import script
from tests._support.history_story import STORY, part, write_history
from tests.conftest import run_cli as run

SRC = Path(catalog.__file__).resolve().parents[1]


@pytest.fixture
def root(tmp_path: Path) -> str:
    write_history(tmp_path / "catalogs", STORY, "story")
    return str(tmp_path / "catalogs")


def test_log_in_text(root: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "log", "story", "rules-v2", "--path", root)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "story: rules-v2: 4 changes",
        "version       tokens   delta  change",
        "1.0.0              9      +9  added",
        "1.2.0              9       0  renamed from rules",
        "1.4.0             11      +2  prose",
        "1.6.0             11       0  renamed from guidelines",
    ]
    args = ["log", "story", "--kind", "system", "--versions", ">=1.6", "--path", root]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert out.splitlines()[2:] == [
        "1.6.0             12     +12  added         rules (an id an earlier part had)",
        "1.6.0             11       0  renamed       rules-v2 from guidelines",
    ]


def test_log_in_json(root: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--format", "json", "log", "story", "notes", "--path", root)
    data = json.loads(out)
    assert code == 0
    assert (data["catalog"], data["part"], data["kind"]) == ("story", "notes", None)
    assert [(e["version"], e["change"], e["tokens"], e["delta"]) for e in data["entries"]] == [
        ("1.0.0", "added", 5, 5),
        ("1.1.0", "removed", 0, -5),
        ("1.3.0", "added", 5, 5),
        ("1.6.0", "removed", 0, -5),
    ]
    assert set(data["entries"][0]) == {
        "version", "change", "id", "old_id", "kind", "tokens", "delta", "text", "similarity",
        "sha256", "reused",
    }  # fmt: skip


def test_blame(root: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "blame", "story@1.3.0", "intro", "--path", root)
    assert (code, err) == (0, "")
    assert out == (
        "1.0.0 1  Hello.\n1.3.0 2  Be brief.\n1.0.0 3  Use tools.\n1.3.0 4  Ask first.\n"
    )
    code, out, _ = run(capsys, "blame", "story", "tips", "--format", "json", "--path", root)
    assert json.loads(out) == {
        "catalog": "story",
        "version": "1.6.0",
        "part": "tips",
        "lines": [{"line": 1, "text": "Tip: ${ TOOL } then ${OTHER}.", "version": "1.1.0"}],
        "holders": [],
    }


def test_grep(root: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "grep", "Rule B", "story", "--path", root)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "rules-v2 (also as rules, guidelines): 1.0.0 .. 1.6.0 (7 versions), still in 1.6.0",
        "1 part of story in 7 versions searched",
    ]
    code, out, _ = run(capsys, "grep", "note*two", "story", "-i", "--pattern", "--path", root)
    assert out.splitlines()[0] == "notes: 1.0.0 .. 1.5.0 (4 versions), not in 1.6.0"
    code, out, _ = run(capsys, "grep", "Note", "story", "--kind", "system", "--path", root)
    assert (code, out) == (1, "0 parts of story in 7 versions searched\n")
    code, out, _ = run(capsys, "grep", "Be brief", "story", "--versions", "<1.2", "--format",
                       "json", "--path", root)  # fmt: skip
    data = json.loads(out)
    assert (code, data["newest"], data["searched"]) == (0, "1.1.0", 2)
    assert data["matches"] == [
        {
            "part": "intro",
            "kind": "system",
            "first": "1.0.0",
            "last": "1.0.0",
            "in_newest": False,
            "versions": ["1.0.0"],
            "ids": ["intro"],
        }
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["log", "story", "intr"], "did you mean 'intro'?"),
        (["log", "story"], "name a PART, or a --kind"),
        (["log", "story@1.0.0", "intro"], "choose versions with --versions '1.0.0'"),
        (["log", "./story", "intro"], "is a folder"),
        (["log", "story", "intro", "--versions", "~=9.0"], "no version of 'story' satisfies"),
        (["blame", "story", "notes"], "story 1.6.0 has no part 'notes'"),
        (["blame", "story@2", "intro"], "no version of 'story' satisfies '==2'"),
        (["blame", "nothing", "intro"], "no catalog named 'nothing'"),
        (["grep", "", "story"], "the text to find is empty"),
        (["grep", "x", "story", "--versions", "not a spec"], "not a PEP 440 version specifier"),
    ],
)
def test_errors_are_one_message(
    root: str, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, *args, "--path", root)
    assert (code, out) == (2, "")
    assert err.startswith("catalog: error: ") and message in err and "Traceback" not in err


def test_hidden_characters_are_shown_not_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "Safe line.\n\x1b[2JCleared\u202eevil\n"
    write_history(tmp_path, {"1.0.0": [part("p", body, 10, 3)]}, "odd")
    code, out, _ = run(capsys, "blame", "odd", "p", "--path", str(tmp_path))
    assert code == 0
    assert "\x1b" not in out and "\u202e" not in out
    assert "<U+001B>[2JCleared<U+202E>evil" in out
    _, out, _ = run(capsys, "blame", "odd", "p", "--format", "json", "--path", str(tmp_path))
    assert "\x1b" not in out and "\\u001b" in out
    assert json.loads(out)["lines"][1]["text"] == "\x1b[2JCleared\u202eevil"


def test_completion_offers_the_history_commands() -> None:
    parser = build_parser()
    text = script("bash", parser.parse_args(["list"]).commands)
    for command in ("log", "blame", "grep"):
        assert f"        {command}) opts=" in text
    assert 'grep:--kind) values="system tool agent reminder"' in text


@pytest.mark.slow
def test_a_history_command_as_a_process(root: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "catalog", "log", "story", "intro", "--path", root],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == "1.5.0             10       0  assembly"
    assert not (Path(root) / "story" / "_cache").exists()
    assert any(cache_folder().glob("*.json"))  # the user's cache: this session's own
