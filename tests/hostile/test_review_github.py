"""Attacks on the review comment's GitHub step: a comment that quotes the marker, an API
that redirects or refuses, addresses that would carry the token in the clear."""

from __future__ import annotations

import pytest

from catalog.errors import ReviewError
from catalog.review.github import api_base, post_comment
from catalog.review.markdown import MARKER
from tests._support.github_api import FakeGitHub

TOKEN = "ghs_test-token-not-a-secret"
BOT = {"login": "github-actions[bot]", "type": "Bot"}


def _post(github: FakeGitHub, body: str = f"{MARKER}\nreview") -> str:
    done, _ = post_comment(body, repo="o/r", number=7, token=TOKEN, api=github.url)
    return done


def test_a_comment_by_anybody_else_holding_the_marker_is_never_updated(
    github: FakeGitHub,
) -> None:
    # The pull request's author writes the marker first, at the start and inside.
    mallory = {"login": "mallory", "type": "User"}
    github.comments.append({"id": 1, "body": f"{MARKER}\nI approve", "user": mallory})
    github.comments.append({"id": 2, "body": f"see {MARKER}", "user": BOT})  # not at the start
    assert _post(github) == "created"
    assert github.comments[0]["body"] == f"{MARKER}\nI approve"
    assert github.comments[2]["body"] == f"{MARKER}\nreview"
    # The next run finds the bot's own, not mallory's.
    assert _post(github, f"{MARKER}\nagain") == "updated"
    assert [c["body"] for c in github.comments] == [
        f"{MARKER}\nI approve",
        f"see {MARKER}",
        f"{MARKER}\nagain",
    ]


def test_the_bots_comment_edited_by_a_person_is_still_updated(github: FakeGitHub) -> None:
    github.comments.append({"id": 1, "body": f"{MARKER}\nedited by a maintainer", "user": BOT})
    assert _post(github) == "updated"
    assert github.comments[0]["body"] == f"{MARKER}\nreview"


def test_comments_with_forged_ids_are_not_taken(github: FakeGitHub) -> None:
    github.comments.append({"id": "1/../../x", "body": f"{MARKER}\nx", "user": BOT})
    assert _post(github) == "created"
    assert all("/.." not in path for _, path, _ in github.requests)


def test_many_pages_of_comments_are_searched_page_by_page(github: FakeGitHub) -> None:
    github.comments.extend(
        {"id": n + 1, "body": f"{MARKER} {n}", "user": {"login": "x"}} for n in range(250)
    )
    github.comments.append({"id": 251, "body": f"{MARKER}\nold", "user": BOT})
    assert _post(github) == "updated"
    pages = [path.rsplit("=", 1)[1] for method, path, _ in github.requests if method == "GET"]
    assert pages == ["1", "2", "3"]


@pytest.mark.parametrize(
    ("code", "headers", "words"),
    [
        (401, {}, "token is refused"),
        (403, {}, "pull-requests: write"),
        (404, {}, "--github-repo and --github-pr"),
        (422, {}, "refused the comment's content"),
        (500, {}, "failed on its side"),
        (403, {"x-ratelimit-remaining": "0"}, "rate limit"),
        (429, {"retry-after": "60"}, "wait 60 seconds"),
    ],
)
def test_each_refusal_says_what_to_do_and_never_shows_the_token(
    github: FakeGitHub, code: int, headers: dict[str, str], words: str
) -> None:
    # A hostile or broken server echoes the token and control characters back.
    github.answer = (code, headers, {"message": f"bad {TOKEN} \x1b[2K"})
    with pytest.raises(ReviewError) as caught:
        _post(github)
    shown = f"{caught.value} {caught.value.hint}"
    assert f"answered {code}" in shown and words in shown
    assert TOKEN not in shown and "\x1b" not in shown


def test_a_redirect_is_not_followed_so_the_token_goes_nowhere_else(github: FakeGitHub) -> None:
    github.answer = (302, {"Location": "http://127.0.0.2:9/steal"}, {})
    with pytest.raises(ReviewError, match="answered 302") as caught:
        _post(github)
    assert "redirects" in str(caught.value.hint)
    assert len(github.requests) == 1


@pytest.mark.parametrize(
    "api",
    [
        "http://api.github.example",
        "http://10.0.0.1:8080",
        "ftp://127.0.0.1",
        "file:///etc/passwd",
        "https://user:pass@api.example",
        "https://api.example?x=1",
        "not a url",
    ],
)
def test_an_api_address_that_would_leak_the_token_is_refused(api: str) -> None:
    with pytest.raises(ReviewError) as caught:
        post_comment("x", repo="o/r", number=7, token=TOKEN, api=api)
    assert "pass@" not in str(caught.value)


@pytest.mark.parametrize(
    ("api", "base"),
    [
        ("https://ghe.example/api/v3/", "https://ghe.example/api/v3"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://[::1]:8080/", "http://[::1]:8080"),
        ("http://localhost:1", "http://localhost:1"),
    ],
)
def test_https_and_loopback_addresses_are_taken(api: str, base: str) -> None:
    assert api_base(api) == base


def test_a_pull_request_number_below_one_is_refused(github: FakeGitHub) -> None:
    with pytest.raises(ReviewError, match="not a pull request number"):
        post_comment("x", repo="o/r", number=0, token=TOKEN, api=github.url)
    assert github.requests == []
