"""Imported repositories, new shapes: pointers holding a NUL character.

The repositories are real folders given to a real ``catalog`` process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

_IMPORT = (sys.executable, "-m", "catalog", "import", "piebald")


@pytest.mark.parametrize(
    "layout",
    [
        {".git": b"gitdir: a\0b\n"},
        {".git/HEAD": b"ref: refs/heads/main\n", ".git/commondir": b"x\0y\n"},
    ],
    ids=["gitdir-file", "commondir"],
)
def test_a_nul_in_a_git_pointer_is_an_error_not_a_traceback(
    tmp_path: Path, layout: dict[str, bytes]
) -> None:
    """The pointer used to reach ``Path.resolve``, whose ValueError for a NUL character
    (not an OSError) ended the import in a traceback with exit status 1."""
    repo = tmp_path / "repo"
    for name, data in layout.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "catalog",
            "import",
            "piebald",
            "--git",
            str(repo),
            "--name",
            "x",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "which is not a folder" in done.stderr
    assert "<U+0000>" in done.stderr
    assert not (tmp_path / "out").exists()
