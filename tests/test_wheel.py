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


def _run_from(wheel: Path, script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``script`` run by this interpreter with the wheel (a zip) first on its path, given
    the wheel's path as its argument."""
    env = {**os.environ, "PYTHONPATH": str(wheel)}
    return subprocess.run(
        [sys.executable, "-c", script, str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=cwd,
    )


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
    result = _run_from(wheel, script, tmp_path)
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


def test_wheel_carries_the_pages_templates_and_static_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    pages = {"base.html", "_macros.html", "home.html", "catalog.html", "version.html",
             "playground.html", "diff.html", "editor.html"}  # fmt: skip
    assert {f"catalog/server/templates/{name}" for name in pages} <= names
    assert {"catalog/server/static/app.js", "catalog/server/static/style.css"} <= names


def test_the_pages_render_from_the_zipped_wheel(wheel: Path, tmp_path: Path) -> None:
    """The templates and static files are read from inside the zip, as installed."""
    pytest.importorskip("fastapi")
    pytest.importorskip("jinja2")
    script = (
        "import catalog, sys\n"
        "assert catalog.__file__.startswith(sys.argv[1]), catalog.__file__\n"
        "from fastapi.testclient import TestClient\n"
        "from catalog.server.app import create_app\n"
        "from catalog.server.state import ServerSettings\n"
        "app = create_app(ServerSettings(store_url='sqlite://'))\n"
        "with TestClient(app, base_url='http://127.0.0.1') as client:\n"
        "    for path in ('/', '/catalogs/pi/1.0.0', '/editor', '/static/app.js'):\n"
        "        answer = client.get(path)\n"
        "        print(path, answer.status_code, 'prompt-catalog' in answer.text)\n"
    )
    result = _run_from(wheel, script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "/ 200 True",
        "/catalogs/pi/1.0.0 200 True",
        "/editor 200 True",
        "/static/app.js 200 True",
    ]
