"""A plain install (no extras): the smoke list CI runs against the built wheel passes
here too, with the serve extra's libraries made impossible to import."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

_PLAIN = (
    "import sys\n"
    "for name in ('fastapi', 'uvicorn', 'jinja2', 'starlette', 'prometheus_client', 'mcp'):\n"
    "    sys.modules[name] = None\n"
    "from catalog.__main__ import main\n"
    "raise SystemExit(main())\n"
)
"""``catalog`` as a plain install runs it: the serve extra's libraries cannot be imported."""


def _smoke() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "smoke_plain_install", ROOT / "scripts" / "smoke_plain_install.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_first_command_works_and_serve_says_what_to_install(tmp_path: Path) -> None:
    failures = _smoke().run_smoke([sys.executable, "-c", _PLAIN], tmp_path)
    assert failures == []


def test_the_smoke_list_fails_on_an_internal_error(tmp_path: Path) -> None:
    """The check itself: a program that ends in a traceback, or exits 3, fails it."""
    broken = "import sys\nif sys.argv[1:] == ['list']:\n    raise RuntimeError('boom')\n" + _PLAIN
    smoke = _smoke()
    commands = tuple(c for c in smoke.SMOKE if c[1][:1] in (("list",), ("serve",)))
    failures = smoke.run_smoke([sys.executable, "-c", broken], tmp_path, commands)
    assert [failure.split(":")[0] for failure in failures] == ["catalog list"]
    assert "Traceback" in failures[0]
    internal = ((0, ("list", "--format", "json"), ""),)  # a bug in the command: exit 3
    broken = "import sys\nsys.modules['packaging'] = None\n" + _PLAIN
    failures = smoke.run_smoke([sys.executable, "-c", broken], tmp_path, internal)
    assert failures[0].startswith("catalog list --format json: exit 3")


def test_ci_runs_the_smoke_list_on_the_wheel_without_extras() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    wheel = ci.index("pip wheel -q --no-deps")
    install = ci.index('-m pip install -q "$plain"/wheel/*.whl')  # no [extra]
    smoke = ci.index("scripts/smoke_plain_install.py")
    assert ci.index("python -m pytest") < wheel < install < smoke
    assert "mktemp -d" in ci
