"""moltis 1.1.0 against moltis's "System Prompt Architecture" page, behaviour by behaviour.

Each test builds its own folders (a home with ~/.moltis, a project tree);
docs/catalogs/moltis.md maps each behaviour of the page to these tests.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import Catalog
from tests._support.gathering import gather_in, write

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}
LONG = "Runs a shell command " + "and waits for it " * 20
TOOLS: dict[str, Any] = {
    "exec": {"description": LONG, "parameters": SCHEMA},
    "memory_search": {"description": "Search\nthe memory"},
}


@functools.cache
def moltis() -> Catalog:
    return catalog.load("moltis", "==1.1.0")


HOME_FILES = {
    "IDENTITY.md": "---\nname: Molt\nemoji: \U0001f980\ncreature: crab\nvibe: dry\n---\n",
    "SOUL.md": "Be a good crab.\n",
    "USER.md": "---\nname: Ada\ntimezone: Europe/Paris\nlocation: Lyon, France\n---\n",
    "AGENTS.md": "<!-- template: fill this in -->\n\nAlways answer in French.\n",
    "TOOLS.md": "Prefer rg.\n",
    "skills/commit/SKILL.md": "---\nname: commit\ndescription: Create git commits\n---\nDo it.\n",
}
# A workspace folder holding the project folder "app".
PROJECT_FILES = {
    "CLAUDE.md": "workspace claude\n",
    "app/CLAUDE.md": "app claude\n",
    "app/CLAUDE.local.md": "app local\n",
    "app/.claude/rules/b.md": "rule b\n",
    "app/.claude/rules/a.md": "rule a\n",
    "app/AGENTS.md": "app agents\n",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    for name, text in HOME_FILES.items():
        write(tmp_path / "home" / ".moltis" / name, text)
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in PROJECT_FILES.items():
        write(tmp_path / "ws" / name, text)
    return tmp_path / "ws" / "app"


def run(cwd: Path, home: Path, agent: str = "main", **base: Any) -> str:
    ctx = gather_in(
        moltis(), cwd, home=home, root=cwd.parent, model="gpt-5", provider="openai", base=base
    )
    return moltis().assemble(ctx, agent=agent).text


def section(text: str, heading: str) -> str:
    return text.split(f"{heading}\n\n", 1)[1].split("\n\n## ", 1)[0]


MARKERS = {
    "introduction": "You are a helpful assistant, with tools",
    "identity": "Your name is Molt \U0001f980.",
    "soul": "Be a good crab.",
    "user": "The user's name is Ada.",
    "project context": "## Project Context",
    "runtime": "## Runtime",
    "skills": "## Available Skills",
    "workspace files": "## Workspace Files",
    "memory hint": "## Long-Term Memory",
    "tool schemas": "## Available Tools",
    "tool-calling format": "## How to Call a Tool",
    "guidelines": "## Guidelines",
}


def test_the_twelve_components_in_the_pages_order(project: Path, home: Path) -> None:
    text = run(
        project,
        home,
        tools=["exec", "memory_search"],
        tool_info=TOOLS,
        variables={"native_tools": False},
    )
    positions = [text.index(marker) for marker in MARKERS.values()]
    assert positions == sorted(positions)


# ---------------------------------------------------------------- components


def test_base_introduction_with_and_without_tools(tmp_path: Path) -> None:
    assert run(tmp_path, tmp_path, tools=["exec"]).startswith(MARKERS["introduction"])
    plain = "You are a helpful assistant. Answer questions clearly and concisely."
    assert run(tmp_path, tmp_path).startswith(plain)


@pytest.mark.parametrize(
    ("front", "lines"),
    [
        ("name: Molt\nemoji: \U0001f980", ["Your name is Molt \U0001f980."]),
        ("name: Molt", ["Your name is Molt."]),
        ("creature: crab\nvibe: dry", ["You are a crab.", "Your vibe: dry."]),
    ],
)
def test_identity_lines(tmp_path: Path, front: str, lines: list[str]) -> None:
    write(tmp_path / ".moltis" / "IDENTITY.md", f"---\n{front}\n---\n")
    text = run(tmp_path, tmp_path)
    assert text.split("\n\n")[1].splitlines() == lines


def test_the_soul_comes_with_an_identity(tmp_path: Path) -> None:
    write(tmp_path / ".moltis" / "SOUL.md", "Be a good crab.\n")
    assert "Be a good crab." not in run(tmp_path, tmp_path)
    write(tmp_path / ".moltis" / "IDENTITY.md", "---\nname: Molt\n---\n")
    assert "Your name is Molt.\n\nBe a good crab." in run(tmp_path, tmp_path)


@pytest.mark.parametrize("soul", [None, "", "  \n\n  "])
def test_the_built_in_soul_when_soul_md_is_absent_or_empty(
    tmp_path: Path, soul: str | None
) -> None:
    write(tmp_path / ".moltis" / "IDENTITY.md", "---\nname: Molt\n---\n")
    if soul is not None:
        write(tmp_path / ".moltis" / "SOUL.md", soul)
    text = run(tmp_path, tmp_path)
    assert "Your name is Molt.\n\n" + moltis().part("default-soul").body.strip() in text
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[:5] == [  # the built-in soul's headings, as the page gives them
        "# SOUL.md - Who You Are",
        "## Core Truths",
        "## Boundaries",
        "## Vibe",
        "## Continuity",
    ]


def test_user_name_from_user_md(home: Path, tmp_path: Path) -> None:
    assert "\n\nThe user's name is Ada.\n\n" in run(tmp_path, home)


def test_project_context_walks_up_root_first(project: Path, home: Path) -> None:
    ws = project.parent.resolve()
    assert section(run(project, home), "## Project Context") == (
        f"### {ws}/CLAUDE.md\n\nworkspace claude\n\n"
        f"### {ws}/app/CLAUDE.md\n\napp claude\n\n"
        f"### {ws}/app/CLAUDE.local.md\n\napp local\n\n"
        f"### {ws}/app/.claude/rules/a.md\n\nrule a\n\n"
        f"### {ws}/app/.claude/rules/b.md\n\nrule b\n\n"
        f"### {ws}/app/AGENTS.md\n\napp agents"
    )


def test_skills_as_an_xml_block(home: Path, tmp_path: Path) -> None:
    path = home.resolve() / ".moltis" / "skills" / "commit"
    assert (
        f'## Available Skills\n<available_skills>\n<skill name="commit" source="skill" '
        f'path="{path}">\nCreate git commits\n</skill>\n</available_skills>'
    ) in run(tmp_path, home)


def test_workspace_files_each_under_its_heading_without_leading_comments(
    home: Path, tmp_path: Path
) -> None:
    assert section(run(tmp_path, home), "## Workspace Files") == (
        "### AGENTS.md\n\nAlways answer in French.\n\n### TOOLS.md\n\nPrefer rg."
    )


def test_no_heading_when_every_file_of_a_section_is_blank(tmp_path: Path) -> None:
    """Each piece is loaded only when relevant: blank project files, or a workspace
    file that is only a leading HTML comment, bring no empty "##" heading."""
    home, work = tmp_path / "home", tmp_path / "ws" / "app"
    write(home / ".moltis" / "AGENTS.md", "<!-- template: fill this in -->\n")
    write(home / ".moltis" / "TOOLS.md", "  \n")
    write(tmp_path / "ws" / "CLAUDE.md", "\n\n")
    write(work / "AGENTS.md", "   \n")
    prompt = run(work, home, tools=["exec"])
    assert "## Project Context" not in prompt
    assert "## Workspace Files" not in prompt
    write(work / "CLAUDE.local.md", "app local\n")
    write(home / ".moltis" / "TOOLS.md", "Prefer rg.\n")
    prompt = run(work, home, tools=["exec"])
    assert section(prompt, "## Project Context") == (
        f"### {work.resolve()}/CLAUDE.local.md\n\napp local"
    )
    assert section(prompt, "## Workspace Files") == "### TOOLS.md\n\nPrefer rg."


def test_memory_hint_only_when_a_memory_tool_is_registered(tmp_path: Path) -> None:
    assert "## Long-Term Memory" in run(tmp_path, tmp_path, tools=["memory_save"])
    assert "## Long-Term Memory" not in run(tmp_path, tmp_path, tools=["exec"])


def test_native_tools_one_line_each_cut_at_160(tmp_path: Path) -> None:
    text = run(tmp_path, tmp_path, tools=["exec", "memory_search"], tool_info=TOOLS)
    listing = section(text, "## Available Tools").splitlines()
    assert listing == [
        f"- `exec`: {' '.join(LONG.split())[:159]}…",
        "- `memory_search`: Search the memory",
    ]
    assert "## How to Call a Tool" not in text


def test_fallback_tools_full_json_then_the_call_format(tmp_path: Path) -> None:
    text = run(
        tmp_path, tmp_path, tools=["exec"], tool_info=TOOLS, variables={"native_tools": False}
    )
    assert f"```json\n{json.dumps(SCHEMA, sort_keys=True)}\n```" in text
    assert text.index("## Available Tools") < text.index("## How to Call a Tool")
    assert "```tool_call\n" in text


def test_guidelines_with_the_silent_reply_protocol(tmp_path: Path) -> None:
    guidelines = section(run(tmp_path, tmp_path, tools=["exec"]), "## Guidelines")
    assert "raw tool output" in guidelines and "Silent replies" in guidelines


# ------------------------------------------------------------------ runtime


def test_runtime_host_and_sandbox_lines_in_the_pages_order(tmp_path: Path, home: Path) -> None:
    text = run(
        tmp_path,
        home,
        tools=["exec"],
        session={"id": "main"},
        env={"hostname": "moltis-devbox", "os": "Darwin", "arch": "arm64"},
        variables={
            "sudo_non_interactive": "true",
            "browser_timezone": "America/New_York",
            "accept_language": "fr-FR,fr;q=0.9",
            "browser_location": "48.85,2.35",
            "sandbox": {
                "network": "disabled",
                "image": "moltis-sandbox:abc123",
                "enabled": True,
                "workspace_mount": "ro",
                "backend": "docker",
                "scope": "session",
                "mode": "all",
            },
        },
    )
    host, sandbox = section(text, "## Runtime").split("\n\n")[0].splitlines()
    assert host == (
        "Host: host=moltis-devbox | os=macos | arch=aarch64 | shell=zsh | provider=openai | "
        "model=gpt-5 | session=main | sudo_non_interactive=true | timezone=America/New_York | "
        "accept_language=fr-FR,fr;q=0.9 | location=48.85,2.35"
    )
    assert sandbox == (
        "Sandbox(exec): enabled=true | mode=all | backend=docker | scope=session | "
        "image=moltis-sandbox:abc123 | workspace_mount=ro | network=disabled"
    )
    assert "\n\nExecution routing:" in section(text, "## Runtime")


def test_timezone_and_location_fall_back_to_user_md_then_the_host(
    tmp_path: Path, home: Path
) -> None:
    host = section(run(tmp_path, home), "## Runtime")
    assert "| timezone=Europe/Paris | location=Lyon, France" in host
    bare = moltis().assemble({"env": {"timezone": "UTC"}}).text
    assert "## Runtime\n\nHost: timezone=UTC" in bare and "location=" not in bare


def test_runtime_lists_only_known_facts_and_no_routing_without_tools() -> None:
    text = moltis().assemble({"env": {"os": "Linux", "arch": "AMD64"}}).text
    assert "## Runtime\n\nHost: os=linux | arch=x86_64\n\n" in text
    assert "Execution routing" not in text and "Sandbox(exec)" not in text


# ------------------------------------------------------------- entry points


def test_full_entry_has_identity_soul_user_skills_runtime_tools(project: Path, home: Path) -> None:
    text = run(project, home, tools=["exec"], tool_info=TOOLS)
    for marker in ("identity", "soul", "user", "skills", "runtime", "tool schemas"):
        assert MARKERS[marker] in text, marker


def test_simple_entry_is_tools_and_optional_project_context(project: Path, home: Path) -> None:
    text = run(project, home, agent="simple", tools=["exec", "memory_search"], tool_info=TOOLS)
    kept = ["introduction", "project context", "memory hint", "tool schemas", "guidelines"]
    positions = [text.index(MARKERS[m]) for m in kept]
    assert positions == sorted(positions)
    for gone in ("identity", "soul", "user", "runtime", "skills", "workspace files"):
        assert MARKERS[gone] not in text, gone
    without_project = run(home, home, agent="simple", tools=["exec"])
    assert "## Project Context" not in without_project


def test_minimal_entry_has_no_tools_and_no_identity(project: Path, home: Path) -> None:
    text = run(project, home, agent="minimal", tools=["exec", "memory_search"], tool_info=TOOLS)
    assert text.startswith("You are a helpful assistant. Answer questions clearly")
    for kept in ("user", "project context", "runtime", "guidelines"):
        assert MARKERS[kept] in text, kept
    for gone in ("identity", "soul", "skills", "workspace files", "memory hint", "tool schemas"):
        assert MARKERS[gone] not in text, gone
    assert "`exec`" not in text and "Execution routing" not in text
    assert moltis().part("default-soul").body.strip() not in text


def test_minimal_entry_without_context_is_about_200_characters() -> None:
    text = moltis().assemble({}, agent="minimal").text
    assert 100 <= len(text) <= 300, len(text)
