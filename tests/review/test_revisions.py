"""Reading revisions: nothing the repository configures runs, links are not followed,
and the catalog folders are found in the trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from catalog.importers.gitrepo import GitRepo
from catalog.review.revisions import CommitRevision, WorkingTree, catalog_roots, merge_base
from tests._support.piebald_data import git
from tests._support.review_repo import TwoCommits, two_commits, write_side
from tests.conftest import run_cli as run


@pytest.fixture
def repo(tmp_path: Path) -> TwoCommits:
    return two_commits(tmp_path)


def test_a_configured_program_never_runs(
    repo: TwoCommits, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    witness = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {witness}\n")
    script.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "diff.external", "core.hooksPath"):
        git(repo.repo, "config", key, str(script))
    hooks = repo.repo / ".git" / "hooks"
    for hook in ("post-checkout", "pre-commit", "post-index-change"):
        (hooks / hook).write_text(script.read_text())
        (hooks / hook).chmod(0o755)
    code, _, _ = run(capsys, "review", repo.first, "--repo", str(repo.repo))
    assert code == 1
    assert not witness.exists()


def test_a_link_in_a_revision_is_not_followed(
    repo: TwoCommits, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("A secret outside the repository.")
    body = repo.repo / "prompts" / "demo" / "1.0.0" / "rules.md"
    body.unlink()
    os.symlink(secret, body)
    git(repo.repo, "add", "-A")
    git(repo.repo, "commit", "-q", "-m", "link")
    head = git(repo.repo, "rev-parse", "HEAD").strip()
    code, out, _ = run(
        capsys, "review", repo.second, head, "--repo", str(repo.repo), "--format", "json"
    )
    assert code == 2
    data = json.loads(out)
    assert "does not exist" in data["versions"][0]["error"]
    assert "secret" not in out.replace(str(secret), "")


def test_catalog_folders_are_found_in_the_trees(repo: TwoCommits) -> None:
    with GitRepo(repo.repo) as opened:
        revision = CommitRevision(opened, repo.first)
        assert revision.manifests() == ["prompts/demo/1.0.0/catalog.toml"]
        assert catalog_roots(revision) == ["prompts"]
        files = revision.files("prompts/demo")
    assert files == WorkingTree(repo.old_folder.parents[1]).files("demo")
    assert sorted(files) == [
        "1.0.0/bash.md", "1.0.0/catalog.toml", "1.0.0/explore-intro.md", "1.0.0/intro.md",
        "1.0.0/rules.md",
    ]  # fmt: skip


def test_merge_base_leaves_out_what_the_base_branch_did_since(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    # A branch from the first commit changes the explore part; main (the second commit)
    # goes on meanwhile. Against main, the branch alone shows main's changes reversed.
    git(repo.repo, "checkout", "-q", "-b", "feature", repo.first)
    write_side(repo.repo / "prompts", second=False, review={"models": ["claude-haiku-4-5"]})
    git(repo.repo, "commit", "-q", "-a", "-m", "price it")
    words = ("review", "main", "feature", "--repo", str(repo.repo), "--format", "json")
    _, out, _ = run(capsys, *words)
    plain = json.loads(out)["versions"][0]["prompts"]
    assert {p["agent"]: p["delta"] for p in plain} == {"main": -10, "explore": -7}
    _, out, _ = run(capsys, *words, "--merge-base")
    data = json.loads(out)
    assert data["base"] == repo.first
    assert {p["agent"]: p["status"] for p in data["versions"][0]["prompts"]} == {
        "main": "unchanged",
        "explore": "unchanged",
    }


def _commit(repo: Path, monkeypatch: pytest.MonkeyPatch, name: str, *parents: str) -> str:
    """A commit of the empty tree named ``name``, committed on day ``name[-1]`` of 2020."""
    monkeypatch.setenv("GIT_COMMITTER_DATE", f"2020-01-0{name[-1]}T00:00:00 +0000")
    tree = git(repo, "hash-object", "-t", "tree", "-w", "/dev/null").strip()
    above = [word for parent in parents for word in ("-p", parent)]
    return git(repo, "commit-tree", tree, *above, "-m", name).strip()


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    return tmp_path


def test_merge_base_is_the_best_common_ancestor_not_the_nearest(
    empty: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # main: a -> b -> c. The head merges a branch that merged b, and a branch from a
    # whose parent a is fewer steps from the head than b is: b is where they meet.
    a = _commit(empty, monkeypatch, "a1")
    b = _commit(empty, monkeypatch, "b2", a)
    c = _commit(empty, monkeypatch, "c3", b)
    side = _commit(empty, monkeypatch, "side2", a)
    merged = _commit(empty, monkeypatch, "merged4", side, b)
    branch = _commit(empty, monkeypatch, "branch2", a)
    head = _commit(empty, monkeypatch, "head5", branch, merged)
    assert git(empty, "merge-base", c, head).strip() == b
    with GitRepo(empty) as opened:
        assert merge_base(opened, c, head) == b


@pytest.mark.parametrize(("x_day", "y_day"), [("2", "3"), ("3", "2")])
def test_after_criss_cross_merges_the_base_committed_last_is_taken_as_git_does(
    empty: Path, monkeypatch: pytest.MonkeyPatch, x_day: str, y_day: str
) -> None:
    a = _commit(empty, monkeypatch, "a1")
    x1 = _commit(empty, monkeypatch, f"x{x_day}", a)
    y1 = _commit(empty, monkeypatch, f"y{y_day}", a)
    x2 = _commit(empty, monkeypatch, "x-merge4", x1, y1)
    y2 = _commit(empty, monkeypatch, "y-merge5", y1, x1)
    assert set(git(empty, "merge-base", "--all", x2, y2).split()) == {x1, y1}
    later = x1 if x_day > y_day else y1
    assert git(empty, "merge-base", x2, y2).strip() == later
    with GitRepo(empty) as opened:
        assert merge_base(opened, x2, y2) == later
        assert merge_base(opened, y2, x2) == later


def test_criss_cross_bases_committed_together_are_an_error_naming_both(
    empty: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _commit(empty, monkeypatch, "a1")
    x1 = _commit(empty, monkeypatch, "x2", a)
    y1 = _commit(empty, monkeypatch, "y2", a)
    x2 = _commit(empty, monkeypatch, "x-merge4", x1, y1)
    y2 = _commit(empty, monkeypatch, "y-merge5", y1, x1)
    code, out, err = run(capsys, "review", x2, y2, "--repo", str(empty), "--merge-base")
    assert code == 2 and not out
    assert "2 merge bases" in err and x1 in err and y1 in err
    assert "Traceback" not in err
