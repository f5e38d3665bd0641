"""Attacks on the prices and the cost arithmetic: a prices file with wrong types, numbers
out of any sense, unknown models, turns out of range. Each is a clear error naming the
file and the line, never an internal error."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from catalog.review.report import money
from tests.conftest import run_cli as run


def _prices(tmp_path: Path, model: str, cache: str = "") -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(f"[model.x]\nmin_cacheable_tokens = 1\n{model}\n{cache}", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("model", "cache", "said"),
    [
        ("input_per_mtok = inf", "", "prices.toml:3: model.x.input_per_mtok"),
        ("input_per_mtok = nan", "", "prices.toml:3: model.x.input_per_mtok"),
        ("input_per_mtok = -1", "", "must be at least 0"),
        ("input_per_mtok = 1e300", "", "must be at most 1000000"),
        ('input_per_mtok = "3"', "", "must be a number, not text"),
        ("input_per_mtok = {a = 1}", "", "not a table"),
        ("input_per_mtok = 3\nread = 1e300", "", "prices.toml:4: model.x.read"),
        ("input_per_mtok = 3", "[cache]\nwrite_5m = -inf", "cache.write_5m"),
        ("input_per_mtok = 3", "[cache]\nmax_breakpoints = 99999999999", "max_breakpoints"),
        ("input_per_mtok = 3\nmin_cacheable_tokens = 2", "", "prices.toml"),  # a key twice
    ],
)
def test_a_prices_file_out_of_range_is_an_error_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, cache: str, said: str
) -> None:
    prices = _prices(tmp_path, model, cache)
    code, out, err = run(capsys, "cost", "pi", "--model", "x", "--prices", str(prices))
    assert code == 2 and out == ""
    assert said in err and "internal error" not in err and "Traceback" not in err


def test_the_largest_prices_and_turns_allowed_still_cost_to_the_cent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = _prices(tmp_path, "input_per_mtok = 1000000", "[cache]\nwrite_5m = 1000\nread = 1000")
    code, out, err = run(
        capsys, "cost", "pi", "--model", "x", "--prices", str(prices), "--turns", "1000000"
    )
    assert code == 0, err
    assert "internal error" not in err and "$-0.0000" not in out


@pytest.mark.parametrize("turns", ["0", "-1", "1000001", "10" * 40, "1e3", "٣", " 3"])
def test_turns_out_of_range_are_refused_by_the_parser(
    capsys: pytest.CaptureFixture[str], turns: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        run(capsys, "cost", "pi", "--model", "claude-sonnet-4-5", f"--turns={turns}")
    assert exited.value.code == 2
    assert "is not a number of turns (1 to 1000000)" in capsys.readouterr().err


def test_an_unknown_model_suggests_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "cost", "pi", "--model", "claude-sonet-4-5")
    assert code == 2 and "did you mean 'claude-sonnet-4-5'" in err


def test_a_loss_under_half_a_hundredth_of_a_cent_shows_no_minus_sign() -> None:
    assert money(Decimal("-0.00004")) == "$0.0000"
    assert money(Decimal("-0.00005")) == "$-0.0001"
