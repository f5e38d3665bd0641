"""``--model ID``: the model a prompt is for, read by conditions and bodies as ``model``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.fixture
def per_model(make_catalog: Callable[..., Path]) -> Path:
    return make_catalog(
        parts=[
            {"id": "gpt", "when": 'startswith(model, "gpt-")', "body": "For GPT."},
            {"id": "named", "when": "model", "body": "Model {{ model }}; env {{ env.model }}."},
        ]
    )


def test_model_reaches_conditions_and_bodies(
    per_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "assemble", str(per_model), "--model", "gpt-5")
    assert code == 0
    assert out == "For GPT.\n\nModel gpt-5; env gpt-5.\n"


def test_no_model_is_the_empty_string(per_model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "assemble", str(per_model))
    assert code == 0
    assert out == "\n"


def test_a_context_file_sets_model(
    per_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    context = tmp_path / "ctx.toml"
    context.write_text('model = "claude-opus-4"\n[env]\nmodel = "other"\n', encoding="utf-8")
    code, out, _ = run_cli(capsys, "assemble", str(per_model), "--context", str(context))
    assert code == 0
    assert out == "Model claude-opus-4; env other.\n"


def test_model_wins_over_the_context_file_and_set_over_model(
    per_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    context = tmp_path / "ctx.json"
    context.write_text('{"model": "claude-opus-4"}', encoding="utf-8")
    argv = ["assemble", str(per_model), "--context", str(context), "--model", "gpt-4o"]
    code, out, _ = run_cli(capsys, *argv, "--set", "env.model=x")
    assert code == 0
    assert out == "For GPT.\n\nModel gpt-4o; env x.\n"


def test_explain_and_show_tell_the_groups(
    make_catalog: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        parts=[
            {"id": "gpt", "group": "provider", "when": 'startswith(model, "gpt")', "body": "G."},
            {"id": "fallback", "group": "provider", "body": "F."},
        ]
    )
    code, out, err = run_cli(capsys, "assemble", str(folder), "--model", "gpt-5", "--explain")
    assert (code, out) == (0, "G.\n")
    rows = [" ".join(line.split()) for line in err.splitlines() if line.startswith("  ")]
    assert rows == [
        "+ gpt 2 group provider: taken (when 'startswith(model, \"gpt\")' is true)",
        "- fallback group provider: taken by gpt",
    ]
    code, out, _ = run_cli(capsys, "show", str(folder))
    assert code == 0
    assert "main / true (group provider)" in out
