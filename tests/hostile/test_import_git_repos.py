"""``catalog import git`` on repositories built to break it: odd tags, forged trees,
links, deep folders and file names no part id can hold. Each is a clean result or
exit status 2 with a message naming the tag or file, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Commit, ObjectID, RawObjectID, ShaFile, Tag

from catalog import load_dir
from catalog.importers.git import ReleaseReader, choose_tags
from catalog.importers.gitrepo import GitRepo
from tests._support.git_history import History
from tests.conftest import run_cli

FILE = 0o100644


def _cli(
    capsys: pytest.CaptureFixture[str], repo: Path, out: Path, *options: str
) -> tuple[int, str, str]:
    given = list(options)
    if "--include" not in given:
        given += ["--include", "p/**"]
    if "--tags" not in given:
        given += ["--tags", "*"]
    return run_cli(capsys, "import", "git", str(repo), "--name", "a", "--out", str(out), *given)


def _ids(out: Path, version: str) -> list[str]:
    return sorted(part.id for part in load_dir(out / "a" / version).parts)


@pytest.mark.parametrize("name", ["v1.0\x01", "v1..0", "v1.0.lock", "v1 0", "v1.0~1"])
def test_a_tag_name_git_refuses_is_an_error_naming_it(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag(name, history.commit({"p/a.md": "A"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert "refs/tags/v1" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "a").exists()


def test_tags_naming_no_commit_are_skipped_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    commit = history.commit({"p/a.md": "A"})
    history.tag("v1", commit)
    history.ref("v2", history.blob(b"a blob"))
    history.ref("v3", history.raw_tree([]))
    # A chain of eight annotated tags: git peels it; this reader stops after five.
    target: tuple[type, bytes] = (Commit, commit.encode())
    for _ in range(8):
        tag = Tag()
        tag.name, tag.object, tag.tagger = b"v4", target, b"T <t@example.com>"
        tag.tag_time, tag.tag_timezone, tag.message = 1, 0, b"m\n"
        history._add(tag)
        target = (Tag, tag.id)
    history.ref("v4", target[1])
    code, out, err = _cli(capsys, history.save(), tmp_path / "out", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["skipped_tags"]["not_commits"] == ["v2", "v3", "v4"]
    assert [v["version"] for v in report["versions"]] == ["1"]


def test_only_tags_naming_no_commit_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.ref("v2", history.blob(b"a blob"))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert "no release tags match * (1 naming no commit)" in err


def test_a_tag_naming_a_missing_object_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A"}))
    history.ref("v2", b"1" * 40)
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert f"git object {'1' * 40} is missing (refs/tags/v2" in err
    assert not (tmp_path / "out" / "a").exists()  # refused before anything is written


@pytest.mark.parametrize("name", [b"..", b".", b".git", b".GIT", b"a\\b.md", b"a/b.md", b""])
def test_a_forged_entry_name_refuses_the_release(
    name: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A"}))
    blob = history.blob(b"evil")
    inner = history.raw_tree([(name, FILE, blob)])
    top = history.raw_tree([(b"p", 0o040000, inner)])
    history.tag("v2", history.commit_tree(top))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert "release v2" in err
    assert "forged or damaged" in err
    assert "\x1b" not in err
    assert (tmp_path / "out" / "a" / "1").is_dir()
    assert not (tmp_path / "out" / "a" / "2").exists()


def test_two_entries_of_one_name_refuse_the_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    one, two = history.blob(b"one"), history.blob(b"two")
    inner = history.raw_tree([(b"a.md", FILE, one), (b"a.md", FILE, two)])
    history.tag("v1", history.commit_tree(history.raw_tree([(b"p", 0o040000, inner)])))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert "a.md" in err and "release v1" in err


def test_a_link_the_include_matches_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A", "p/key.md": (0o120000, b"/etc/passwd")}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert ":p/key.md" in err and "symbolic link" in err
    assert "root:" not in err


def test_a_submodule_the_include_matches_is_no_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A", "p/sub": (0o160000, b"")}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 0, err
    assert _ids(tmp_path / "out", "1") == ["p-a"]


def test_folders_nested_past_the_limit_are_refused_in_a_short_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    tree = history.raw_tree([(b"x.md", FILE, history.blob(b"deep"))])
    for _ in range(3000):  # past Python's recursion limit, as a walk would go
        tree = history.raw_tree([(b"d", 0o040000, tree)])
    history.tag("v1", history.commit_tree(history.raw_tree([(b"p", 0o040000, tree)])))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert "folders nested more than 64 deep" in err
    assert "release v1" in err
    assert len(err) < 1000


def test_sixty_folders_deep_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/" + "d/" * 60 + "x.md": "deep"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out", "--root", "p/" + "d/" * 60)
    assert code == 0, err
    assert _ids(tmp_path / "out", "1") == ["x"]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("p/Plan Mode.md", "plan-mode"),
        ("p/.hidden.md", "hidden"),
        ("p/Ünïcode—name.md", "-n-code-name"),
        ("p/UPPER/Case.TXT", "upper-case"),
        ("p/1st.md", "1st"),
    ],
)
def test_names_a_part_id_cannot_hold_become_valid_ids(
    path: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({path: "text"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out", "--root", "p")
    assert code == 0, err
    assert _ids(tmp_path / "out", "1") == [expected.lstrip("-")]


def test_a_name_with_control_characters_is_imported_and_never_printed_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/x\x1b[2J.md": "1", "p/x-[2j.md": "2"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out", "--root", "p")
    assert code == 2  # both give part id 'x--2j'
    assert "\x1b" not in err
    assert "x--2j" in err


def test_a_name_giving_no_id_is_an_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/日本.md": "text"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out", "--root", "p")
    assert code == 2
    assert "p/日本.md gives an empty part id" in err


@pytest.mark.parametrize(
    ("first", "second", "pid"),
    [
        ("p/A.md", "p/a.md", "a"),
        ("p/a b.md", "p/a-b.md", "a-b"),
        ("p/x/y.md", "p/x-y.md", "x-y"),
        ("p/a.md", "p/a.txt", "a"),
    ],
)
def test_two_files_giving_one_id_are_an_error_naming_both(
    first: str, second: str, pid: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({first: "1", second: "2"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out", "--root", "p")
    assert code == 2
    names = sorted([first, second])
    assert f"{names[0]} and {names[1]} both give part id {pid!r}" in err


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    reads = [0]
    original = DiskObjectStore.__getitem__

    def counted(self: DiskObjectStore, sha: ObjectID | RawObjectID) -> ShaFile:
        reads[0] += 1
        return original(self, sha)

    monkeypatch.setattr(DiskObjectStore, "__getitem__", counted)
    return reads


def test_ten_thousand_tags_cost_a_read_per_tag_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    history = History(tmp_path / "repo")
    commit = history.commit({"p/a.md": "A"})
    for number in range(10_000):
        history.tag(f"v{number // 100}.{number % 100}", commit, annotated=number % 2 == 0)
    repo = history.save()
    reads = _count_reads(monkeypatch)
    code, _, err = _cli(capsys, repo, tmp_path / "out", "--tags", "v7.*")
    assert code == 0, err
    assert len(list((tmp_path / "out" / "a").glob("7.*"))) == 100
    # Per tag asked for: its tag object (half are annotated), the commit three times
    # (peeling, its kind, its tree). Once: the top tree, p/ and a.md. None for the
    # other 9,900 tags.
    assert reads[0] == 50 + 100 * 3 + 3


def test_reading_ten_thousand_releases_reads_each_tree_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = History(tmp_path / "repo")
    commit = history.commit({"p/a.md": "A", "src/x.py": "x"})
    for number in range(10_000):
        history.tag(f"v{number}", commit)
    repo = history.save()
    reads = _count_reads(monkeypatch)
    with GitRepo(repo) as git:
        releases = choose_tags(git.tags(), ["v*"], pre=False).releases
        reader = ReleaseReader(git, ("p/*.md",), ("p",))
        assert all(reader.release(tag).files[0].text == "A" for tag in releases)
    assert len(releases) == 10_000
    assert (reader.stats.trees_read, reader.stats.blobs_read) == (2, 1)
    # Each commit twice (peeling the tag, then its tree); the top tree, p/ and a.md once.
    assert reads[0] == 10_000 * 2 + 3


@pytest.mark.parametrize(
    "licence",
    [(0o120000, b"/etc/passwd"), (0o160000, b""), b"\xff\xfe not UTF-8"],
    ids=["link", "submodule", "not-utf8"],
)
def test_a_licence_the_catalog_cannot_keep_is_left_out(
    licence: bytes | tuple[int, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A", "LICENSE": licence}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 0, err
    assert _ids(tmp_path / "out", "1") == ["p-a"]
    assert not (tmp_path / "out" / "a" / "LICENSE").exists()


def test_a_blob_over_the_size_limit_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A", "p/huge.md": b"x" * (33 * 1024 * 1024)}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 2
    assert "p/huge.md" in err and "is refused" in err
    assert not (tmp_path / "out" / "a" / "1").exists()


def test_a_repository_path_with_a_line_feed_stays_in_the_manifest_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / 'repo\n[catalog]\nname = "x"')
    history.tag("v1", history.commit({"p/a.md": "A"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out")
    assert code == 0, err
    manifest = (tmp_path / "out" / "a" / "1" / "catalog.toml").read_text()
    assert manifest.splitlines()[0].endswith(
        f'repo<U+000A>[catalog]<U+000A>name = "x": tag v1, commit {history.commits["v1"]}'
    )
    assert load_dir(tmp_path / "out" / "a" / "1").name == "a"


def test_a_part_id_over_the_limit_is_an_error_naming_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    data = json.dumps({"k" * 100_000: "long", "short": "fine"})
    history.tag("v1", history.commit({"p/a.md": "A", "d.json": data}))
    rules = tmp_path / "rules.toml"
    rules.write_text("[[data]]\nfile = 'd.json'\npath = '*'\n")
    code, _, err = _cli(capsys, history.save(), tmp_path / "out", "--rules", str(rules))
    assert code == 2
    assert "d.json (entry 'kkkk" in err
    assert "gives a part id of 100002 characters, more than 200" in err
    assert len(err) < 1000


def test_a_part_id_of_two_hundred_characters_is_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/" + "a" * 200 + ".md": "A"}))
    code, _, err = _cli(capsys, history.save(), tmp_path / "out", "--root", "p")
    assert code == 0, err
    assert _ids(tmp_path / "out", "1") == ["a" * 200]


def test_of_two_tags_of_one_version_the_one_naming_a_commit_is_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1.0", history.commit({"p/a.md": "A"}))
    history.ref("v1.0.0", history.blob(b"not a release"))  # the later name of 1.0
    code, out, err = _cli(capsys, history.save(), tmp_path / "out", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert [v["version"] for v in report["versions"]] == ["1.0"]
    assert report["skipped_tags"]["not_commits"] == ["v1.0.0"]
    assert report["skipped_tags"]["duplicates"] == []


@pytest.mark.parametrize(("kept", "blobs_read"), [(None, 2), (1, 6)])
def test_texts_kept_between_releases_are_bounded(
    kept: int | None, blobs_read: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kept is not None:  # a bound below one text: every text is read again
        monkeypatch.setattr("catalog.importers.git.read.KEPT_CHARS", kept)
    history = History(tmp_path / "repo")
    for number in range(6):  # a.md goes back and forth between two texts
        history.tag(f"v{number}", history.commit({"p/a.md": "AB"[number % 2] * 10}))
    with GitRepo(history.save()) as git:
        reader = ReleaseReader(git, ("p/*.md",), ("p",))
        texts = [
            reader.release(tag).files[0].text
            for tag in choose_tags(git.tags(), ["v*"], pre=False).releases
        ]
    assert texts == ["A" * 10, "B" * 10] * 3
    assert reader.stats.blobs_read == blobs_read
