"""Every script in scripts/ still imports: a module it names that moved or was renamed
breaks it here, not on the day someone runs a benchmark."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[1] / "scripts").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[path.stem for path in SCRIPTS])
def test_the_script_imports_without_running(script: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # a script may put the tree on it
    spec = importlib.util.spec_from_file_location(f"_script_{script.stem}", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    used = any(
        f"from {script.stem} import" in other.read_text(encoding="utf-8") for other in SCRIPTS
    )
    assert callable(getattr(module, "main", None)) or used, f"{script.name}: no main(), unused"
