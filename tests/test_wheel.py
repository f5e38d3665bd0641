"""The built wheel carries the bundled catalogs and loads them from the zip."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import catalog

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (found,) = out.glob("agent_prompt_catalog-*.whl")
    return found


def test_wheel_contains_catalog_data_and_typing_marker(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "catalog/py.typed" in names
    assert "catalog/parts/coding-agent/1.0.0/catalog.toml" in names
    assert any(
        n.startswith("catalog/parts/coding-agent/1.0.0/") and n.endswith(".md") for n in names
    )
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    declared = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "catalog = catalog.__main__:main" in declared
    assert "[pytest11]\nprompt_catalog = catalog.testing" in declared
    assert {"catalog/testing/__init__.py", "catalog/testing/snapshots.py"} <= set(names)


def test_bundled_catalog_loads_from_the_zipped_wheel(wheel: Path, tmp_path: Path) -> None:
    script = (
        "import catalog, sys\n"
        "assert catalog.__file__.startswith(sys.argv[1]), catalog.__file__\n"
        "cat = catalog.load('coding-agent', '==1.0.0')\n"
        "print(cat.source, len(cat.parts), cat.assemble({'tools': ['Bash']}).fingerprint)\n"
        "print(cat.location)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(wheel)}
    result = subprocess.run(
        [sys.executable, "-c", script, str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    figures, location = result.stdout.splitlines()
    source, parts, fingerprint = figures.split()
    assert source == "bundled"
    assert location.startswith(str(wheel)), location  # read from inside the zip
    assert int(parts) > 10
    here = catalog.load("coding-agent", "==1.0.0")  # the same release from the source tree
    assert int(parts) == len(here.parts)
    assert fingerprint == here.assemble({"tools": ["Bash"]}).fingerprint


def test_the_wheel_carries_the_documentation_for_catalog_help(wheel: Path, tmp_path: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    pages = sorted((ROOT / "docs").rglob("*.md"))
    assert {f"catalog/docs/{p.relative_to(ROOT / 'docs').as_posix()}" for p in pages} <= names
    env = {**os.environ, "PYTHONPATH": str(wheel)}

    def catalog_help(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "catalog", "help", *args],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd=tmp_path,
        )
        return done.stdout

    assert catalog_help("cli") == (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert catalog_help("catalogs/opal") == (ROOT / "docs" / "catalogs" / "opal.md").read_text(
        encoding="utf-8"
    )
    listed = catalog_help().splitlines()
    assert "cli                    The `catalog` command" in listed
