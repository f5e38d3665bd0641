"""The review comment on GitHub, against a fake REST API on loopback, and the composite
action's steps run against a local repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.errors import ReviewError
from catalog.review.github import post_comment
from catalog.review.markdown import MARKER
from tests._support.github_action import TOKEN, read_action, run_steps
from tests._support.github_api import FakeGitHub
from tests._support.review_repo import TwoCommits, two_commits


def test_the_comment_is_created_then_updated_in_place(github: FakeGitHub) -> None:
    github.comments.append({"id": 1, "body": "a person's comment", "html_url": "x"})
    done, url = post_comment(f"{MARKER}\nfirst", repo="o/r", number=7, token=TOKEN, api=github.url)
    assert (done, url) == ("created", "https://github.test/o/r/pull/7#c2")
    done, _ = post_comment(f"{MARKER}\nsecond", repo="o/r", number=7, token=TOKEN, api=github.url)
    assert done == "updated"
    assert [c["body"] for c in github.comments] == ["a person's comment", f"{MARKER}\nsecond"]
    assert {auth for _, _, auth in github.requests} == {f"Bearer {TOKEN}"}


def test_our_comment_is_found_past_the_first_page(github: FakeGitHub) -> None:
    github.comments.extend({"id": n + 1, "body": f"comment {n}"} for n in range(150))
    github.comments.append(
        {"id": 151, "body": f"{MARKER}\nold", "user": {"login": "github-actions[bot]"}}
    )
    done, _ = post_comment(f"{MARKER}\nnew", repo="o/r", number=7, token=TOKEN, api=github.url)
    assert done == "updated" and github.comments[-1]["body"] == f"{MARKER}\nnew"
    assert len(github.comments) == 151


def test_a_refusal_is_an_error_that_does_not_show_the_token(github: FakeGitHub) -> None:
    github.refuse = True
    with pytest.raises(ReviewError) as caught:
        post_comment("x", repo="o/r", number=7, token=TOKEN, api=github.url)
    assert "answered 403" in str(caught.value) and TOKEN not in str(caught.value)


def test_nothing_is_sent_without_a_token_or_to_a_repository_that_is_none(
    github: FakeGitHub,
) -> None:
    with pytest.raises(ReviewError, match="no token"):
        post_comment("x", repo="o/r", number=7, token="", api=github.url)
    with pytest.raises(ReviewError, match="is not a repository"):
        post_comment("x", repo="o/r/../x", number=7, token=TOKEN, api=github.url)
    assert github.requests == []


# ----------------------------------------------------------------- the action


def test_the_action_is_a_composite_that_installs_reviews_and_comments() -> None:
    action = read_action()
    assert action["runs"]["using"] == "composite"
    steps = {step["id"]: step for step in action["runs"]["steps"]}
    assert list(steps) == ["install", "review", "verdict"]
    assert 'pip install --quiet "$ACTION_PATH"' in steps["install"]["run"]
    assert action["inputs"]["base"]["default"] == "${{ github.event.pull_request.base.sha }}"
    assert action["inputs"]["token"]["default"] == "${{ github.token }}"


@pytest.fixture
def repo(tmp_path: Path) -> TwoCommits:
    return two_commits(tmp_path, review={"models": ["claude-sonnet-4-5"]})


def test_the_actions_steps_review_a_local_repository_and_comment_once(
    repo: TwoCommits, tmp_path: Path, github: FakeGitHub
) -> None:
    done = run_steps(repo, tmp_path, {}, github)
    assert done["review"][0] == 0, done["review"][1]
    assert done["verdict"][0] == 0  # changes, but no bound to break
    [comment] = github.comments
    assert comment["body"].startswith(MARKER)
    assert "| `demo 1.0.0` | changed | `empty` | `main` | 30 -> 40 (+10) |" in comment["body"]
    assert "+Refuse to write malware." in comment["body"]
    assert (tmp_path / "catalog-review.md").read_text() == comment["body"]
    # A second run (a new push) updates the same comment.
    run_steps(repo, tmp_path, {}, github)
    assert len(github.comments) == 1
    methods = [method for method, _, _ in github.requests]
    assert methods == ["GET", "POST", "GET", "PATCH"]


def test_the_action_fails_on_a_broken_bound_and_on_trouble(
    repo: TwoCommits, tmp_path: Path, github: FakeGitHub
) -> None:
    done = run_steps(repo, tmp_path, {"fail-on": "tokens:+5 cost:+50%"}, github)
    assert done["verdict"][0] == 1 and "grew beyond a --fail-on bound" in done["verdict"][1]
    done = run_steps(repo, tmp_path, {"base": "no-such-ref", "comment": "false"}, github)
    assert done["verdict"][0] == 1 and "could not review" in done["verdict"][1]
    assert len(github.comments) == 1  # the trouble posted nothing
