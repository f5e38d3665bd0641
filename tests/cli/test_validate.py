"""`catalog validate --model`: cache warnings; the pre-commit hook that runs validate."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli as run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(make_catalog: Callable[..., Path], catalogs_root: Path) -> Path:
    """A prompt of chars/4 tokens: a static part of 1200, a turn part, a static part."""
    make_catalog(
        "cachy",
        "1.0.0",
        [
            {"id": "rules", "order": 10, "body": "a" * 4800},
            {"id": "now", "order": 20, "stability": "turn", "body": "It is now."},
            {"id": "late", "order": 30, "body": "b" * 400},
        ],
        catalog={"tokenizer": "chars"},
    )
    return catalogs_root


def test_model_warnings_name_the_minimum_and_the_volatile_part(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "validate", "cachy", "--path", str(root))
    assert code == 0 and "under the minimum" not in out
    code, out, _ = run(
        capsys, "validate", "cachy", "--path", str(root), "--model", "claude-haiku-4-5"
    )
    assert code == 0
    # 1200 tokens of static prefix: under Haiku 4.5's 4096.
    assert "ending with part 'rules' (static) holds a prefix of about 1200 tokens" in out
    assert "under the minimum of 4096 Claude Haiku 4.5 caches" in out
    assert (
        "part 'now' (turn) comes before 1 more stable part(s) ('late'...): their 100 tokens "
        "are paid in full every turn" in out
    )
    code, out, _ = run(
        capsys, "validate", "cachy", "--path", str(root), "--model", "claude-sonnet-4-5"
    )
    assert "under the minimum" not in out  # 1200 reaches Sonnet 4.5's 1024
    code, _, _ = run(
        capsys, "validate", "cachy", "--path", str(root), "--model", "claude-haiku-4-5",
        "--strict",
    )  # fmt: skip
    assert code == 1


def _hook() -> dict[str, Any]:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    data: dict[str, Any] = hook
    return data


def test_the_pre_commit_hook_fails_on_an_unstamped_body(
    make_catalog: Callable[..., Path], catalogs_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog("clean", "1.0.0", [{"id": "late", "body": "b" * 400}])
    root = catalogs_root
    hook = _hook()
    assert hook["id"] == "catalog-validate" and hook["pass_filenames"] is False
    entry = shlex.split(hook["entry"])
    assert entry[:2] == ["catalog", "validate"]
    words = [*entry[1:], "--path", str(root)]
    code, _, _ = run(capsys, *words)
    assert code == 0
    (folder / "late.md").write_text("Edited without a stamp.")
    code, out, _ = run(capsys, *words)
    assert code == 1
    assert "late" in out and "sha256" in out
