"""What the catalog path reads while finding catalogs is read safely: real named pipes
and devices on ``sys.path`` and in catalog folders, in real processes with a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_catalog

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


def _catalog(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m catalog ARGS`` in ``cwd``, which ``-m`` puts first on ``sys.path``; a
    hang fails the test after 60 seconds instead of stopping the suite."""
    env = {k: v for k, v in os.environ.items() if k not in ("CATALOG_PATH", "PYTHONPATH")}
    return subprocess.run(
        [sys.executable, "-m", "catalog", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _metadata(folder: Path, name: str) -> Path:
    """An empty ``NAME-1.0.dist-info`` in ``folder``; returns its entry_points.txt path."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    return info / "entry_points.txt"


def test_a_fifo_named_entry_points_txt_on_sys_path_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(_metadata(tmp_path, "evil"))
    done = _catalog(tmp_path, "list")
    assert done.returncode == 0, done.stderr
    assert "coding-agent" in done.stdout


def test_a_device_named_entry_points_txt_is_not_read_for_ever(tmp_path: Path) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    _metadata(tmp_path, "endless").symlink_to("/dev/zero")
    done = _catalog(tmp_path, "list")
    assert done.returncode == 0, done.stderr
    assert "coding-agent" in done.stdout


def test_a_fifo_beside_a_declared_entry_point_is_an_error_naming_it(tmp_path: Path) -> None:
    """importlib.metadata would open the pipe and wait: the command says why it stops."""
    fifo = _metadata(tmp_path, "evil")
    os.mkfifo(fifo)
    _metadata(tmp_path, "plugin").write_text(
        "[catalog.catalogs]\nmine = plugin_prompts\n", encoding="utf-8"
    )
    done = _catalog(tmp_path, "list")
    assert done.returncode == 2
    assert str(fifo.name) in done.stderr and "evil-1.0.dist-info" in done.stderr
    assert "not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_large_entry_points_txt_is_read_only_so_far(tmp_path: Path) -> None:
    """Over 1 MiB: not searched past that; with a declared group elsewhere, an error."""
    _metadata(tmp_path, "large").write_bytes(b"#" * (2 * 1024 * 1024))
    assert _catalog(tmp_path, "list").returncode == 0
    _metadata(tmp_path, "plugin").write_text(
        "[catalog.catalogs]\nmine = plugin_prompts\n", encoding="utf-8"
    )
    done = _catalog(tmp_path, "list")
    assert done.returncode == 2 and "large-1.0.dist-info" in done.stderr


def test_a_fifo_in_place_of_a_manifest_blocks_no_command(tmp_path: Path) -> None:
    root = tmp_path / "root"
    folder = write_catalog(root, "piped", "1.0.0", [{"id": "a"}])
    write_catalog(root, "fine", "1.0.0", [{"id": "a"}])
    (folder / "catalog.toml").unlink()
    os.mkfifo(folder / "catalog.toml")
    listed = _catalog(tmp_path, "list", "--path", str(root))
    assert listed.returncode == 0, listed.stderr
    assert "fine" in listed.stdout and "piped" not in listed.stdout
    shown = _catalog(tmp_path, "show", "piped", "--path", str(root))
    assert shown.returncode == 2
    assert "catalog 'piped' has no version" in shown.stderr
    for command, status in (("show", 2), ("validate", 1)):
        done = _catalog(tmp_path, command, str(folder))
        assert done.returncode == status, done.stderr
        assert "Traceback" not in done.stderr
        said = done.stdout + done.stderr
        assert f"{folder / 'catalog.toml'}: cannot read the manifest: a named pipe" in said
