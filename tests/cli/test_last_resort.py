"""The command line on hostile input, new shapes: a NUL character in a body's path,
and the last resort that keeps any unforeseen failure from showing a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from catalog.cli import main

_CATALOG = (sys.executable, "-m", "catalog")


def _version(root: Path, body_file: str) -> Path:
    """A catalog version whose only part names ``body_file`` (TOML escapes allowed)."""
    folder = root / "nul" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(
        '[catalog]\nname = "nul"\nversion = "1.0.0"\nsummary = "x"\n\n'
        f'[[part]]\nid = "a"\nfile = "{body_file}"\norder = 1\n',
        encoding="utf-8",
    )
    return folder


@pytest.mark.parametrize("command", ["stamp", "validate", "show", "assemble", "lock"])
def test_a_nul_in_a_body_path_is_an_error_at_its_key(tmp_path: Path, command: str) -> None:
    """``file = "a\\u0000b"`` reached ``os.lstat`` from ``catalog stamp``, whose ValueError
    ended it in a traceback; every command now names the key and its line."""
    folder = _version(tmp_path, "a\\u0000b")
    done = subprocess.run(
        [*_CATALOG, command, str(folder)], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == (1 if command == "validate" else 2), done.stderr
    report = done.stdout if command == "validate" else done.stderr  # findings are its output
    assert "catalog.toml:8: part[0].file" in report
    assert "NUL character" in report
    assert "\0" not in report


def test_an_unforeseen_failure_is_one_message_with_status_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last resort: whatever a command raises that no reader foresaw is one line
    naming the exception (its hidden characters shown), exit status 3, distinct from
    1 (problems found) and 2 (bad input); ``CATALOG_TRACEBACK=1`` gives the traceback."""
    folder = _version(tmp_path, "a.md")
    (folder / "a.md").write_text("x", encoding="utf-8")

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("bad \x1b[2J thing")

    monkeypatch.setattr("catalog.cli._stamp.stamp_folder", broken)
    monkeypatch.delenv("CATALOG_TRACEBACK", raising=False)
    assert main(["stamp", str(folder)]) == 3
    err = capsys.readouterr().err
    assert "internal error, the command failed unexpectedly: ValueError: bad <U+001B>[2J" in err
    assert "CATALOG_TRACEBACK=1" in err
    assert "\x1b" not in err
    assert main(["--format", "json", "stamp", str(folder)]) == 3
    assert '"error": "internal error' in capsys.readouterr().err
    monkeypatch.setenv("CATALOG_TRACEBACK", "1")
    with pytest.raises(ValueError, match="bad"):
        main(["stamp", str(folder)])
