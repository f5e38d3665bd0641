"""The per-model figures: shipped with their date and source, and overridable."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from catalog.errors import ReviewError
from catalog.review.prices import load_prices


def test_the_bundled_figures_say_when_and_where_they_were_taken() -> None:
    prices = load_prices()
    assert prices.taken == "2026-11-27"
    assert any("prompt-caching" in url for url in prices.urls)
    sonnet = prices.model("claude-sonnet-4-5")
    # Anthropic's published figures: $3 / MTok, 1.25x and 2x writes, 0.1x reads, 1024 tokens.
    assert (sonnet.input_per_mtok, sonnet.min_cacheable_tokens) == (Decimal(3), 1024)
    assert (sonnet.write("5m"), sonnet.write("1h"), sonnet.read) == (
        Decimal("1.25"),
        Decimal(2),
        Decimal("0.1"),
    )
    assert prices.model("claude-haiku-4-5").min_cacheable_tokens == 4096
    assert prices.model("claude-3-5-haiku").input_per_mtok == Decimal("0.8")


def test_a_file_of_ones_own_replaces_models_and_multipliers(tmp_path: Path) -> None:
    own = tmp_path / "prices.toml"
    own.write_text(
        "[cache]\nwrite_5m = 1.5\n\n"
        '[model.claude-sonnet-4-5]\nname = "ours"\ninput_per_mtok = 2.5\n'
        "min_cacheable_tokens = 10\n"
    )
    prices = load_prices(own)
    sonnet = prices.model("claude-sonnet-4-5")
    assert (sonnet.name, sonnet.input_per_mtok, sonnet.write("5m")) == (
        "ours",
        Decimal("2.5"),
        Decimal("1.5"),
    )
    # The other bundled models stay, under the new multipliers; no [source]: the bundled one.
    assert prices.model("claude-opus-4-1").write("5m") == Decimal("1.5")
    assert prices.taken == "2026-11-27"
    assert prices.files == ("the bundled prices.toml", str(own))


def test_a_malformed_file_names_the_file_and_the_line(tmp_path: Path) -> None:
    own = tmp_path / "prices.toml"
    own.write_text("[model.x]\ninput_per_mtok = 1\nmin_cacheable_tokens = -5\n")
    with pytest.raises(ReviewError) as caught:
        load_prices(own)
    assert caught.value.file == str(own) and caught.value.line == 3
    with pytest.raises(ReviewError, match="check the path given with --prices"):
        load_prices(tmp_path / "absent.toml")
