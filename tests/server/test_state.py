"""The server's settings: which tokens are refused at start, and which strings match the
token (exactly the token, byte for byte: no prefix, suffix, other case or padding)."""

from __future__ import annotations

import re

import pytest

from catalog.errors import UsageError
from catalog.server.state import ServerSettings, token_problem

TOKEN = "s3cret-Token_1-0123456789abcdefXY"  # 33 characters


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
        "s",
        TOKEN.upper(),  # the same letters in another case
        TOKEN.lower(),
        TOKEN.swapcase(),
        TOKEN + TOKEN,
        TOKEN[:-1] + "Z",
        TOKEN + "é",  # not ASCII
        TOKEN + "\x00",
    ],
)
def test_only_the_token_itself_matches(given: str | None) -> None:
    settings = ServerSettings(token=TOKEN)
    assert settings.token_matches(given) is False


def test_the_token_matches_itself_and_anything_matches_no_token() -> None:
    assert ServerSettings(token=TOKEN).token_matches("s3cret-Token_1-0123456789abcdefXY") is True
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
        (
            "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d",
            "the token is too short to be safe: 31 characters, at least 32 needed",
        ),
        (
            "abababababababababababababababab",
            "the token is too easy to guess: it uses 2 different characters, at least 8 needed",
        ),
        (
            "aabbccddeeffggabcdefggfedcbaabcd",
            "the token is too easy to guess: it uses 7 different characters, at least 8 needed",
        ),
        (
            "0123456789abcdef0123456789abcdef",
            "the token is too easy to guess: it is one shorter text repeated",
        ),
    ],
)
def test_a_token_clients_cannot_send_or_could_guess_is_refused(token: str, problem: str) -> None:
    assert token_problem(token) == problem
    with pytest.raises(UsageError, match=re.escape(problem)) as refused:
        ServerSettings(token=token)
    assert refused.value.hint == "make one with e.g. `openssl rand -hex 32`"


@pytest.mark.parametrize(
    "token",
    [
        "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",  # 32
        "~!#$%&'*+-.^_`|0123456789abcdefXYZ",
        "0123456789abcdef0123456789abcdef0",  # a repeat and one more
        "aabbccddeeffgghhabcdefghhgfedcba",  # 8 different characters, the fewest taken
    ],
)
def test_printable_ascii_tokens_are_taken(token: str) -> None:
    assert token_problem(token) is None
    assert ServerSettings(token=token).token_matches(token) is True


@pytest.mark.parametrize("writer", ["Bad Name!", "EU-west", "-first", "a" * 101])
def test_a_writer_name_that_breaks_the_rule_is_refused(writer: str) -> None:
    with pytest.raises(UsageError) as refused:
        ServerSettings(writer=writer)
    assert refused.value.message == (
        f"the writer {writer!r} breaks the rule: lowercase letters, digits, '.', '_' and '-', "
        "starting with a letter or digit, at most 100 characters"
    )
    assert refused.value.hint == "name the server e.g. eu-west-1"


@pytest.mark.parametrize("writer", ["eu-west-1", "a", "a" * 100, "0.b_c"])
def test_a_writer_name_that_follows_the_rule_is_taken(writer: str) -> None:
    assert ServerSettings(writer=writer).writer == writer


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
