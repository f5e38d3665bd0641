"""The server's settings: which tokens are refused at start (unsendable or easy to guess),
and which strings match the token (exactly the token, byte for byte: no prefix, suffix,
other case or padding)."""

from __future__ import annotations

import pytest

from catalog.errors import UsageError
from catalog.server.state import ServerSettings, token_problem

TOKEN = "s3cret-Token_1-0f9e8d7c6b5a49382716"
OTHER = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


@pytest.mark.parametrize(
    "given",
    [
        None,
        "",
        TOKEN + "x",  # the token and a suffix
        TOKEN + " ",
        " " + TOKEN,
        "x" + TOKEN,
        TOKEN[:-1],  # a prefix of it
        TOKEN[:8],
        "s",
        TOKEN.upper(),  # the same letters in another case
        TOKEN.lower(),
        TOKEN.swapcase(),
        TOKEN + TOKEN,
        TOKEN[:-1] + "7",
        TOKEN + "é",  # not ASCII
        TOKEN + "\x00",
    ],
)
def test_only_the_token_itself_matches(given: str | None) -> None:
    settings = ServerSettings(token=TOKEN)
    assert settings.token_matches(given) is False


def test_the_token_matches_itself_and_anything_matches_no_token() -> None:
    assert ServerSettings(token=TOKEN).token_matches(TOKEN) is True
    assert ServerSettings(token=OTHER).token_matches(OTHER) is True
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


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("x", "too short"),
        ("s3cret-Token_1", "too short"),
        ("0" * 64, "1 different characters"),
        ("abababababababababababababababab", "2 different characters"),
        ("passwordpasswordpasswordpassword", "7 different characters"),
        ("abcdefgh12345678" * 2, "one shorter text repeated"),
    ],
)
def test_a_token_easy_to_guess_is_refused(token: str, problem: str) -> None:
    found = token_problem(token)
    assert found is not None and problem in found
    with pytest.raises(UsageError, match=problem):
        ServerSettings(token=token)


@pytest.mark.parametrize("token", [OTHER, "~!#$%&'*+-.^_`|0123456789abcdefghij", TOKEN])
def test_printable_ascii_tokens_are_taken(token: str) -> None:
    assert token_problem(token) is None
    assert ServerSettings(token=token).token_matches(token) is True
