#!/usr/bin/env python3
"""Mutation testing of the modules where a silent bug costs most, with mutmut.

mutmut changes one small thing at a time in a module (``<`` for ``<=``, ``and`` for
``or``, a constant, a string, a deleted call) and runs the tests that reach the
changed function; a change no test notices (a *survivor*) is a bug the suite would
let through. Each module here is mutated in a scratch copy of the project, against
only the tests that cover it, so that a module takes minutes, not hours.

Not run in CI (it is slow); docs/testing.md records the scores and the survivors
judged equivalent. Needs mutmut 3 (``python -m pip install 'mutmut>=3.3'``).

Run from the repository root::

    python scripts/mutate.py                     # every module below, smallest first
    python scripts/mutate.py classify lockfile   # some of them
    python scripts/mutate.py --list              # the modules and their tests

``--children N`` runs N mutants at once (2); ``--keep DIR`` keeps the scratch copies
under DIR (``mutmut browse`` there shows each survivor's diff).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name: (the modules mutated, the tests that cover them), smallest first.
MODULES: dict[str, tuple[list[str], list[str]]] = {
    "server-auth": (
        [
            "src/catalog/io/listening.py",
            "src/catalog/server/state.py",
            "src/catalog/server/deps.py",
        ],
        ["tests/server/test_state.py", "tests/server/test_deps.py"],
    ),
    "classify": (
        ["src/catalog/changes/classify.py"],
        ["tests/changes/test_classify.py", "tests/changes/test_compute.py"],
    ),
    "lockfile": (
        ["src/catalog/io/lockfile.py"],
        [
            "tests/io/test_lockfile.py",
            "tests/io/test_textfile.py",
            "tests/io/test_catalog_path_names.py",
            "tests/cli/test_init_completion_lock.py",
            "tests/server/test_app.py",
            "tests/importers/piebald/test_read.py",
        ],
    ),
    "releases": (
        ["src/catalog/server/releases.py", "src/catalog/conversations/releases.py"],
        [
            "tests/conversations/test_releases.py",
            "tests/server/test_releases.py",
            "tests/server/test_releases_fleet.py",
            "tests/server/test_release_pages.py",
            "tests/cli/test_release.py",
            "tests/hostile/test_rollback_race.py",
            "tests/hostile/test_server_secrets.py",
            "tests/hostile/test_metric_series.py",
            "tests/hostile/test_mcp_requests.py",
            "tests/mcp/test_library.py",
            "tests/engine/test_telemetry.py",
        ],
    ),
    "operators": (
        ["src/catalog/lang/_operators.py", "src/catalog/lang/values.py"],
        [
            "tests/lang/test_operators.py",
            "tests/lang/test_one_kind_of_list.py",
            "tests/lang/test_values.py",
            "tests/lang/test_compiler.py",
            "tests/lang/test_compiler_partial.py",
            "tests/hostile/test_budget_by_bytes.py",
        ],
    ),
    "assemble": (
        ["src/catalog/engine/assemble.py"],
        [
            "tests/engine/test_assemble.py",
            "tests/engine/test_assemble_budget.py",
            "tests/engine/test_groups.py",
            "tests/engine/test_prompt.py",
            "tests/engine/test_tools.py",
            "tests/engine/test_definitions.py",
            "tests/catalogs",
        ],
    ),
    "compiler": (
        ["src/catalog/lang/compiler.py"],
        [
            "tests/lang/test_compiler.py",
            "tests/lang/test_compiler_partial.py",
            "tests/lang/test_compiler_exact.py",
            "tests/lang/test_one_kind_of_list.py",
            "tests/lang/test_operators.py",
            "tests/lang/test_functions.py",
            "tests/lang/test_shapes.py",
            "tests/lang/test_timefmt.py",
            "tests/lang/test_values.py",
            "tests/lang/test_memo.py",
            "tests/lang/test_paths.py",
            "tests/lang/test_template.py",
            "tests/lang/test_brackets.py",
            "tests/hostile/test_sandbox.py",
            "tests/hostile/test_lang.py",
            "tests/hostile/test_budget_by_bytes.py",
            "tests/engine/test_plan.py",
            "tests/engine/test_definitions.py",
        ],
    ),
}

# Only these functions are mutated where a module holds more than the entry is about
# (mutmut's names: module.x_function, module.xǁClassǁmethod; fnmatch patterns).
FUNCTIONS: dict[str, list[str]] = {
    "operators": [
        "catalog.lang._operators.*",
        "catalog.lang.values.x_equal*",
        "catalog.lang.values.x_contains*",
    ],
    "server-auth": [
        "catalog.io.listening.x_token_problem*",
        "catalog.server.state.x*token_matches*",
        "catalog.server.state.x*__post_init__*",
        "catalog.server.deps.x__token*",
        "catalog.server.deps.x__writer*",
    ],
}

_KILLED = {"killed", "caught by type check"}
_UNCHECKED = "not checked"


def _data() -> list[str]:
    """What besides Python the tests read: the package's data (bundled catalogs,
    templates, static files; mutmut copies only the modules), the docs and examples, and
    the scripts (a snapshot test runs ``scripts/retokenize.py``)."""
    package = ROOT / "src" / "catalog"
    pure = {  # folders holding data and no module, at any depth
        path.parent
        for path in package.rglob("*")
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts
    } - {path.parent for path in package.rglob("*.py")}
    tops = {folder for folder in pure if not any(parent in pure for parent in folder.parents)}
    files = [path for path in package.iterdir() if path.is_file() and path.suffix != ".py"]
    found = [path.relative_to(ROOT).as_posix() for path in sorted(tops) + sorted(files)]
    return [*found, "docs", "examples", "scripts", "README.md"]


def _config(modules: list[str], tests: list[str]) -> str:
    """mutmut's settings (setup.cfg) for one entry: the whole package copied, only
    ``modules`` mutated, only ``tests`` run."""
    lines = ["[mutmut]", "source_paths = src/catalog", "only_mutate ="]
    lines += [f"    {module}" for module in modules]
    lines += ["also_copy ="]
    lines += [f"    {path}" for path in _data()]
    lines += ["pytest_add_cli_args_test_selection ="]
    lines += [f"    {test}" for test in tests]
    return "\n".join([*lines, ""])


def _statuses(work: Path) -> Counter[str]:
    """How many mutants ended in each status, from mutmut's record of the run."""
    # mutmut is optional and ships no type information: its table is typed here.
    stats = importlib.import_module("mutmut.stats")
    status_by_exit_code: Mapping[int | None, str] = stats.status_by_exit_code

    found: Counter[str] = Counter()
    for meta in (work / "mutants").rglob("*.py.meta"):
        for code in json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"].values():
            found[status_by_exit_code[code]] += 1
    return found


