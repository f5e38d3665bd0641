"""The review comment on GitHub, against a fake REST API on loopback, and the composite
action's steps run against a local repository."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from catalog.errors import ReviewError
from catalog.review.github import post_comment
from catalog.review.markdown import MARKER
from tests.review.repo import TwoCommits, two_commits

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-not-a-secret"


@dataclass
class FakeGitHub:
    """The three routes the comment needs, over an in-memory list of comments."""

    url: str = ""
    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # method, path, auth
    refuse: bool = False


def _handler(state: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _answer(self, code: int, data: Any) -> None:
            raw = json.dumps(data).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length", "0"))
            data: dict[str, Any] = json.loads(self.rfile.read(length))
            return data

        def _route(self, method: str) -> None:
            state.requests.append((method, self.path, self.headers.get("Authorization", "")))
            if state.refuse:
                return self._answer(403, {"message": "Resource not accessible by integration"})
            listing = re.fullmatch(
                r"/repos/o/r/issues/7/comments\?per_page=100&page=(\d+)", self.path
            )
            if method == "GET" and listing:
                page = int(listing.group(1))
                return self._answer(200, state.comments[(page - 1) * 100 : page * 100])
            if method == "POST" and self.path == "/repos/o/r/issues/7/comments":
                comment = {"id": len(state.comments) + 1, "body": self._body()["body"]}
                comment["html_url"] = f"https://github.test/o/r/pull/7#c{comment['id']}"
                state.comments.append(comment)
                return self._answer(201, comment)
            edit = re.fullmatch(r"/repos/o/r/issues/comments/(\d+)", self.path)
            if method == "PATCH" and edit:
                comment = state.comments[int(edit.group(1)) - 1]
                comment["body"] = self._body()["body"]
                return self._answer(200, comment)
            return self._answer(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_PATCH(self) -> None:
            self._route("PATCH")

    return Handler


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    state = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


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
    github.comments.append({"id": 151, "body": f"{MARKER}\nold"})
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
            capture_output=True,
            text=True,
        )
        done[step["id"]] = (ran.returncode, ran.stdout + ran.stderr)
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
