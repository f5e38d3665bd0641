"""Reading revisions: nothing the repository configures runs, links are not followed,
and the catalog folders are found in the trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from catalog.importers.gitrepo import GitRepo
from catalog.review.revisions import CommitRevision, WorkingTree, catalog_roots
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