def _survivors(work: Path) -> list[str]:
    """The names of the mutants no test noticed (``mutmut show NAME`` gives the diff)."""
    listed = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return [line.split(":")[0].strip() for line in listed.splitlines() if "survived" in line]


def run(name: str, scratch: Path, children: int) -> Counter[str]:
    """Mutate entry ``name`` in a copy of the project under ``scratch``; print its score."""
    modules, tests = MODULES[name]
    work = scratch / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", work / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", work / "pyproject.toml")
    shutil.copy(ROOT / "README.md", work / "README.md")
    for folder in ("docs", "examples", "scripts"):
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (work / "setup.cfg").write_text(_config(modules, tests), encoding="utf-8")
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "mutmut",
            "run",
            "--max-children",
            str(children),
            *FUNCTIONS.get(name, []),
        ],
        cwd=work,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    if ran.returncode != 0:
        print(f"{name}: mutmut failed (exit {ran.returncode}); see above", flush=True)
    statuses = _statuses(work)
    total = sum(statuses.values()) - statuses[_UNCHECKED]
    killed = sum(statuses[status] for status in _KILLED)
    score = f"{100 * killed / total:.1f} %" if total else "no mutants"
    print(f"{name}: {killed}/{total} killed ({score}); {dict(statuses)}", flush=True)
    for survivor in _survivors(work):
        print(f"  survived: {survivor}", flush=True)
    return statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=", ".join(MODULES))
    parser.add_argument("--children", type=int, default=2, metavar="N")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR")
    parser.add_argument("--list", action="store_true", help="list the modules and their tests")
    args = parser.parse_args()
    if args.list:
        for name, (modules, tests) in MODULES.items():
            print(f"{name}: {' '.join(modules)}\n  tests: {' '.join(tests)}")
        return 0
    unknown = sorted(set(args.modules) - MODULES.keys())
    if unknown:
        parser.error(f"unknown module {unknown[0]!r}: choose from {', '.join(MODULES)}")
    if importlib.util.find_spec("mutmut") is None:
        print("scripts/mutate.py needs mutmut: python -m pip install 'mutmut>=3.3'")
        return 2
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="catalog-mutate-"))
    try:
        for name in args.modules or list(MODULES):
            run(name, scratch, args.children)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
