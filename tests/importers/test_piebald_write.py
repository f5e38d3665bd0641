"""``catalog import piebald --name NAME``: a name that is not one says what is wrong
with it, and a name that would do."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.piebald_data import write_checkout
from tests.conftest import run_cli


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("CC", "it has upper-case letters; 'cc' would do"),
        ("claude code", "it holds ' ', which a name may not; 'claude-code' would do"),
    ],
)
def test_a_name_that_is_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, problem: str
) -> None:
    checkout = write_checkout(tmp_path / "src", "2.1.37")
    code, _, err = run_cli(capsys, "import", "piebald", str(checkout), "--name", name, "--out",
                           str(tmp_path / "out"))  # fmt: skip
    assert code == 2
    assert err.startswith(f"catalog: error: cannot import as catalog {name!r}: {problem}\n")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
