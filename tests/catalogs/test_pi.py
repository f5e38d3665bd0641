"""The bundled pi catalog: each documented behaviour, on real temporary folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import catalog
import catalog.cli
from catalog import Catalog
from tests._support.gathering import gather_in, skill, write

ALL = ["read", "bash", "edit", "write"]
ALWAYS = ["- Keep your answers short.", "- Show file paths clearly when you work with files."]


@pytest.fixture(scope="module")
def pi() -> Catalog:
    return catalog.load("pi", "==1.0.0")


@pytest.fixture
def project(tmp_path: Path) -> dict[str, Path]:
    """home/.pi/agent/{AGENTS.md, skills/}, work/{CLAUDE.md, AGENTS.md}, work/app/CLAUDE.md."""
    home, work = tmp_path / "home", tmp_path / "work"
    write(home / ".pi" / "agent" / "AGENTS.md", "global rules\n")
    write(work / "AGENTS.md", "work agents\n")
    write(work / "CLAUDE.md", "work claude (AGENTS.md wins here)\n")
    write(work / "app" / "CLAUDE.md", "app claude\n")
    skill(home / ".pi" / "agent" / "skills" / "deploy", "name: deploy\ndescription: Ship <it>")
    skill(
        work / "app" / ".pi" / "skills" / "secret",
        "name: secret\ndescription: x\ndisable-model-invocation: true",
    )
    return {"home": home, "work": work, "cwd": work / "app", "root": tmp_path}


def assemble(pi: Catalog, project: dict[str, Path], **base: Any) -> str:
    base.setdefault("tools", ALL)
    ctx = gather_in(pi, project["cwd"], home=project["home"], root=project["root"], base=base)
    return pi.assemble(ctx).text


def guidelines(text: str) -> list[str]:
    block = text.split("Guidelines:\n", 1)[1].split("\n\n", 1)[0]
    return block.splitlines()


def test_five_sections_in_order(pi: Catalog, project: dict[str, Path]) -> None:
    write(project["cwd"] / ".pi" / "APPEND_SYSTEM.md", "APPENDED TEXT")
    text = assemble(pi, project)
    markers = [
        "You are an expert coding assistant",
        "Available tools:",
        "Guidelines:",
        "pi's own documentation",
        "APPENDED TEXT",
        "# Project Context",
        "<available_skills>",
        "Current date and time: Friday 2025-01-31 14:05 CET",
        f"Current working directory: {project['cwd'].resolve()}",
    ]
    positions = [text.index(marker) for marker in markers]
    assert positions == sorted(positions)
    assert text.endswith(f"Current working directory: {project['cwd'].resolve()}")


def test_project_context_walks_down_from_the_root_with_agents_md_winning(
    pi: Catalog, project: dict[str, Path]
) -> None:
    text = assemble(pi, project)
    context = text.split("# Project Context\n\n", 1)[1].split("\n\nThe skills below", 1)[0]
    home, work = project["home"].resolve(), project["work"].resolve()
    assert context == (
        "Instructions and guidelines for this project:\n\n"
        f"## {home}/.pi/agent/AGENTS.md\n\nglobal rules\n\n"
        f"## {work}/AGENTS.md\n\nwork agents\n\n"
        f"## {work}/app/CLAUDE.md\n\napp claude"
    )
    assert "work claude" not in text


def test_tools_list_snippet_then_builtin_description_then_name(pi: Catalog, tmp_path: Path) -> None:
    ctx = gather_in(
        pi,
        tmp_path,
        base={
            "tools": ["read", "bash", "deploy", "lint"],
            "tool_info": {
                "read": {"snippet": "Read a file,\n   with line\nnumbers"},
                "deploy": {"snippet": "Ship the\nbuild"},
                "lint": {"description": "only a description"},
            },
        },
    )
    tools = pi.assemble(ctx).text.split("Available tools:\n", 1)[1].split("\n\n", 1)[0]
    assert tools.splitlines() == [
        "- read: Read a file, with line numbers",
        "- bash: Run a bash command (ls, grep, find and the like)",
        "- deploy: Ship the build",
        "- lint: lint",
    ]


def test_no_tools_says_none(pi: Catalog, tmp_path: Path) -> None:
    text = pi.assemble(gather_in(pi, tmp_path)).text
    assert "Available tools:\n(none)\n" in text
    assert guidelines(text) == ALWAYS


BASH_ALONE = "- Use bash for file operations such as ls, rg and find."
PREFER = (
    "- Prefer the grep, find and ls tools to bash for exploring files: they are faster "
    "and respect .gitignore."
)
READ_EDIT = "- Read a file with read before you edit it; never use cat or sed for that."
EDIT = "- Use edit for precise changes: the old text must match exactly."
WRITE = "- Use write only for new files or complete rewrites."
SUMMARY = "- To summarise what you did, write plain text; do not use cat or bash to show it."


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        (["bash"], [BASH_ALONE]),
        (["bash", "grep"], [PREFER]),
        (["bash", "find"], [PREFER]),
        (["bash", "ls", "read"], [PREFER]),
        (["grep"], []),
        (["read", "edit"], [READ_EDIT, EDIT, SUMMARY]),
        (["edit"], [EDIT, SUMMARY]),
        (["write"], [WRITE, SUMMARY]),
        (["read"], []),
        (ALL, [BASH_ALONE, READ_EDIT, EDIT, WRITE, SUMMARY]),
        ([], []),
    ],
)
def test_guideline_table(
    pi: Catalog, tmp_path: Path, tools: list[str], expected: list[str]
) -> None:
    text = pi.assemble(gather_in(pi, tmp_path, base={"tools": tools})).text
    assert guidelines(text) == expected + ALWAYS


def test_extension_guidelines_are_appended_without_repeats(pi: Catalog, tmp_path: Path) -> None:
    ctx = gather_in(
        pi,
        tmp_path,
        base={
            "tools": ["bash", "deploy", "lint"],
            "guidelines": [
                "Ask before deploying.",
                "Keep your answers short.",
                "Ask before deploying.",
            ],
            "tool_info": {
                "deploy": {"guidelines": ["Deploy from main only.", "Ask before deploying."]},
                "lint": {"guidelines": ["Run lint before you commit."]},
                "inactive": {"guidelines": ["Never shown."]},
            },
        },
    )
    assert guidelines(pi.assemble(ctx).text) == [
        BASH_ALONE,
        *ALWAYS,
        "- Ask before deploying.",
        "- Deploy from main only.",
        "- Run lint before you commit.",
    ]


def test_system_md_replaces_only_the_base(pi: Catalog, project: dict[str, Path]) -> None:
    write(project["home"] / ".pi" / "agent" / "SYSTEM.md", "home SYSTEM.md (not used)")
    write(project["work"] / "app" / ".pi" / "SYSTEM.md", "You are Custom.")
    write(project["home"] / ".pi" / "agent" / "APPEND_SYSTEM.md", "Also this.")
    text = assemble(pi, project)
    assert text.startswith("You are Custom.\n\nAlso this.\n\n# Project Context")
    for gone in ("expert coding assistant", "Available tools:", "Guidelines:", "documentation"):
        assert gone not in text
    for kept in ("<available_skills>", "Current date and time:", "Current working directory:"):
        assert kept in text
    assert "home SYSTEM.md" not in text


def test_skills_only_with_read_and_without_disabled_ones(
    pi: Catalog, project: dict[str, Path]
) -> None:
    text = assemble(pi, project)
    skills = text.split("<available_skills>\n", 1)[1].split("</available_skills>", 1)[0]
    location = project["home"].resolve() / ".pi" / "agent" / "skills" / "deploy" / "SKILL.md"
    assert skills == (
        "  <skill>\n    <name>deploy</name>\n    <description>Ship &lt;it&gt;</description>\n"
        f"    <location>{location}</location>\n  </skill>\n"
    )
    assert "<available_skills>" not in assemble(pi, project, tools=["bash", "edit"])


def test_gathering_from_the_command_line(
    project: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = catalog.cli.main(
        [
            "assemble",
            "pi@1.0.0",
            "--from-dir",
            str(project["cwd"]),
            "--home",
            str(project["home"]),
            "--root",
            str(project["root"]),
            "--no-git",
            "--tools",
            "read",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "## " in out and "app claude" in out and "<name>deploy</name>" in out
