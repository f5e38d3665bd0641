"""The pytest plugin (``prompt_snapshot``), run in throwaway projects with pytester."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.engine.prompt import Reminder
from catalog.testing.snapshots import render_snapshot
from tests.conftest import dedent, write_catalog

pytest_plugins = ["pytester"]

USER_TEST = dedent(
    """
    import catalog


    def test_greeting(prompt_snapshot):
        cat = catalog.load_dir("catalogs/greeter/1.0.0")
        prompt = cat.assemble({"tools": ["Bash"], "env": {"os": "Linux"}})
        assert prompt.text == prompt_snapshot
    """
)


def write_greeter(root: Path, intro: str) -> Path:
    return write_catalog(
        root / "catalogs",
        "greeter",
        "1.0.0",
        [
            {"id": "intro", "body": intro},
            {"id": "shell", "when": '"Bash" in tools', "body": "You may run shell commands."},
            {"id": "os", "stability": "session", "body": "The OS is {{ env.os }}."},
        ],
    )


SNAPSHOT = Path("__snapshots__", "test_prompt", "test_greeting.md")


@pytest.mark.slow
def test_snapshot_is_created_kept_and_then_fails_with_a_readable_diff(
    pytester: pytest.Pytester,
) -> None:
    write_greeter(pytester.path, "You are a friendly greeter.\nGreet everyone by name.")
    pytester.makepyfile(test_prompt=USER_TEST)

    created = pytester.runpytest("--snapshot-update")
    created.assert_outcomes(passed=1)
    assert (pytester.path / SNAPSHOT).read_text(encoding="utf-8") == (
        "You are a friendly greeter.\nGreet everyone by name.\n\n"
        "You may run shell commands.\n\nThe OS is Linux.\n"
    )
    pytester.runpytest().assert_outcomes(passed=1)

    write_greeter(pytester.path, "You are a grumpy greeter.\nGreet everyone by name.")
    changed = pytester.runpytest()
    changed.assert_outcomes(failed=1)
    out = changed.stdout.str()
    assert "- You are a friendly greeter." in out
    assert "+ You are a grumpy greeter." in out
    assert "Greet everyone by name." in out  # context around the change
    assert (pytester.path / SNAPSHOT).read_text(encoding="utf-8").startswith("You are a friendly")


@pytest.mark.slow
def test_an_assembled_prompt_is_written_part_by_part(pytester: pytest.Pytester) -> None:
    write_greeter(pytester.path, "Hello.")
    pytester.makepyfile(
        test_prompt=USER_TEST.replace("prompt.text == prompt_snapshot", "prompt == prompt_snapshot")
    )
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    assert (pytester.path / SNAPSHOT).read_text(encoding="utf-8") == dedent(
        """
        <!-- greeter 1.0.0, agent main -->

        <!-- part intro: always -->
        Hello.

        <!-- part shell: when '"Bash" in tools' is true -->
        You may run shell commands.

        <!-- part os: always -->
        The OS is Linux.
        """
    )


@pytest.mark.slow
def test_fixture_without_syrupy_says_what_to_install(pytester: pytest.Pytester) -> None:
    write_greeter(pytester.path, "Hello.")
    pytester.makepyfile(test_prompt=USER_TEST)
    result = pytester.runpytest("-p", "no:syrupy")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*prompt_snapshot fixture needs syrupy*pip install 'agent-prompt-catalog[[]pytest[]]'*"]
    )
    assert "During handling" not in result.stdout.str()  # one message, no chained lookup error


def test_render_snapshot(tmp_path: Path) -> None:
    assert render_snapshot("a\nb") == "a\nb\n"
    assert render_snapshot("ends with newline\n") == "ends with newline\n\n"
    reminders = (Reminder("r-one", "<r>One.</r>", 10), Reminder("r-two", "Two.", 20))
    assert render_snapshot(reminders) == (
        "<!-- reminder r-one -->\n<r>One.</r>\n\n<!-- reminder r-two -->\nTwo.\n"
    )
    assert render_snapshot(()) == "<!-- no reminders -->\n"
    prompt = load_dir(write_greeter(tmp_path, "Hi.")).assemble({"tools": ["Bash"]})
    with pytest.raises(TypeError, match="not dict"):
        render_snapshot(prompt.to_dict())


@pytest.mark.slow
def test_importing_catalog_imports_neither_pytest_nor_syrupy() -> None:
    code = (
        "import sys, catalog\n"
        "catalog.load('coding-agent').assemble({'tools': ['Bash']})\n"
        "print(sorted(m for m in ('pytest', '_pytest', 'syrupy', 'tiktoken') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_readme_example_runs(pytester: pytest.Pytester) -> None:
    """docs/testing.md's test file works as shown, and fails with the diff it shows."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "testing.md").read_text(encoding="utf-8")
    example = page.split("A complete test file, `tests/test_prompts.py`:")[1]
    code = example.split("```python\n")[1].split("```")[0]
    shown_diff = example.split("```\n>")[1].split("```")[0]
    diff_lines = [line[1:].strip() for line in shown_diff.splitlines() if "Operating" in line]
    assert diff_lines == ["- - Operating system: Linux", "+ - Operating system: Darwin"]
    pytester.makepyfile(test_prompts=code)
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=3)
    folder = pytester.path / "__snapshots__" / "test_prompts"
    assert sorted(p.name for p in folder.iterdir()) == [
        "test_explore_sub_agent.md",
        "test_main_prompt[bash-only].md",
        "test_main_prompt[with-claude-md].md",
    ]
    pytester.runpytest().assert_outcomes(passed=3)

    pytester.makepyfile(test_prompts=code.replace('"os": "Linux"', '"os": "Darwin"'))
    changed = pytester.runpytest()
    changed.assert_outcomes(passed=1, failed=2)  # bash-only, main agent and explore
    changed.stdout.fnmatch_lines([f"E  * {line}" for line in diff_lines], consecutive=True)
