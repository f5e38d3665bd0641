"""The server's settings: which tokens are refused at start, and which strings match the
token (exactly the token, byte for byte: no prefix, suffix, other case or padding)."""

from __future__ import annotations

import pytest

from catalog.errors import UsageError
from catalog.server.state import ServerSettings, token_problem

TOKEN = "s3cret-Token_1"


@pytest.mark.parametrize(
    "given",
    [
        None,
        "",
        "s3cret-Token_1x",  # the token and a suffix
        "s3cret-Token_1 ",
        " s3cret-Token_1",
        "xs3cret-Token_1",
        "s3cret-Token_",  # a prefix of it
        "s",
        "S3CRET-TOKEN_1",  # the same letters in another case
        "s3cret-token_1",
        "S3cret-Token_1",
        "s3cret-Token_1s3cret-Token_1",
        "s3cret-Token_2",
        "s3cret-Token_1é",  # not ASCII
        "s3cret-Token_1\x00",
    ],
)
def test_only_the_token_itself_matches(given: str | None) -> None:
    settings = ServerSettings(token=TOKEN)
    assert settings.token_matches(given) is False


def test_the_token_matches_itself_and_anything_matches_no_token() -> None:
    assert ServerSettings(token=TOKEN).token_matches("s3cret-Token_1") is True
    assert ServerSettings(token="x").token_matches("x") is True
    assert ServerSettings().token_matches(None) is True
    assert ServerSettings().token_matches("anything") is True


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("", "the token is empty"),
        ("two words", "the token must be printable ASCII without spaces"),
        ("café", "the token must be printable ASCII without spaces"),
        ("tab\there", "the token must be printable ASCII without spaces"),
        ("new\nline", "the token must be printable ASCII without spaces"),
    ],
)
def test_a_token_clients_cannot_send_as_it_is_is_refused(token: str, problem: str) -> None:
    assert token_problem(token) == problem
    with pytest.raises(UsageError, match=problem):
        ServerSettings(token=token)


@pytest.mark.parametrize("token", ["x", "~!#$%&'*+-.^_`|", "0" * 64])
def test_printable_ascii_tokens_are_taken(token: str) -> None:
    assert token_problem(token) is None
    assert ServerSettings(token=token).token_matches(token) is True
