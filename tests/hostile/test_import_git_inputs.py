"""``catalog import git`` given odd versions, broken rules and data files, and output
folders it cannot use: each is a clean result or exit status 2 with a message naming
the file (and line) or tag, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import load_dir
from tests._support.git_history import History
from tests.conftest import run_cli


def _repo(tmp_path: Path, files: dict[str, str], tags: list[str]) -> Path:
    history = History(tmp_path / "repo")
    commit = history.commit(files)
    for tag in tags:
        history.tag(tag, commit)
    return history.save()


def _cli(
    capsys: pytest.CaptureFixture[str], repo: Path, out: Path, *options: str
) -> tuple[int, str, str]:
    given = list(options)
    if "--include" not in given:
        given += ["--include", "p/*"]
    if "--tags" not in given:
        given += ["--tags", "*"]
    return run_cli(
        capsys,
        "import",
        "git",
        str(repo),
        "--name",
        "a",
        "--out",
        str(out),
        "--root",
        "p",
        *given,
    )


def _rules(tmp_path: Path, text: str) -> str:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("tag", "folder"),
    [
        ("v1.2.3", "1.2.3"),
        ("rust-v0.46.0", "0.46.0"),
        ("release-2024.01.01", "2024.1.1"),
        ("v1", "1"),
        ("v01.02", "1.2"),
        ("v1.2.3+local.7", "1.2.3+local.7"),
        ("v1!2.0", "1!2.0"),
    ],
)
def test_a_tag_gives_the_folder_of_its_normalised_version(
    tag: str, folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(capsys, _repo(tmp_path, {"p/a.md": "A"}, [tag]), tmp_path / "out")
    assert code == 0, err
    assert [p.name for p in (tmp_path / "out" / "a").iterdir() if p.name[0].isdigit()] == [folder]
    assert str(load_dir(tmp_path / "out" / "a" / folder).version) == folder


def test_tags_giving_one_version_write_one_folder_and_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1.2", "v01.02", "v1.2.0", "1.2"])
    code, out, err = _cli(capsys, repo, tmp_path / "out", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    # The last in name order is taken, and names the folder.
    assert [v["version"] for v in report["versions"]] == ["1.2.0"]
    assert sorted(report["skipped_tags"]["duplicates"]) == ["1.2", "v01.02", "v1.2"]


def test_pre_releases_and_non_versions_are_skipped_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "v1." + "9" * 80
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1.0", "1.2.3rc1", "nightly", "v1.x", long])
    code, out, err = _cli(capsys, repo, tmp_path / "out", "--format", "json")
    assert code == 0, err
    skipped = json.loads(out)["skipped_tags"]
    assert skipped["pre_releases"] == ["1.2.3rc1"]
    assert skipped["not_versions"] == ["nightly", long, "v1.x"]


@pytest.mark.parametrize(
    ("rules", "said"),
    [
        ("[[rule]\n", "rules.toml:1:7: invalid TOML"),
        ("[[rule]]\nparts = '*'\nordr = 1\n", "rules.toml:3: rule[0].ordr: unknown key"),
        ("[[rule]]\nparts = '*'\norder = 'x'\n", "rules.toml:3: rule[0].order: must be an integer"),
        ("[[rule]]\nparts = '*'\n", "rules.toml:1: rule[0]: a rule sets none of"),
        ("[[rule]]\nparts = '*'\norder = 1\nversions = '>>1'\n", "rules.toml:4: rule 1: versions"),
        ("[[rule]]\nparts = '" + "*a" * 200 + "'\norder = 1\n", "rules.toml:2: rule 1: parts"),
        ("[[rule]]\nparts = '*'\nwhen = '((('\n", "rules.toml:1: release v1: part 'a'"),
        ("[[rule]]\nparts = '*'\nwhen = 'nosuch'\n", "unknown name 'nosuch'"),
        ("[[rule]]\nparts = '*'\nwhen = '" + "x or " * 400 + "x'\n", "more than the limit"),
        ("[[rule]]\nparts = '*'\nwhen = '" + "(" * 300 + "1" + ")" * 300 + "'\n", "nested"),
        ("[[rule]]\nparts = '*'\nagents = ['nobody']\n", "unknown agent 'nobody'"),
        ("[[rule]]\nparts = '*'\nkind = 'weird'\n", "rules.toml:3: rule[0].kind: must be"),
        ("[[data]]\nfile = 'd.json'\npath = ''\n", "rules.toml:3: data[0].path"),
        ("[[data]]\nfile = 'd.json'\npath = '*'\nformat = 'xml'\n", "rules.toml:4: data[0].format"),
        ("placeholders = 'weird'\n", "rules.toml:1: placeholders: must be"),
        ("\x00\x01", "rules.toml:1:1: invalid TOML"),
    ],
)
def test_a_bad_rules_file_is_an_error_naming_it_and_the_line(
    rules: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1"])
    code, _, err = _cli(capsys, repo, tmp_path / "out", "--rules", _rules(tmp_path, rules))
    assert code == 2
    assert said in err
    assert "rules.toml" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "a" / "1").exists()


def test_globs_that_match_nothing_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1"])
    rules = "[[rule]]\nparts = 'zz*'\norder = 1\n\n[[data]]\nfile = 'none.json'\npath = '*'\n"
    code, out, err = _cli(
        capsys,
        repo,
        tmp_path / "out",
        "--include",
        "p/*",
        "--include",
        "../*",
        "--rules",
        _rules(tmp_path, rules),
    )
    assert code == 0, err
    assert "rules.toml:1: rule 1: parts 'zz*' matches no part" in out
    assert "rules.toml:5: data 1: file 'none.json', path '*' finds no text" in out
    assert "--include '../*' matches no file in any release imported" in out


DATA_RULE = "[[data]]\nfile = 'd.{ext}'\npath = '*'\n"


@pytest.mark.parametrize(
    ("ext", "content", "said"),
    [
        ("yaml", "a: &x [1, 2]\nb: *x\n", "d.yaml:1: release v1 (commit"),
        ("yaml", "a: [" * 40 + "]" * 40, "nested more than"),
        ("json", "[" * 100_000 + "]" * 100_000, "nested more than 64 levels deep"),
        ("toml", "a = [" * 200 + "]" * 200, "v1:d.toml"),
        ("json", "{", "invalid JSON"),
        ("json", json.dumps({str(n): "t" for n in range(10_001)}), "more than 10000 entries"),
    ],
)
def test_a_bad_data_file_is_an_error_naming_it(
    ext: str, content: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A", f"d.{ext}": content}, ["v1"])
    rules = _rules(tmp_path, DATA_RULE.format(ext=ext))
    code, _, err = _cli(capsys, repo, tmp_path / "out", "--rules", rules)
    assert code == 2
    assert said in err
    assert f"d.{ext}" in err
    assert "Traceback" not in err


def test_data_entries_that_are_not_text_give_no_part_and_keys_become_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = {"a": 1, "b": None, "c": ["x"], "d": {"e": "f"}, "Bad Key!": "t", "x.y": "u"}
    repo = _repo(tmp_path, {"p/a.md": "A", "d.json": json.dumps(data)}, ["v1"])
    code, _, err = _cli(
        capsys, repo, tmp_path / "out", "--rules", _rules(tmp_path, DATA_RULE.format(ext="json"))
    )
    assert code == 0, err
    parts = {p.id: p.body for p in load_dir(tmp_path / "out" / "a" / "1").parts}
    assert parts == {"a": "A", "d-bad-key-": "t", "d-x.y": "u"}


def test_a_moved_tag_is_replaced_only_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "old"}))
    history.save()
    out = tmp_path / "out"
    assert _cli(capsys, history.path, out)[0] == 0
    moved = History(tmp_path / "repo2")  # the tag moved upstream: a new commit, same name
    moved.tag("v1", moved.commit({"p/a.md": "new"}))
    moved.save()
    code, _, err = _cli(capsys, moved.path, out)
    assert code == 2
    assert "--force" in err
    assert load_dir(out / "a" / "1").parts[0].body == "old"
    code, _, err = _cli(capsys, moved.path, out, "--force")
    assert code == 0, err
    assert load_dir(out / "a" / "1").parts[0].body == "new"


def test_importing_again_writes_nothing_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1", "v2"])
    assert _cli(capsys, repo, tmp_path / "out")[0] == 0
    code, out, err = _cli(capsys, repo, tmp_path / "out", "--format", "json")
    assert code == 0, err
    assert [v["status"] for v in json.loads(out)["versions"]] == ["unchanged", "unchanged"]


def test_an_output_folder_that_is_a_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1"])
    (tmp_path / "out").write_text("a file")
    code, _, err = _cli(capsys, repo, tmp_path / "out")
    assert code == 2
    assert "out" in err and "Traceback" not in err
    assert (tmp_path / "out").read_text() == "a file"


def test_an_output_folder_given_as_a_link_is_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1"])
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    code, _, err = _cli(capsys, repo, tmp_path / "link")
    assert code == 0, err
    assert load_dir(tmp_path / "real" / "a" / "1").parts[0].body == "A"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--tags", "v" + "*a" * 200], "--tags 'v*a*a"),
        (["--include", "p/" + "*a" * 200], "--include 'p/*a*a"),
    ],
)
def test_a_glob_too_long_is_an_error_naming_the_option(
    options: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1"])
    code, _, err = _cli(capsys, repo, tmp_path / "out", *options)
    assert code == 2
    assert said in err and "is not a glob: a glob longer than 256 characters" in err


@pytest.mark.parametrize(
    ("repo", "said"),
    [
        ("missing", "the git repository folder does not exist"),
        ("file", "the git repository is not a folder"),
        ("empty", "not a git repository"),
    ],
)
def test_a_repository_that_is_none_is_an_error_naming_it(
    repo: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / repo
    if repo == "file":
        path.write_text("x")
    elif repo == "empty":
        path.mkdir()
    code, _, err = _cli(capsys, path, tmp_path / "out")
    assert code == 2
    assert f"{path}: {said}" in err
    assert "--git" not in err  # an option of another importer


@pytest.mark.parametrize("blocker", ["a", "a/_blobs", "a/1"])
def test_a_file_where_the_import_writes_a_folder_is_an_error(
    blocker: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"p/a.md": "A"}, ["v1"])
    path = tmp_path / "out" / blocker
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("in the way")
    code, _, err = _cli(capsys, repo, tmp_path / "out")
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert path.read_text() == "in the way"
