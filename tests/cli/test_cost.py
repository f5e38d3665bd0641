"""`catalog cost`: a conversation's input cost with and without caching, to the cent."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli as run

BUNDLED = ("coding-agent", "pi", "opal", "dispatch", "moltis")
CENT = Decimal("0.01")


def _cost(capsys: pytest.CaptureFixture[str], *words: str) -> dict[str, Any]:
    code, out, err = run(capsys, "cost", *words, "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.fixture
def root(make_catalog: Callable[..., Path], catalogs_root: Path) -> Path:
    """A catalog counted in chars/4: a static part of 1100 tokens, a turn part of 100,
    one separator of 1 token ("\\n\\n" is 2 characters, rounded up)."""
    make_catalog(
        "priced",
        "1.0.0",
        [
            {"id": "rules", "order": 10, "body": "a" * 4400},
            {"id": "now", "order": 20, "stability": "turn", "body": "x" * 400},
        ],
        catalog={"tokenizer": "chars"},
    )
    return catalogs_root


def test_cost_by_hand_on_the_5_minute_cache(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _cost(capsys, "priced", "--path", str(root), "--model", "claude-sonnet-4-5")
    # P = 1100 + the separator after it = 1101; V = 100; N = 10; p = $3 / MTok.
    assert (data["cached_prefix_tokens"], data["volatile_tokens"], data["turns"]) == (1101, 100, 10)
    assert Decimal(data["price_per_mtok"]) == 3
    # Without caching: 10 * 1201 * 3 / 1e6 = 0.03603.
    assert Decimal(data["cost_uncached"]) == Decimal("0.03603")
    # With: 3e-6 * (1.25*1101 + 100 + 9*(0.1*1101 + 100)) = 3e-6 * 3367.15 = 0.01010145.
    assert Decimal(data["cost_cached"]) == Decimal("0.01010145")
    assert Decimal(data["saving"]) == Decimal("0.02592855")
    assert data["no_saving_because"] is None


def test_cost_by_hand_on_the_1_hour_cache_and_other_turns(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _cost(
        capsys, "priced", "--path", str(root), "--model", "claude-opus-4-1", "--ttl", "1h",
        "--turns", "3",
    )  # fmt: skip
    # p = $15 / MTok; uncached 3 * 1201 * 15e-6 = 0.054045;
    # cached 15e-6 * (2*1101 + 100 + 2*(110.1 + 100)) = 15e-6 * 2722.2 = 0.040833.
    assert Decimal(data["cost_uncached"]) == Decimal("0.054045")
    assert Decimal(data["cost_cached"]) == Decimal("0.040833")


def test_under_the_minimum_there_is_no_saving_and_it_says_why(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _cost(capsys, "priced", "--path", str(root), "--model", "claude-haiku-4-5")
    assert data["cost_cached"] == data["cost_uncached"]
    assert Decimal(data["cost_uncached"]) == Decimal("0.01201")  # 10 * 1201 * 1e-6
    assert "1101 tokens, under the minimum of 4096" in data["no_saving_because"]
    code, out, _ = run(capsys, "cost", "priced", "--path", str(root), "--model", "claude-haiku-4-5")
    assert code == 0
    assert "no saving: the cached prefix is 1101 tokens, under the minimum of 4096" in out


def _formula(data: dict[str, Any]) -> tuple[Decimal, Decimal]:
    """Both costs from P, V, N and p as the issue writes them, with Anthropic's
    multipliers for the 5-minute cache (1.25 to write, 0.1 to read)."""
    p = Decimal(data["price_per_mtok"]) / 1_000_000
    big_p, v, n = data["cached_prefix_tokens"], data["volatile_tokens"], data["turns"]
    uncached = n * (big_p + v) * p
    if big_p < data["min_cacheable_tokens"]:
        return uncached, uncached
    return uncached, p * (Decimal("1.25") * big_p + v + (n - 1) * (Decimal("0.1") * big_p + v))


@pytest.mark.parametrize("name", BUNDLED)
def test_the_bundled_catalogs_match_the_formula_to_the_cent(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    model = "claude-sonnet-4-5"
    data = _cost(capsys, name, "--model", model, "--turns", "20")
    _, out, _ = run(capsys, "tokens", name, "--set", f"env.model={model}", "--format", "json")
    report = json.loads(out)
    tools = sum(tool["tokens"] for tool in report["tools"])
    assert data["cached_prefix_tokens"] + data["volatile_tokens"] == report["tokens"] + tools
    uncached, cached = _formula(data)
    for field, expected in (("cost_uncached", uncached), ("cost_cached", cached)):
        found = Decimal(data[field])
        assert found.quantize(CENT, ROUND_HALF_UP) == expected.quantize(CENT, ROUND_HALF_UP)
        assert found == expected


def test_an_unknown_model_names_the_close_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "cost", "pi", "--model", "claude-sonet-4-5")
    assert code == 2
    assert "no prices for model 'claude-sonet-4-5'" in err and "claude-sonnet-4-5" in err


def test_a_dated_model_id_finds_its_model(capsys: pytest.CaptureFixture[str]) -> None:
    data = _cost(capsys, "pi", "--model", "claude-sonnet-4-5-20250929")
    assert data["model"] == "claude-sonnet-4-5"


def test_cost_needs_a_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "cost", "pi")
    assert code == 2 and "needs --model ID" in err


def test_a_prices_file_of_ones_own(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text(
        "[model.in-house]\ninput_per_mtok = 2\nmin_cacheable_tokens = 1000\nread = 0.5\n"
    )
    words = ("priced", "--path", str(root), "--prices", str(prices), "--turns", "2")
    data = _cost(capsys, *words, "--model", "in-house")
    # 2e-6 * (1376.25 + 100 + 1*(550.5 + 100)) = 2e-6 * 2126.75 = 0.0042535
    assert Decimal(data["cost_cached"]) == Decimal("0.0042535")
    bundled = _cost(capsys, *words, "--model", "claude-sonnet-4-5")
    assert bundled["model_name"] == "Claude Sonnet 4.5"


def test_a_bad_prices_file_names_its_line(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text('[model.x]\ninput_per_mtok = "cheap"\nmin_cacheable_tokens = 1\n')
    code, _, err = run(capsys, "cost", "pi", "--model", "x", "--prices", str(prices))
    assert code == 2
    assert f"{prices}:2" in err and "input_per_mtok" in err


def test_coding_agent_1_2_0_on_sonnet_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    data = _cost(capsys, "coding-agent@1.2.0", "--model", "claude-sonnet-4-5")
    # P: the whole prompt (no turn part, no tools under an empty context), as `catalog
    # tokens` counts it; V = 0; N = 10; p = $3 / MTok.
    assert (data["cached_prefix_tokens"], data["volatile_tokens"]) == (3751, 0)
    # Without caching: 10 * 3751 * 3e-6 = 0.11253, $0.11.
    assert Decimal(data["cost_uncached"]) == Decimal("0.11253")
    # With: 3e-6 * (1.25 * 3751 + 9 * 0.1 * 3751) = 3e-6 * (4688.75 + 3375.9)
    #     = 3e-6 * 8064.65 = 0.02419395, $0.02.
    assert Decimal(data["cost_cached"]) == Decimal("0.02419395")
    assert Decimal(data["cost_cached"]).quantize(CENT, ROUND_HALF_UP) == Decimal("0.02")


def test_pi_1_1_0_on_sonnet_is_under_the_minimum(capsys: pytest.CaptureFixture[str]) -> None:
    data = _cost(capsys, "pi@1.1.0", "--model", "claude-sonnet-4-5")
    # P = 153 < 1024: nothing cached; both costs 10 * 153 * 3e-6 = 0.00459.
    assert data["cached_prefix_tokens"] == 153
    assert Decimal(data["cost_uncached"]) == Decimal(data["cost_cached"]) == Decimal("0.00459")
    assert data["no_saving_because"] == (
        "the cached prefix is 153 tokens, under the minimum of 1024 Claude Sonnet 4.5 "
        "caches: nothing is cached"
    )


def test_the_model_priced_is_the_model_assembled_for(
    make_catalog: Callable[..., Path], catalogs_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As with `catalog assemble --model`: a part for that model alone is in the prompt.
    make_catalog(
        "per-model",
        "1.0.0",
        [
            {"id": "base", "order": 10, "body": "a" * 400},
            {"id": "sonnet", "order": 20, "when": 'model == "claude-sonnet-4-5"',
             "body": "b" * 4000},
        ],
        catalog={"tokenizer": "chars"},
    )  # fmt: skip
    words = ("per-model", "--path", str(catalogs_root), "--model")
    sonnet = _cost(capsys, *words, "claude-sonnet-4-5")
    other = _cost(capsys, *words, "claude-haiku-4-5")
    assert sonnet["cached_prefix_tokens"] + sonnet["volatile_tokens"] == 1101  # 100 + 1 + 1000
    assert other["cached_prefix_tokens"] + other["volatile_tokens"] == 100
