"""Attacks through the revisions a review reads: objects that are not commits, links out
of the repository, submodules, a shallow clone, and a repository whose configuration
would run programs if git read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.piebald_data import git
from tests._support.review_repo import TwoCommits, two_commits
from tests.conftest import run_cli as run

SECRET = "the-host-secret-4242"


@pytest.fixture
def repo(tmp_path: Path) -> TwoCommits:
    return two_commits(tmp_path)


def _review(capsys: pytest.CaptureFixture[str], repo: Path, *revs: str) -> tuple[int, str]:
    code, out, err = run(capsys, "review", *revs, "--repo", str(repo), "--format", "json")
    return code, out + err


@pytest.mark.parametrize("kind", ["tree", "blob"])
def test_a_revision_naming_a_tree_or_a_blob_is_a_clear_error(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    oid = git(repo.repo, "rev-parse", f"{repo.first}^{{tree}}" if kind == "tree" else
              f"{repo.first}:README.md").strip()  # fmt: skip
    code, said = _review(capsys, repo.repo, oid, repo.second)
    assert code == 2 and f"is a {kind}, not a commit" in said
    assert "BASE and HEAD must name commits of this clone" in said


def _link_body(repo: TwoCommits, target: Path) -> None:
    """The second side's ``rules`` body made a link to ``target``, committed."""
    body = next((repo.repo / "prompts" / "demo" / "1.0.0").rglob("rules*"))
    body.unlink()
    body.symlink_to(target)
    git(repo.repo, "add", "-A")
    git(repo.repo, "commit", "-q", "-m", "link")


def test_a_link_out_of_the_repository_is_never_followed(
    repo: TwoCommits, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text(SECRET)
    _link_body(repo, outside)
    for revs in ((repo.first, "HEAD"), (repo.first,)):  # a commit, then the working tree
        code, said = _review(capsys, repo.repo, *revs)
        assert code == 2 and SECRET not in said


def test_a_submodule_among_the_catalogs_is_passed_over(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    git(repo.repo, "update-index", "--add", "--cacheinfo", f"160000,{repo.first},prompts/sub")
    git(repo.repo, "update-index", "--add", "--cacheinfo", f"160000,{repo.first},prompts/demo/x")
    git(repo.repo, "commit", "-q", "-m", "submodules")
    code, said = _review(capsys, repo.repo, repo.first, "HEAD")
    assert code == 1, said
    assert '"catalog": "demo"' in said and '"sub"' not in said


def test_nothing_the_repository_configures_runs(
    repo: TwoCommits, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = tmp_path / "ran"
    command = f"touch {ran}"
    hooks = repo.repo / ".git" / "hooks"
    for hook in ("post-checkout", "pre-commit", "reference-transaction", "fsmonitor-watchman"):
        (hooks / hook).write_text(f"#!/bin/sh\n{command}\n")
        (hooks / hook).chmod(0o755)
    with (repo.repo / ".git" / "config").open("a") as config:
        config.write(
            f'[core]\n\tfsmonitor = "{command}"\n\tpager = {command}\n\thooksPath = {hooks}\n'
            f'[filter "evil"]\n\tclean = {command}\n\tsmudge = {command}\n\tprocess = {command}\n'
            f'[diff "evil"]\n\ttextconv = {command}\n\tcommand = {command}\n'
        )
    (repo.repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    for revs in ((repo.first, repo.second), (repo.first,)):
        code, said = _review(capsys, repo.repo, *revs)
        assert code == 1, said
    assert not ran.exists()


def test_a_shallow_clone_without_the_base_says_to_fetch_it(
    repo: TwoCommits, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.repo}", str(clone))
    code, said = _review(capsys, clone, repo.first, "HEAD")
    assert code == 2 and "fetch-depth: 0" in said
    code, said = _review(capsys, clone, repo.first, "HEAD", "--merge-base")
    assert code == 2 and "fetch-depth: 0" in said


def test_after_a_double_dash_a_revision_that_looks_like_an_option_is_a_revision(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "review", "--repo", str(repo.repo), "--", "--prices=/etc/passwd", "HEAD"
    )
    assert code == 2 and "--prices=/etc/passwd is not a commit here" in err
    assert "TOML" not in err
