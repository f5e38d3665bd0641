"""A store URL in messages: every secret libpq reads is masked, in every form."""

from __future__ import annotations

import pytest

from catalog.conversations.urls import public_url, scrub, url_secrets


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:hunter22@db:5432/app", "postgresql://u:***@db:5432/app"),
        ("postgres://u:p%40ss@db/app", "postgres://u:***@db/app"),
        ("postgresql://u:pw@h1,h2:5433/app", "postgresql://u:***@h1,h2:5433/app"),
        ("postgresql://u:p@ss@db/app", "postgresql://u:***@db/app"),
        ("postgresql://u@db/app?password=hunter22", "postgresql://u@db/app?password=***"),
        (
            "postgresql:///app?host=/run&PASSWORD=x1&sslmode=require&sslpassword=k2#frag",
            "postgresql:///app?host=/run&PASSWORD=***&sslmode=require&sslpassword=***#frag",
        ),
        ("postgresql://db/app?pass%77ord=x", "postgresql://db/app?pass%77ord=***"),
        ("host=db password=hunter22 user=u", "host=db password=*** user=u"),
        ("host=db password = 'two words' dbname=app", "host=db password = *** dbname=app"),
        ("password='it\\'s' sslpassword=k host=h", "password=*** sslpassword=*** host=h"),
        (
            "postgresql://u@db/app?passfile=/home/u/.pgpass",
            "postgresql://u@db/app?passfile=/home/u/.pgpass",
        ),
        ("sqlite:///var/lib/prompts.sqlite", "sqlite:///var/lib/prompts.sqlite"),
        ("postgresql://u@db/app", "postgresql://u@db/app"),
    ],
)
def test_every_secret_is_masked(url: str, shown: str) -> None:
    assert public_url(url) == shown


def test_the_secrets_are_found_as_written_and_decoded() -> None:
    assert set(url_secrets("postgresql://u:p%40ss@db/app?password=q")) == {"p%40ss", "p@ss", "q"}
    assert "two words" in url_secrets("host=db password='two words'")
    assert url_secrets("postgresql://u@db/app") == ()


def test_a_drivers_message_is_scrubbed() -> None:
    secrets = url_secrets("postgresql://u:p%40ss@db/app")
    message = 'FATAL: password "p@ss" refused for p%40ss'
    assert scrub(message, secrets) == 'FATAL: password "***" refused for ***'


def test_masking_is_linear() -> None:
    # Many quotes and escapes, a long query: one pass each (no pattern to backtrack).
    long = "password='" + "\\'" * 200_000
    assert public_url(long) == "password=***"
    query = "postgresql://db/app?" + "&".join(["a=b"] * 100_000) + "&password=x"
    assert public_url(query).endswith("&password=***")
