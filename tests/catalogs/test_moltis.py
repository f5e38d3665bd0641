"""The bundled moltis catalog: each documented behaviour, on real temporary folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import Catalog
from tests._support.gathering import gather_in, skill, write

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}
LONG = "Runs a shell command " + "and waits for it " * 20
TOOLS: dict[str, Any] = {
    "exec": {"description": LONG, "parameters": SCHEMA},
    "memory_search": {"description": "Search\nthe memory"},
}


@pytest.fixture(scope="module")
def moltis() -> Catalog:
    return catalog.load("moltis", "==1.0.0")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    data = tmp_path / "home" / ".moltis"
    write(
        data / "IDENTITY.md",
        "---\nname: Molt\nemoji: \U0001f980\ncreature: crab\nvibe: calm and dry\n---\n",
    )
    write(data / "SOUL.md", "Be a good crab.\n")
    write(data / "USER.md", "---\nname: Ada\n---\n")
    write(
        data / "AGENTS.md", "<!-- moltis template: fill this in -->\n\nAlways answer in French.\n"
    )
    write(data / "TOOLS.md", "Prefer rg.\n")
    skill(data / "skills" / "commit", "name: commit\ndescription: Create git commits")
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "ws" / "CLAUDE.md", "workspace claude\n")
    write(tmp_path / "ws" / "app" / "AGENTS.md", "app agents\n")
    write(tmp_path / "ws" / "app" / "CLAUDE.local.md", "app local\n")
    write(tmp_path / "ws" / "app" / ".claude" / "rules" / "style.md", "app style rule\n")
    write(tmp_path / "ws" / "app" / "CLAUDE.md", "app claude\n")
    return tmp_path / "ws" / "app"


def run(moltis: Catalog, cwd: Path, home: Path, agent: str = "main", **base: Any) -> str:
    ctx = gather_in(
        moltis, cwd, home=home, root=cwd.parent, model="gpt-5", provider="openai", base=base
    )
    return moltis.assemble(ctx, agent=agent).text


def test_the_twelve_components_in_order(moltis: Catalog, project: Path, home: Path) -> None:
    text = run(
        moltis,
        project,
        home,
        tools=["exec", "memory_search"],
        tool_info=TOOLS,
        variables={"native_tools": False},
    )
    markers = [
        "You are a helpful assistant, with tools",
        "Your name is Molt",
        "Be a good crab.",
        "The user's name is Ada.",
        "## Project Context",
        "## Runtime",
        "## Available Skills",
        "## Workspace Files",
        "## Long-Term Memory",
        "## Available Tools",
        "## How to Call a Tool",
        "## Guidelines",
    ]
    positions = [text.index(marker) for marker in markers]
    assert positions == sorted(positions)


def test_every_component_is_optional(moltis: Catalog) -> None:
    text = moltis.assemble({}).text
    assert text.startswith(
        "You are a helpful assistant. Answer questions clearly and concisely.\n\n# Who you are"
    )
    assert text.endswith(
        "## Guidelines\n\n- Be clear and brief; go into detail when the question needs it."
    )
    for absent in (
        "Your name",
        "user's name",
        "Project Context",
        "Runtime",
        "Skills",
        "Workspace",
        "Long-Term Memory",
        "Available Tools",
        "Call a Tool",
    ):
        assert absent not in text


@pytest.mark.parametrize(
    ("front", "lines"),
    [
        ("name: Molt\nemoji: \U0001f980", ["Your name is Molt \U0001f980."]),
        ("name: Molt", ["Your name is Molt."]),
        ("creature: crab\nvibe: dry", ["You are a crab.", "Your vibe: dry."]),
        ("emoji: \U0001f980", []),
    ],
)
def test_identity_lines(moltis: Catalog, tmp_path: Path, front: str, lines: list[str]) -> None:
    write(tmp_path / ".moltis" / "IDENTITY.md", f"---\n{front}\n---\n")
    text = run(moltis, tmp_path, tmp_path)
    rest = text.split("\n\n", 1)[1]
    identity = rest.split("\n\n# Who you are", 1)[0] if lines else ""
    assert identity.splitlines() == lines


@pytest.mark.parametrize("soul", [None, "", "  \n\n  "])
def test_the_built_in_soul_when_soul_md_is_absent_or_empty(
    moltis: Catalog, tmp_path: Path, soul: str | None
) -> None:
    if soul is not None:
        write(tmp_path / ".moltis" / "SOUL.md", soul)
    text = run(moltis, tmp_path, tmp_path)
    assert "# Who you are\n\nYou are not a form letter." in text
    assert moltis.part("default-soul").body.strip() in text


def test_soul_md_replaces_the_built_in_soul(moltis: Catalog, home: Path, tmp_path: Path) -> None:
    text = run(moltis, tmp_path, home)
    assert "Be a good crab." in text and "# Who you are" not in text


def test_user_name(moltis: Catalog, home: Path, tmp_path: Path) -> None:
    assert "\n\nThe user's name is Ada.\n\n" in run(moltis, tmp_path, home)


def test_project_context_outermost_first(moltis: Catalog, project: Path, home: Path) -> None:
    text = run(moltis, project, home)
    section = text.split("## Project Context\n\n", 1)[1].split("\n\n## ", 1)[0]
    ws = project.parent.resolve()
    assert section == (
        f"### {ws}/CLAUDE.md\n\nworkspace claude\n\n"
        f"### {ws}/app/CLAUDE.md\n\napp claude\n\n"
        f"### {ws}/app/CLAUDE.local.md\n\napp local\n\n"
        f"### {ws}/app/.claude/rules/style.md\n\napp style rule\n\n"
        f"### {ws}/app/AGENTS.md\n\napp agents"
    )


def test_runtime_key_value_lines(moltis: Catalog, tmp_path: Path, home: Path) -> None:
    text = run(
        moltis,
        tmp_path,
        home,
        tools=["exec"],
        session={"id": "main"},
        env={"hostname": "devbox", "os": "Darwin", "arch": "aarch64"},
        variables={"sandbox": ["enabled=true", "backend=docker"], "sudo_non_interactive": "true"},
    )
    runtime = text.split("## Runtime\n\n", 1)[1].split("\n\n", 1)[0]
    assert runtime.splitlines() == [
        "Host: host=devbox | os=darwin | arch=aarch64 | shell=zsh | provider=openai | "
        "model=gpt-5 | session=main | sudo_non_interactive=true | timezone=CET",
        "Sandbox(exec): enabled=true | backend=docker",
    ]
    assert "Execution routing:" in text


def test_runtime_lists_only_the_known_facts(moltis: Catalog) -> None:
    text = moltis.assemble({"env": {"os": "Linux", "timezone": "UTC"}}).text
    assert "## Runtime\n\nHost: os=linux | timezone=UTC\n\n" in text + "\n\n"
    assert "Execution routing" not in text


def test_skills_block(moltis: Catalog, home: Path, tmp_path: Path) -> None:
    text = run(moltis, tmp_path, home)
    path = home.resolve() / ".moltis" / "skills" / "commit"
    assert (
        f'## Available Skills\n<available_skills>\n<skill name="commit" source="skill" '
        f'path="{path}">\nCreate git commits\n</skill>\n</available_skills>'
    ) in text


def test_workspace_files_with_leading_html_comments_stripped(
    moltis: Catalog, home: Path, tmp_path: Path
) -> None:
    text = run(moltis, tmp_path, home)
    assert (
        "## Workspace Files\n\n### AGENTS.md\n\nAlways answer in French.\n\n"
        "### TOOLS.md\n\nPrefer rg."
    ) in text
    assert "moltis template" not in text


def test_a_blank_instruction_file_is_left_out(moltis: Catalog, project: Path, home: Path) -> None:
    write(project / "CLAUDE.md", "\n")
    write(home / ".moltis" / "TOOLS.md", "<!-- only a comment -->\n")
    text = run(moltis, project, home)
    assert f"{project.resolve()}/CLAUDE.md" not in text
    assert f"### {project.resolve()}/AGENTS.md\n\napp agents" in text
    assert "### TOOLS.md" not in text and "### AGENTS.md\n\nAlways answer in French." in text


def test_memory_hint_only_with_a_memory_tool(moltis: Catalog, tmp_path: Path) -> None:
    assert "## Long-Term Memory" in run(moltis, tmp_path, tmp_path, tools=["memory_save"])
    assert "## Long-Term Memory" not in run(moltis, tmp_path, tmp_path, tools=["exec"])


def test_native_tools_are_listed_compactly_cut_at_160(moltis: Catalog, tmp_path: Path) -> None:
    text = run(moltis, tmp_path, tmp_path, tools=["exec", "memory_search", "bare"], tool_info=TOOLS)
    listing = text.split("## Available Tools\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    description = " ".join(LONG.split())
    assert listing == [
        f"- `exec`: {description[:159]}…",
        "- `memory_search`: Search the memory",
        "- `bare`",
    ]
    assert len(listing[0]) == len("- `exec`: ") + 160
    assert "## How to Call a Tool" not in text and '"properties"' not in text


def test_fallback_mode_inlines_json_schemas_and_the_call_format(
    moltis: Catalog, tmp_path: Path
) -> None:
    text = run(
        moltis,
        tmp_path,
        tmp_path,
        tools=["exec", "bare"],
        tool_info=TOOLS,
        variables={"native_tools": False},
    )
    tools = text.split("## Available Tools\n\n", 1)[1].split("\n\n## How to Call a Tool", 1)[0]
    assert tools == (
        f"### exec\n\n{LONG}\n\nParameters:\n```json\n"
        f"{json.dumps(SCHEMA, sort_keys=True)}\n```\n\n"
        "### bare\n\nParameters:\n```json\n{}\n```"
    )
    assert "```tool_call\n" in text


def test_the_minimal_entry_has_no_tools(moltis: Catalog, project: Path, home: Path) -> None:
    text = run(
        moltis, project, home, agent="minimal", tools=["exec", "memory_search"], tool_info=TOOLS
    )
    assert text.startswith("You are a helpful assistant. Answer questions clearly")
    for kept in (
        "Your name is Molt",
        "Be a good crab.",
        "The user's name is Ada.",
        "## Project Context",
        "## Runtime",
        "## Guidelines",
    ):
        assert kept in text
    for gone in (
        "with tools",
        "Available Skills",
        "Workspace Files",
        "Long-Term Memory",
        "Available Tools",
        "Execution routing",
        "`exec`",
    ):
        assert gone not in text
