"""``catalog assemble`` refuses a prompt over the limit the server and the stores keep,
with one message saying how to find and shrink what makes it long."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli, write_catalog

# The limit, written by hand: 2,000,000 characters (docs/serving.md).
_LIMIT = 2_000_000


def _catalog(root: Path, characters: int) -> Path:
    """``big`` 1.0.0: one part of ``characters`` characters (the prompt is that part)."""
    write_catalog(root, "big", parts=[{"id": "all", "body": "x" * characters}])
    return root


def test_a_prompt_over_the_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _catalog(tmp_path, _LIMIT + 1)
    code, out, err = run_cli(capsys, "assemble", "big", "--path", str(root))
    assert (code, out) == (2, "")
    assert err.startswith(
        "catalog: error: the assembled prompt has 2,000,001 characters, over the limit of "
        "2,000,000\n"
    )
    assert "hint: `catalog tokens big@1.0.0` shows where the size goes" in err


def test_a_prompt_at_the_limit_is_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _catalog(tmp_path, _LIMIT)
    code, out, err = run_cli(capsys, "assemble", "big", "--path", str(root))
    assert (code, err) == (0, "")
    assert out == "x" * _LIMIT + "\n"
