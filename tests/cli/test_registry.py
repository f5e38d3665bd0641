"""The command registry: ``catalog --help`` imports no command and no server code, a
command whose extra is missing says what to install, and every entry has its module."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest

from catalog.cli import COMMANDS, build_parser

_SERVER_LIBRARIES = ("fastapi", "uvicorn", "jinja2", "starlette", "prometheus_client")

_BLOCK = "import sys\nfor name in {names!r}:\n    sys.modules[name] = None\n"
"""Make the libraries ``names`` impossible to import, as on an install without the extra."""


def _python(code: str, *, blocked: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")}
    return subprocess.run(
        [sys.executable, "-c", _BLOCK.format(names=blocked) + code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def _loaded_after(argv: list[str]) -> list[str]:
    """The modules in ``sys.modules`` after ``catalog ARGV`` ran in a fresh interpreter."""
    done = _python(
        "import json\nfrom catalog.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    loaded: list[str] = json.loads(done.stderr.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_the_top_level_help_loads_no_command_and_no_server(argv: list[str]) -> None:
    loaded = _loaded_after(argv)
    assert [m for m in loaded if m.split(".")[0] in _SERVER_LIBRARIES] == []
    assert [m for m in loaded if m.startswith("catalog.server")] == []
    assert [m for m in loaded if m.removeprefix("catalog.cli._") in COMMANDS] == []
    assert "pydantic" not in loaded  # nor the engine and its models


def test_the_top_level_help_lists_every_command_from_the_registry() -> None:
    parser = build_parser(load=False)
    text = parser.format_help()
    for name, command in COMMANDS.items():
        assert f"    {name}" in text and command.help.split()[0] in text


def test_start_up_imports_fewer_modules_than_pytest_reports_its_version() -> None:
    """Start-up stays well within what ``python -m pytest --version`` costs: counted in
    modules imported (a figure that does not depend on the machine's load); the time
    itself is measured by scripts/bench_startup.py."""
    catalog = len(_loaded_after(["--help"]))
    pytest_version = len(
        json.loads(
            _python(
                "import json, pytest\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
            ).stderr.splitlines()[-1]
        )
    )
    assert catalog < pytest_version


def test_every_entry_has_a_module_that_registers_it() -> None:
    for name in COMMANDS:
        module = importlib.import_module(f"catalog.cli._{name.replace('-', '_')}")
        assert callable(module.register), name


_RUN = "from catalog.cli import main\nraise SystemExit(main({argv!r}))\n"


def test_serve_without_its_extra_says_what_to_install() -> None:
    done = _python(_RUN.format(argv=["serve"]), blocked=_SERVER_LIBRARIES)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "catalog serve needs the serve extra (" in done.stderr
    assert "pip install 'agent-prompt-catalog[serve]'" in done.stderr
    assert "pip install '.[serve]'" in done.stderr


@pytest.mark.parametrize(
    "argv", [["serve", "--help"], ["completion", "bash"], ["list"], ["help", "cli"]]
)
def test_other_commands_work_without_the_serve_extra(argv: list[str]) -> None:
    done = _python(_RUN.format(argv=argv), blocked=_SERVER_LIBRARIES)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_a_command_missing_a_library_outside_its_extra_is_still_a_bug() -> None:
    """Only a command that declares an extra is excused a missing library: anywhere
    else it is a packaging bug, reported as the internal error it is (status 3)."""
    done = _python(_RUN.format(argv=["list"]), blocked=("packaging", "packaging.version"))
    assert done.returncode == 3, done.stderr
    assert "extra" not in done.stderr
