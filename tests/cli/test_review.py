"""`catalog review` on the command line: the comment option, --path, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.review.markdown import MARKER
from tests._support.github_api import FakeGitHub
from tests._support.review_repo import TwoCommits, two_commits
from tests.conftest import run_cli as run

TOKEN = "cli-test-token"


@pytest.fixture
def repo(tmp_path: Path) -> TwoCommits:
    return two_commits(tmp_path)


def test_post_comment_needs_the_repository_and_the_pull_request(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "review", repo.first, "--repo", str(repo.repo), "--post-comment")
    assert code == 2 and "--github-repo OWNER/NAME and --github-pr NUMBER" in err


def test_post_comment_posts_the_markdown_whatever_the_format(
    repo: TwoCommits,
    capsys: pytest.CaptureFixture[str],
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    code, out, err = run(
        capsys, "review", repo.first, repo.second, "--repo", str(repo.repo), "--post-comment",
        "--github-repo", "o/r", "--github-pr", "7", "--github-api", github.url,
    )  # fmt: skip
    assert code == 1
    assert out.startswith("catalog review ")  # the text report on stdout
    assert "review comment created: https://github.test/o/r/pull/7#c1" in err
    [comment] = github.comments
    assert comment["body"].startswith(MARKER)
    assert {auth for _, _, auth in github.requests} == {f"Bearer {TOKEN}"}


def test_path_names_the_folders_of_catalogs(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    words = ("review", repo.first, repo.second, "--repo", str(repo.repo))
    code, _, _ = run(capsys, *words, "--path", str(repo.repo / "prompts"))
    assert code == 1
    (repo.repo / "elsewhere").mkdir()
    code, out, _ = run(capsys, *words, "--path", str(repo.repo / "elsewhere"))
    assert (code, out.splitlines()[-1]) == (0, "no catalog changed")
    code, _, err = run(capsys, *words, "--path", str(tmp_path))
    assert code == 2 and "is not inside the repository" in err


def test_outside_a_repository_is_bad_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "review", "main", "--repo", str(tmp_path))
    assert code == 2 and "not inside a git repository" in err
