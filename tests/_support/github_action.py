"""The review action (action.yml) run as a GitHub runner would run it, its install
step left out: each step's environment from its expressions, outputs through
``$GITHUB_OUTPUT``, against a fake GitHub API."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests._support.github_api import FakeGitHub
from tests._support.review_repo import TwoCommits

__all__ = ["TOKEN", "read_action", "run_steps"]

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-not-a-secret"


def read_action() -> dict[str, Any]:
    """action.yml, read."""
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def _expression(text: str, values: dict[str, str]) -> str:
    """``text`` with each ``${{ name }}`` replaced by its value (every name known)."""

    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        assert name in values, f"the test does not know {name}"
        return values[name]

    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", value, text)


def run_steps(
    repo: TwoCommits, tmp: Path, inputs: dict[str, str], github: FakeGitHub
) -> dict[str, tuple[int, str]]:
    """Run the action's steps but the install (the package is installed here) as a runner
    would: each step's env from its expressions, outputs through ``$GITHUB_OUTPUT``."""
    action = read_action()
    context = {
        "github.event.pull_request.number": "7",
        "github.event.pull_request.base.sha": repo.first,
        "github.event.pull_request.head.sha": repo.second,
        "github.repository": "o/r",
        "github.token": TOKEN,
        "github.api_url": github.url,
        "github.action_path": str(ROOT),
        "runner.temp": str(tmp),
    }
    defaults = {f"inputs.{k}": str(v.get("default", "")) for k, v in action["inputs"].items()}
    values = {**context, **{k: _expression(v, context) for k, v in defaults.items()}}
    values.update({f"inputs.{k}": v for k, v in inputs.items()})
    done: dict[str, tuple[int, str]] = {}
    for step in action["runs"]["steps"]:
        if step["id"] == "install":
            continue
        output = tmp / f"{step['id']}.out"
        output.write_text("")
        env = {key: _expression(str(text), values) for key, text in step["env"].items()}
        env.update(
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            GITHUB_OUTPUT=str(output),
            HOME=str(tmp),
        )
        ran = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=repo.repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # one log, in order, as a runner keeps it
            text=True,
        )
        done[step["id"]] = (ran.returncode, ran.stdout)
        for line in output.read_text().splitlines():
            name, _, value = line.partition("=")
            values[f"steps.{step['id']}.outputs.{name}"] = value
    return done
