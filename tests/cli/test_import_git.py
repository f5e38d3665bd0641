"""``catalog import git``: what it prints, and bad input as a message, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.git_history import History
from tests.conftest import run_cli


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    history = History(tmp_path / "repo")
    history.tag("v1.0.0", history.commit({"p/a.md": "A", "p/b.md": "B"}))
    history.tag("v1.1.0b1", history.commit({"p/a.md": "A beta"}))
    history.tag("latest", history.commit({"p/a.md": "A latest"}))
    history.tag("v1.1.0", history.commit({"p/a.md": "A 1.1", "p/b.md": "B"}))
    return history.save()


def _args(repo: Path, tmp_path: Path, *more: str) -> list[str]:
    return [
        "import", "git", str(repo), "--name", "agent", "--out", str(tmp_path / "out"),
        "--tags", "*", "--include", "p/*.md", "--root", "p", *more,
    ]  # fmt: skip


def test_the_import_says_each_version_and_what_it_left_out(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nparts = "a"\norder = 1\n\n[[rule]]\nparts = "zzz"\norder = 2\n')
    code, out, err = run_cli(capsys, *_args(repo, tmp_path, "--rules", str(rules)))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["1.0.0", "2", "parts", "2", "new", "bodies", "written"]
    assert lines[1].split() == ["1.1.0", "2", "parts", "1", "new", "bodies", "written"]
    assert "skipped 1 tag(s): not versions: latest" in out
    assert "skipped 1 tag(s): pre-releases (--pre takes them): v1.1.0b1" in out
    assert "1 part(s) no rule matched, imported as they are: b" in out
    assert f"{rules}:5: rule 2: parts 'zzz' matches no part" in out


def test_json_gives_the_same_facts(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, *_args(repo, tmp_path, "--pre", "--format", "json"))
    assert code == 0, err
    report = json.loads(out)
    assert [v["version"] for v in report["versions"]] == ["1.0.0", "1.1.0b1", "1.1.0"]
    assert report["skipped_tags"] == {
        "not_versions": ["latest"],
        "pre_releases": [],
        "duplicates": [],
        "not_commits": [],
    }
    assert report["read"]["blobs_read"] == 4


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--rules", "missing.toml"), "the rules file does not exist"),
        (("--tags", "nothing-*"), "no release tags match"),
        (("--include", "[" * 300), "is not a glob"),
    ],
)
def test_bad_input_is_a_message_and_exit_2(
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: tuple[str, ...],
    words: str,
) -> None:
    args = _args(repo, tmp_path)
    if extra[0] == "--tags":
        args[args.index("--tags") + 1] = extra[1]
    else:
        args += extra
    code, _, err = run_cli(capsys, *args)
    assert code == 2
    assert words in err
    assert "Traceback" not in err


def test_a_folder_that_is_no_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, *_args(tmp_path, tmp_path))
    assert code == 2
    assert "not a git repository" in err
