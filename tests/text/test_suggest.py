"""Did-you-mean: a candidate that differs only in case, or that is one of the typed
name's words, is the one meant, before any merely similar spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.text.suggest import close_matches
from tests.conftest import run_cli, write_catalog


@pytest.mark.parametrize(
    ("typed", "candidates", "meant"),
    [
        ("os_name", ["cwd", "hostname", "os", "shell"], ["os"]),
        ("os-version", ["hostname", "os"], ["os"]),
        ("MyBot", ["mybot", "other"], ["mybot"]),
        ("tols", ["agent", "tools"], ["tools"]),  # a typo: the similar spelling
        ("zzz", ["agent", "tools"], []),
    ],
)
def test_close_matches(typed: str, candidates: list[str], meant: list[str]) -> None:
    assert close_matches(typed, candidates) == meant
    assert close_matches(typed, reversed(candidates)) == meant


def test_a_context_field_named_with_a_suffix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_catalog(tmp_path, "mybot", parts=[{"id": "intro", "body": "Hi."}])
    code, _, err = run_cli(capsys, "assemble", "mybot", "--path", str(tmp_path), "--set",
                           "env.os_name=Linux")  # fmt: skip
    assert code == 2
    assert "env.os_name: unknown key 'os_name'; did you mean 'os'?" in err
    assert "hostname" not in err
