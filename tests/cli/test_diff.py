"""`catalog diff`: formats, colour, exit codes, version folders and contexts."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog.cli import main
from tests.conftest import run_cli as run


@pytest.fixture
def root(make_catalog: Callable[..., Path], catalogs_root: Path) -> Path:
    make_catalog(
        "demo", "1.0.0", [{"id": "intro", "body": "Hello."}, {"id": "old", "body": "Old part."}]
    )
    make_catalog(
        "demo",
        "1.1.0",
        [{"id": "intro", "body": "Hello {{ env.os }}."}, {"id": "new", "body": "New part."}],
    )
    make_catalog(
        "demo",
        "1.1.1",
        [{"id": "intro", "body": "Hello {{ env.os }}."}, {"id": "new", "body": "New part."}],
    )
    return catalogs_root


def test_different_exits_1(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", "demo@1.0.0", "demo@1.1.0", "--path", str(root))
    assert code == 1
    assert "  + new  (system, order 20)" in out
    assert "  - old  (system, order 20)" in out
    assert "\x1b[" not in out  # not a terminal


def test_identical_content_exits_0(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", "demo@1.1.0", "demo@1.1.1", "--path", str(root))
    assert code == 0
    assert out == "demo@1.1.0 and demo@1.1.1 are identical\n"


def test_version_folders(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "diff",
        str(root / "demo" / "1.0.0"),
        str(root / "demo" / "1.1.0"),
        "--format",
        "json",
    )
    assert code == 1
    data = json.loads(out)
    assert (data["old"]["version"], data["new"]["version"]) == ("1.0.0", "1.1.0")


def test_trouble_exits_2(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "diff", "demo@9", "demo@1.1.0", "--path", str(root))
    assert code == 2
    assert "no version of 'demo'" in err and "Traceback" not in err


def test_context_adds_the_prompt_diff(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = tmp_path / "ctx.toml"
    ctx.write_text('[env]\nos = "Linux"\n')
    code, out, _ = run(
        capsys,
        "diff",
        "demo@1.0.0",
        "demo@1.1.0",
        "--path",
        str(root),
        "--context",
        str(ctx),
        "--format",
        "markdown",
    )
    assert code == 1
    assert "Assembled prompt (agent `main`)" in out
    assert "+Hello Linux." in out and "-Hello." in out


def test_markdown_and_html_to_a_file(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "diff.html"
    code, out, _ = run(
        capsys,
        "diff",
        "demo@1.0.0",
        "demo@1.1.0",
        "--path",
        str(root),
        "--format",
        "html",
        "-o",
        str(target),
    )
    assert code == 1 and out == ""
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, out, _ = run(
        capsys, "diff", "demo@1.0.0", "demo@1.1.0", "--path", str(root), "--format", "markdown"
    )
    assert "- **NEW:** new" in out and "- **REMOVED:** old" in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("no_color", "flag", "coloured"),
    [("", "auto", True), ("1", "auto", False), ("1", "always", True), ("", "never", False)],
)
def test_colour_on_a_terminal_unless_no_color(
    root: Path, monkeypatch: pytest.MonkeyPatch, no_color: str, flag: str, coloured: bool
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    monkeypatch.setenv("TERM", "xterm")
    if no_color:
        monkeypatch.setenv("NO_COLOR", no_color)
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    main(["diff", "demo@1.0.0", "demo@1.1.0", "--path", str(root), "--color", flag])
    assert ("\x1b[" in terminal.getvalue()) is coloured


def test_a_sub_agent_new_in_b_diffs_against_no_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "diff",
        "coding-agent@1.0.0",
        "coding-agent@1.1.0",
        "--agent",
        "conversation-summary",
    )
    assert code == 1, err
    assert "  note: agent 'conversation-summary' does not exist in coding-agent@1.0.0" in out
    assert "+++ coding-agent@1.1.0 (conversation-summary)" in out


def test_set_may_name_a_variable_only_a_declares(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "diff", "coding-agent@1.1.0", "coding-agent@1.0.0", "--set", "diagnostics=x.py:1"
    )
    assert code == 1, err
    assert "  note: variable 'diagnostics' is not declared by coding-agent@1.0.0: left out" in out
