"""What the README shows runs as written, and what it lists matches the code."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.cli import main
from catalog.lang.functions import FUNCTIONS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return README.split(f"\n{title}\n", 1)[1]


@pytest.mark.slow
def test_the_python_tour_runs_as_written(tmp_path: Path) -> None:
    tour = _section("### Python").split("```python\n", 1)[1].split("```", 1)[0]
    assert main(["lock", "coding-agent", "-o", str(tmp_path / "prompts.lock")]) == 0
    script = tmp_path / "tour.py"
    script.write_text(tour + "\nprint(prompt.fingerprint == sub.fingerprint, len(sub.text) > 0)\n")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False True"


def test_the_function_list_is_the_function_table() -> None:
    grammar = _section("### Conditions and placeholders: one expression language")
    listed = re.search(r"- functions: `([^`]+)`", grammar)
    assert listed is not None
    assert listed.group(1).split() == list(FUNCTIONS)


def test_the_grammar_examples_compile_and_hold(make_catalog: Callable[..., Path]) -> None:
    grammar = _section("### Conditions and placeholders: one expression language")
    examples = grammar.split("```\n", 2)[1].strip().splitlines()
    assert len(examples) == 5
    folder = make_catalog(
        parts=[
            {"id": f"e{index}", "when": example, "body": f"example {index}"}
            for index, example in enumerate(examples)
        ],
        variables=[{"name": "plan_mode", "type": "bool"}],
    )
    context = {
        "tools": ["Grep"],
        "mcp_servers": [{"name": "docs"}],
        "output_style": {"name": "terse"},
        "variables": {"plan_mode": True},
        "env": {"os": "Linux", "shell": "bash"},
    }
    prompt = load_dir(folder).assemble(context)
    assert [part.id for part in prompt.parts] == ["e0", "e1", "e2", "e3", "e4"]
    assert load_dir(folder).assemble({"env": {"os": "Darwin", "shell": "zsh"}}).text == ""
