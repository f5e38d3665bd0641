"""The shape of the package: folders that show the pipeline, small modules.

The import rules themselves (layers, no cycles, private modules) are
import-linter contracts in pyproject.toml, checked by ``lint-imports`` in CI.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "catalog"


def test_the_package_top_holds_at_most_four_loose_modules_besides_its_own() -> None:
    loose = sorted(
        path.name
        for path in PACKAGE.glob("*.py")
        if path.name not in ("__init__.py", "__main__.py", "errors.py")
    )
    assert len(loose) <= 4, loose


def test_functions_are_held_to_size_and_complexity_rules() -> None:
    # Size is judged per function by ruff (McCabe complexity, branches, returns,
    # statements, arguments), not by a cap on a file's lines.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    assert {"C901", "PLR0911", "PLR0912", "PLR0913", "PLR0915"} <= set(lint["select"])
    assert lint["mccabe"]["max-complexity"] <= 15
    limits = lint["pylint"]
    assert limits["max-branches"] <= 15 and limits["max-statements"] <= 50
    assert limits["max-returns"] <= 12 and limits["max-args"] <= 10


def test_every_folder_of_the_package_is_a_layer_of_the_contracts() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    top = next(c for c in contracts if c["type"] == "layers" and c["containers"] == ["catalog"])
    layered = {name.strip() for layer in top["layers"] for name in layer.split("|")}
    folders = {
        path.name
        for path in PACKAGE.iterdir()
        if path.is_dir() and (path / "__init__.py").exists() and path.name != "parts"
    }
    assert folders <= layered, folders - layered
    assert {"acyclic_siblings", "private_modules"} <= {c["type"] for c in contracts}
