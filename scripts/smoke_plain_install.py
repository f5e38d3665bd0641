"""Run the first commands a new user types against an installed ``catalog``.

Usage: ``python scripts/smoke_plain_install.py CATALOG [ARG...]``, where
``CATALOG [ARG...]`` runs the program (``/venv/bin/catalog``, or
``python -m catalog``). Meant for an install of the wheel WITHOUT extras: every
command but ``serve`` and ``mcp`` must succeed, and those must exit 2 naming the
extra to install. Any exit status 3 (an internal error), any traceback, or any other
status than the expected one fails the run (exit 1), listing each failure.
Uses the standard library alone, so any interpreter can run it; it works in a
new temporary folder and ignores ``CATALOG_PATH``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["SMOKE", "main", "run_smoke"]

SMOKE: tuple[tuple[int, tuple[str, ...], str], ...] = (
    (0, ("--help",), "usage: catalog"),
    (0, ("--version",), "catalog "),
    (2, (), "usage: catalog"),
    (0, ("completion", "bash"), "complete"),
    (0, ("help",), "cli"),
    (0, ("help", "cli"), "catalog"),
    (0, ("list",), "coding-agent"),
    (0, ("show", "coding-agent"), "agents: main"),
    (
        0,
        ("assemble", "coding-agent", "--tools", "Bash,Read"),
        "You are an interactive coding agent",
    ),
    (0, ("tokens", "coding-agent"), "total"),
    (0, ("variables", "coding-agent"), "plan_mode"),
    (0, ("validate", "coding-agent"), ""),
    (1, ("diff", "coding-agent@1.0.0", "coding-agent@1.1.0"), "coding-agent"),
    (0, ("log", "coding-agent", "git-safety"), "added"),
    (0, ("blame", "coding-agent", "git-safety"), "1.1.0"),
    (0, ("grep", "commit", "coding-agent"), "git-safety"),
    (0, ("schema", "manifest"), "$schema"),
    (0, ("lock", "coding-agent", "-o", "catalog.lock"), ""),
    (0, ("verify", "catalog.lock"), ""),
    (0, ("init", "mybot", "--path", "."), "mybot"),
    (0, ("assemble", "mybot", "--path", "."), ""),
    (0, ("gather", "coding-agent", "--from-dir", "."), ""),
    (0, ("release", "list", "--store", "sqlite:///prompts.sqlite"), ""),
    (2, ("serve",), "pip install 'agent-prompt-catalog[serve]'"),
    (2, ("serve", "--port", "0"), "pip install 'agent-prompt-catalog[serve]'"),
    (2, ("mcp",), "pip install 'agent-prompt-catalog[mcp]'"),
)
"""Each command: the exit status it must have, its words, and a text its output holds."""


def run_smoke(
    program: list[str], folder: Path, commands: tuple[tuple[int, tuple[str, ...], str], ...] = SMOKE
) -> list[str]:
    """Run every command of ``commands`` with ``program`` in ``folder``; the failures."""
    env = {k: v for k, v in os.environ.items() if k != "CATALOG_PATH"}
    env["NO_COLOR"] = "1"
    failures = []
    for status, words, expected in commands:
        done = subprocess.run(
            [*program, *words],
            capture_output=True,
            text=True,
            cwd=folder,
            env=env,
            timeout=300,
            check=False,
        )
        output = done.stdout + done.stderr
        shown = " ".join(["catalog", *words])
        if done.returncode != status or "Traceback" in output or expected not in output:
            failures.append(
                f"{shown}: exit {done.returncode} (expected {status}"
                f"{f', with {expected!r}' if expected else ''})\n{output[-2000:]}"
            )
        else:
            print(f"ok   {shown}", flush=True)
    return failures


def main(argv: list[str]) -> int:
    """Run the smoke list with the program ``argv`` names; 0 when every command passes."""
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="catalog-smoke-") as folder:
        failures = run_smoke(argv, Path(folder))
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
