"""The review comment on GitHub, against a fake REST API on loopback, and the composite
action's steps run against a local repository."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from catalog.errors import ReviewError
from catalog.review.github import post_comment
from catalog.review.markdown import MARKER
from tests.review.github_api import FakeGitHub
from tests.review.repo import TwoCommits, two_commits

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-not-a-secret"


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


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def test_the_action_is_a_composite_that_installs_reviews_and_comments() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    steps = {step["id"]: step for step in action["runs"]["steps"]}
    assert list(steps) == ["install", "review", "verdict"]
    assert 'pip install --quiet "$ACTION_PATH"' in steps["install"]["run"]
    assert action["inputs"]["base"]["default"] == "${{ github.event.pull_request.base.sha }}"
    assert action["inputs"]["token"]["default"] == "${{ github.token }}"


def _expression(text: str, values: dict[str, str]) -> str:
    """``text`` with each ``${{ name }}`` replaced by its value (every name known)."""

    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        assert name in values, f"the test does not know {name}"
        return values[name]

    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", value, text)


def _run_steps(
    repo: TwoCommits, tmp: Path, inputs: dict[str, str], github: FakeGitHub
) -> dict[str, tuple[int, str]]:
    """Run the action's steps but the install (the package is installed here) as a runner
    would: each step's env from its expressions, outputs through ``$GITHUB_OUTPUT``."""
    action = _action()
    context = {
        "github.event.pull_request.number": "7",
        "github.event.pull_request.base.sha": repo.first,
        "github.event.pull_request.head.sha": repo.second,
        "github.repository": "o/r",
        "github.token": TOKEN,
        "github.api_url": github.url,
        "github.action_path": str(ROOT),
        "runner.temp": str(tmp),
    }
    defaults = {f"inputs.{k}": str(v.get("default", "")) for k, v in action["inputs"].items()}
    values = {**context, **{k: _expression(v, context) for k, v in defaults.items()}}
    values.update({f"inputs.{k}": v for k, v in inputs.items()})
    done: dict[str, tuple[int, str]] = {}
    for step in action["runs"]["steps"]:
        if step["id"] == "install":
            continue
        output = tmp / f"{step['id']}.out"
        output.write_text("")
        env = {key: _expression(str(text), values) for key, text in step["env"].items()}
        env.update(
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            GITHUB_OUTPUT=str(output),
            HOME=str(tmp),
        )
        ran = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=repo.repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # one log, in order, as a runner keeps it
            text=True,
        )
        done[step["id"]] = (ran.returncode, ran.stdout)
        for line in output.read_text().splitlines():
            name, _, value = line.partition("=")
            values[f"steps.{step['id']}.outputs.{name}"] = value
    return done


@pytest.fixture
def repo(tmp_path: Path) -> TwoCommits:
    return two_commits(tmp_path, review={"models": ["claude-sonnet-4-5"]})


def test_the_actions_steps_review_a_local_repository_and_comment_once(
    repo: TwoCommits, tmp_path: Path, github: FakeGitHub
) -> None:
    done = _run_steps(repo, tmp_path, {}, github)
    assert done["review"][0] == 0, done["review"][1]
    assert done["verdict"][0] == 0  # changes, but no bound to break
    [comment] = github.comments
    assert comment["body"].startswith(MARKER)
    assert "| `demo 1.0.0` | changed | `empty` | `main` | 30 -> 40 (+10) |" in comment["body"]
    assert "+Refuse to write malware." in comment["body"]
    assert (tmp_path / "catalog-review.md").read_text() == comment["body"]
    # A second run (a new push) updates the same comment.
    _run_steps(repo, tmp_path, {}, github)
    assert len(github.comments) == 1
    methods = [method for method, _, _ in github.requests]
    assert methods == ["GET", "POST", "GET", "PATCH"]


def test_the_action_fails_on_a_broken_bound_and_on_trouble(
    repo: TwoCommits, tmp_path: Path, github: FakeGitHub
) -> None:
    done = _run_steps(repo, tmp_path, {"fail-on": "tokens:+5 cost:+50%"}, github)
    assert done["verdict"][0] == 1 and "grew beyond a --fail-on bound" in done["verdict"][1]
    done = _run_steps(repo, tmp_path, {"base": "no-such-ref", "comment": "false"}, github)
    assert done["verdict"][0] == 1 and "could not review" in done["verdict"][1]
    assert len(github.comments) == 1  # the trouble posted nothing
