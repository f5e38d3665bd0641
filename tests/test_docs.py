"""The README and the pages of docs/: their examples run as written (the rules are in
tests/_support/doc_pages.py), their links resolve, and they list what the code has."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import catalog
from catalog.lang.functions import FUNCTIONS
from tests._support.doc_pages import PAGES, ROOT, SRC, blocks, blocks_in, run_page
from tests.conftest import write_catalog


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_examples_of_the_page_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run_page(page, tmp_path, monkeypatch)
    runnable = [b for b in blocks(page) if b.lang in ("python", "sh") and b.mark != "not run"]
    shown = [b for b in blocks(page) if b.mark == "output of"]
    assert ran == len([b for b in runnable if b.mark not in ("file", "output of")]) + len(shown)


def test_every_page_exists_and_the_readme_links_each() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = {p.name for p in (ROOT / "docs").glob("*.md")}
    expected = {
        "format.md",
        "expressions.md",
        "cli.md",
        "gathering.md",
        "diff-and-lock.md",
        "importing.md",
        "testing.md",
        "serving.md",
    }
    assert expected <= names
    for name in sorted(names):
        assert f"(docs/{name})" in readme, f"README does not link docs/{name}"


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_bytes()) <= 12 * 1024


def test_markers_are_recognised_and_unknown_blocks_are_not_run(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- not run: needs the network -->\n```sh\nexit 3\n```\n"
        "<!-- file: sub/t.txt -->\n```python\nhello\n```\n"
        "```text\nnot code\n```\n"
        "```sh\ntest -f sub/t.txt\nfalse   # exit 1\n```\n"
        "```python\nassert open('sub/t.txt').read() == 'hello\\n'\nx = 1\n```\n"
        "```python\nassert x == 1\n```\n",
        encoding="utf-8",
    )
    with pytest.MonkeyPatch.context() as patch:
        assert run_page(page, tmp_path, patch) == 3


def test_a_failing_example_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```sh\ncatalog show no-such-catalog\n```\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch, pytest.raises(AssertionError, match="exited 2"):
        run_page(page, tmp_path, patch)
    page.write_text("```python\nassert 1 == 2\n```\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch, pytest.raises(AssertionError):
        run_page(page, tmp_path, patch)


def test_a_shown_output_is_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- output of: echo hello -->\n```text\nhello\n```\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        assert run_page(page, tmp_path, patch) == 1
    page.write_text("<!-- output of: echo hello -->\n```text\nhullo\n```\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch, pytest.raises(AssertionError, match="prints"):
        run_page(page, tmp_path, patch)


def test_the_function_list_is_the_function_table() -> None:
    grammar = (ROOT / "docs" / "expressions.md").read_text(encoding="utf-8")
    listed = re.search(r"- functions: `([^`]+)`", grammar)
    assert listed is not None
    assert listed.group(1).split() == list(FUNCTIONS)


def test_the_grammar_examples_compile_and_hold(make_catalog: Callable[..., Path]) -> None:
    grammar = (ROOT / "docs" / "expressions.md").read_text(encoding="utf-8")
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
    prompt = catalog.load_dir(folder).assemble(context)
    assert [part.id for part in prompt.parts] == ["e0", "e1", "e2", "e3", "e4"]
    assert catalog.load_dir(folder).assemble({"env": {"os": "Darwin", "shell": "zsh"}}).text == ""


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    after = readme.split("Install the test extra and run the tests:", 1)[1]
    command = blocks_in(after, "README.md")[0].text.strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert command in ci
    assert {"ruff check .", "ruff format --check .", "mypy", "lint-imports"} <= set(ci)
    setup = readme.split("Install and assemble the bundled default catalog", 1)[1]
    first = blocks_in(setup, "README.md")[0].text.strip()
    assert first.startswith("python -m pip install . && catalog assemble coding-agent")


def _pytest_probe(folder: Path, probe: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """Run the test module ``probe`` in ``folder`` beside a copy of the suite's conftest,
    in an environment with ``extra`` added (and no ``CATALOG_TEST_SHARED`` unless given)."""
    (folder / "test_probe.py").write_text(probe, encoding="utf-8")
    shutil.copy(ROOT / "tests" / "conftest.py", folder / "conftest.py")
    env = {k: v for k, v in os.environ.items() if k != "CATALOG_TEST_SHARED"}
    env.update(PYTHONPATH=f"{SRC}{os.pathsep}{ROOT}", **extra)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "test_probe.py"],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        check=False,
    )


def test_the_shared_data_can_be_anywhere(tmp_path: Path) -> None:
    """docs/testing.md: CATALOG_TEST_SHARED points the tests at another copy of ../shared."""
    elsewhere = tmp_path / "my copy"
    (elsewhere / "fixtures" / "claude-code-system-prompts").mkdir(parents=True)
    probe = (
        "def test_where(claude_code_releases):\n"
        f"    assert str(claude_code_releases).startswith({str(elsewhere)!r})\n"
    )
    found = _pytest_probe(tmp_path, probe, CATALOG_TEST_SHARED=str(elsewhere))
    assert found.returncode == 0 and "1 passed" in found.stdout, found.stdout
    missing = _pytest_probe(tmp_path, probe, CATALOG_TEST_SHARED=str(tmp_path / "nowhere"))
    assert "1 skipped" in missing.stdout and "set CATALOG_TEST_SHARED" in missing.stdout
    testing = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    assert "CATALOG_TEST_SHARED" in testing


def test_the_users_environment_does_not_reach_the_tests(tmp_path: Path) -> None:
    """A user's own ``coding-agent`` on ``CATALOG_PATH``, a server token and a metrics
    folder in the environment reach neither collection nor a test, nor does a variable one
    test sets reach the next; the shared-data variable is kept."""
    theirs = tmp_path / "theirs"
    write_catalog(theirs, "coding-agent", "9.0.0", [{"id": "mine", "body": "Not bundled."}])
    probe = (
        "import os\n"
        "import catalog\n"
        "def ours():\n"
        "    return sorted(n for n in os.environ if n.startswith('CATALOG_'))\n"
        "AT_IMPORT = ours()\n"
        "def test_collection():\n"
        "    assert AT_IMPORT == ['CATALOG_TEST_SHARED']\n"
        "def test_a_leak():\n"
        "    os.environ['CATALOG_TRACEBACK'] = '1'\n"
        "def test_after_the_leak():\n"
        "    assert ours() == ['CATALOG_TEST_SHARED']\n"
        "    assert 'PROMETHEUS_MULTIPROC_DIR' not in os.environ\n"
        "    assert str(catalog.load('coding-agent').version) != '9.0.0'\n"
    )
    ran = _pytest_probe(
        tmp_path,
        probe,
        CATALOG_PATH=str(theirs),
        CATALOG_SERVE_TOKEN="theirs-token",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "nowhere"),
        CATALOG_TEST_SHARED=str(tmp_path / "shared"),
    )
    assert ran.returncode == 0 and "3 passed" in ran.stdout, ran.stdout


def _synopsis() -> dict[str, str]:
    """Each command's entry in docs/cli.md's synopsis (its line and the indented ones after)."""
    from catalog.cli import COMMANDS

    block = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("```\n", 2)[1]
    entries: dict[str, str] = {}
    current = None
    for line in block.splitlines():
        word = line.split()[1] if line.startswith("catalog ") else None
        if word in COMMANDS:
            current = word
            entries[current] = entries.get(current, "") + line + "\n"
        elif line.startswith(" ") and current:
            entries[current] += line + "\n"
        else:
            current = None
    return entries


def test_the_cli_page_lists_every_command_and_every_option() -> None:
    import argparse

    from catalog.cli import build_parser

    synopsis = _synopsis()
    shared = {"--path", "--format", "--color", "-h", "--help"}  # told once, as global options
    for name, parser in build_parser().get_default("commands").items():
        assert name in synopsis, f"docs/cli.md has no synopsis for `catalog {name}`"
        actions = list(parser._actions)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    actions += sub._actions
        for action in actions:
            flags = set(action.option_strings) - shared
            if action.help == argparse.SUPPRESS:  # an option kept only to say it is gone
                continue
            if action.option_strings and flags == set(action.option_strings):
                found = [f for f in flags if re.search(re.escape(f) + r"(?![\w-])", synopsis[name])]
                assert found, f"docs/cli.md: `catalog {name}` does not list {sorted(flags)}"


# -- links: every relative link of the README and the pages resolves, anchors included

LINKED = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def _unfenced(text: str) -> list[str]:
    """The lines of ``text`` outside its fenced blocks."""
    parts = re.split(r"^```.*$", text, flags=re.MULTILINE)
    return [line for part in parts[::2] for line in part.splitlines()]


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown ``text``: lower case, every
    character but letters, digits, ``_``, ``-`` and spaces dropped, spaces as ``-``,
    a repeated one numbered (``-1``, ``-2``)."""
    found: set[str] = set()
    for line in _unfenced(text):
        heading = _HEADING.match(line)
        if heading is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).replace("`", "").lower()).replace(" ", "-")
        number, unique = 0, slug
        while unique in found:
            number += 1
            unique = f"{slug}-{number}"
        found.add(unique)
    return found


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` whose file or anchor is not there."""
    text = page.read_text(encoding="utf-8")
    broken = []
    prose = "\n".join(_CODE_SPAN.sub("", line) for line in _unfenced(text))
    for target in _LINK.findall(prose):  # a link in code is not one
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not a file of the project
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif (
            anchor
            and linked.suffix == ".md"
            and anchor not in anchors(linked.read_text(encoding="utf-8"))
        ):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    return broken


@pytest.mark.parametrize("page", LINKED, ids=[str(p.relative_to(ROOT)) for p in LINKED])
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_link_check_finds_a_broken_file_and_a_broken_anchor(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Title\n\n## `catalog serve`\n\n## Notes\n\n## Notes\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#catalog-serve) [ok](other.md#notes-1) [ok](#here)\n\n# Here\n\n"
        "[file](missing.md) [anchor](other.md#nowhere) `[code](missing.md)`\n"
        "```\n[block](missing.md)\n```\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading with anchor #nowhere",
    ]
