"""Snapshot matrix of the bundled ``coding-agent`` catalog: named contexts x every release.

Each case is one readable Markdown file under
``__snapshots__/test_coding_agent_snapshots/``, written by the project's own
pytest plugin (``prompt_snapshot``). After a deliberate prompt change, run
``python -m pytest tests/catalogs/test_coding_agent_snapshots.py --snapshot-update`` and
review the changed files like code.
"""

from __future__ import annotations

import functools
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import AssembledPrompt, Catalog
from tests._support.coding_agent_cases import (
    CONTEXTS,
    ENV,
    OUTPUT_STYLE,
    RELEASES,
    SESSION,
    TRIGGER_EVERY_REMINDER,
)


@functools.cache
def _release(version: str) -> Catalog:
    return catalog.load("coding-agent", f"=={version}")


MAIN_CASES = [pytest.param(v, name, id=f"{v}-{name}") for v in RELEASES for name in CONTEXTS]
AGENT_CASES = [
    pytest.param(v, agent, id=f"{v}-{agent}")
    for v in RELEASES
    for agent in _release(v).agents
    if agent != "main"
]


def _reminder_variables(cat: Catalog) -> dict[str, Any]:
    return {k: v for k, v in TRIGGER_EVERY_REMINDER.items() if k in cat.variable_types}


def _assert_clean(label: str, text: str) -> None:
    """Rendering mistakes a reader would notice: stray blank lines and whitespace."""
    assert text == text.strip(), f"{label}: leading or trailing blank space"
    assert "\n\n\n" not in text, f"{label}: doubled blank line"
    for number, line in enumerate(text.split("\n"), 1):
        assert line == line.rstrip(), f"{label}: trailing whitespace on line {number}: {line!r}"


def _assert_prompt_clean(prompt: AssembledPrompt) -> None:
    _assert_clean(f"{prompt.version} {prompt.agent}", prompt.text)
    for tool in prompt.tools:
        _assert_clean(f"{prompt.version} {prompt.agent} tool {tool.name}", tool.description)


@pytest.mark.parametrize(("version", "name"), MAIN_CASES)
def test_main_agent(version: str, name: str, prompt_snapshot: Any) -> None:
    prompt = _release(version).assemble(CONTEXTS[name])
    _assert_prompt_clean(prompt)
    assert prompt == prompt_snapshot


@pytest.mark.parametrize(("version", "agent"), AGENT_CASES)
def test_sub_agent(version: str, agent: str, prompt_snapshot: Any) -> None:
    prompt = _release(version).assemble(SESSION, agent=agent)
    _assert_prompt_clean(prompt)
    assert prompt == prompt_snapshot


@pytest.mark.parametrize("version", RELEASES)
def test_every_reminder(version: str, prompt_snapshot: Any) -> None:
    cat = _release(version)
    found = cat.reminders(
        {
            "tools": ["TodoWrite"],
            "env": ENV,
            "output_style": OUTPUT_STYLE,
            "variables": _reminder_variables(cat),
        }
    )
    for reminder in found:
        _assert_clean(reminder.id, reminder.text)
    # Every reminder fires, except "file opened", which yields to the IDE selection.
    every = {p.id for p in cat.parts if p.decl.kind == "reminder"}
    assert {r.id for r in found} == every - {"reminder-ide-file-opened"}
    assert found == prompt_snapshot


def test_matrix_covers_the_issue() -> None:
    """At least 12 named contexts, the ones the issue names among them, every sub-agent."""
    assert len(CONTEXTS) >= 12
    assert {
        *("all-tools", "no-tools", "read-only-tools", "memory-and-sessions", "mcp-servers"),
        *("slash-commands", "output-style", "claude-md", "custom-prompt", "preset-append"),
    } <= CONTEXTS.keys()
    assert {"1.0.0", "1.1.0", "1.2.0"} <= set(RELEASES)
    assert len(AGENT_CASES) >= 16


def test_snapshot_files_are_deterministic() -> None:
    """No path of this machine and no date from the clock in any snapshot file: the only
    date in them is the one the cases fix (a clock's date would be another)."""
    folder = Path(__file__).parent / "__snapshots__" / Path(__file__).stem
    files = sorted(folder.glob("*.md"))
    assert len(files) == len(MAIN_CASES) + len(AGENT_CASES) + len(RELEASES)
    machine = (str(Path(__file__).resolve().parents[2]), tempfile.gettempdir())
    for file in files:
        text = file.read_text(encoding="utf-8")
        assert not any(path in text for path in machine), file.name
        assert set(re.findall(r"\d{4}-\d{2}-\d{2}", text)) <= {"2025-03-14"}, file.name
