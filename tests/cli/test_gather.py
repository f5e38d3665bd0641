"""``catalog gather`` and the gathering lines of ``catalog assemble --explain``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog.cli import main
from tests._support.gathering import write

SOURCES = {
    "files": [
        {"label": "user", "scope": "user", "dir": "~/.claude", "names": ["CLAUDE.md"]},
        {"label": "project", "names": ["CLAUDE.md"], "imports": True},
        {
            "label": "rules",
            "names": [".claude/rules/**/*.md"],
            "scoped_by": "paths",
            "walk": "root",
        },
        {"label": "local", "scope": "local", "names": ["CLAUDE.local.md"], "max_bytes": 8},
    ]
}


@pytest.fixture
def setup(make_catalog: Callable[..., Path], tmp_path: Path) -> list[str]:
    """A catalog and a project; returns the options that point the CLI at them."""
    parts = [
        {
            "id": "files",
            "body": "{% for f in project_files %}[{{ f.path }}]\n{{ f.content }}\n{% endfor %}",
        }
    ]
    make_catalog(parts=parts, extra={"sources": SOURCES})
    home, proj = tmp_path / "home", tmp_path / "proj"
    write(home / ".claude" / "CLAUDE.md", "user file")
    write(proj / "CLAUDE.md", "project, see @docs/more.md")
    write(proj / "docs" / "more.md", "more")
    write(proj / ".claude" / "rules" / "py.md", "---\npaths: src/**/*.py\n---\nPython rule")
    write(proj / "CLAUDE.local.md", "local notes, long")
    (proj / "src").mkdir()
    return [
        "--path",
        str(tmp_path / "catalogs"),
        "--from-dir",
        str(proj / "src"),
        "--root",
        str(proj),
        "--home",
        str(home),
        "--no-git",
    ]


def test_gather_json_has_the_context_and_the_provenance(
    setup: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gather", "demo", *setup, "--touched", "m.py", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    proj = tmp_path / "proj"
    assert data["cwd"] == str(proj / "src")
    assert data["root"] == str(proj)
    files = data["context"]["project_files"]
    assert [(f["source"], f["content"]) for f in files] == [
        ("user", "user file"),
        ("project", "project, see @docs/more.md"),
        ("project", "more"),
        ("rules", "Python rule"),
        (
            "local",
            "local no\n\n[... cut: the rest of CLAUDE.local.md is over the 8-byte budget ...]",
        ),
    ]
    assert files[2]["imported_by"] == [str(proj / "CLAUDE.md")]
    assert data["context"]["touched_files"] == ["m.py"]
    local = data["files"][-1]
    assert {k: local[k] for k in ("status", "bytes", "size", "source", "target")} == {
        "status": "cut",
        "bytes": 8,
        "size": 17,
        "source": "local",
        "target": "project_files",
    }
    assert data["notes"] == [
        f"{proj / 'CLAUDE.local.md'}: cut to 8 of 17 bytes by the 8-byte budget of local"
    ]
    # With --format json, a warning on stderr is a line of JSON too.
    assert [json.loads(line) for line in err.splitlines()] == [{"warning": data["notes"][0]}]


def test_gather_text_is_a_tree_of_sources_files_and_imports(
    setup: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gather", "demo", *setup]) == 0
    lines = capsys.readouterr().out.splitlines()
    proj = tmp_path / "proj"
    assert lines[0] == f"demo 1.0.0: gathered from {proj / 'src'} (project root {proj})"
    assert lines[1:5] == [
        "user -> project_files",
        f"  + {tmp_path / 'home' / '.claude' / 'CLAUDE.md'} (9 bytes): "
        f"CLAUDE.md in {tmp_path / 'home' / '.claude'}",
        "project -> project_files",
        f"  + {proj / 'CLAUDE.md'} (26 bytes): CLAUDE.md in {proj}",
    ]
    assert lines[5] == (
        f"    + {proj / 'docs' / 'more.md'} (4 bytes): "
        f"@docs/more.md (line 1 of {proj / 'CLAUDE.md'})"
    )
    assert lines[6:8] == [
        "rules -> project_files",
        f"  - {proj / '.claude' / 'rules' / 'py.md'}: "
        f"no touched file under {proj} (globs: src/**/*.py)",
    ]
    assert "4 files gathered, 47 bytes" in lines
    assert lines[-2:] == [
        "notes:",
        f"  ! {proj / 'CLAUDE.local.md'}: cut to 8 of 17 bytes by the 8-byte budget of local",
    ]


def test_gather_defaults_to_the_current_folder(
    setup: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path / "proj")
    options = setup[:2] + setup[4:]  # without --from-dir
    assert main(["gather", "demo", *options, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["cwd"] == str(tmp_path / "proj")


def test_assemble_explain_ends_with_the_gathering(
    setup: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["assemble", "demo", *setup, "--touched", "m.py", "--explain"]) == 0
    out, err = capsys.readouterr()
    assert "Python rule" in out
    assert f"gathered from {tmp_path / 'proj' / 'src'}" in err
    assert "'src/**/*.py' matches the touched file src/m.py" in err


def test_touched_without_gathering_is_a_context_field(
    setup: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    options = setup[:2]
    assert main(["assemble", "demo", *options, "--touched", "a.py", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == ""
