"""The bundled pi catalog 1.1.0 (the .sf fork), behaviour by behaviour of its source document.

Each test names the rows of the table in docs/catalogs/pi.md it checks (P1...).
Every tree is built here, in temporary folders: a home with ~/.sf/agent and
a project folder under a root of its own.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

import catalog
from catalog import Catalog
from tests._support.gathering import gather_in, skill, write

SATURDAY = datetime(2026, 3, 7, 8, 55, 5, tzinfo=ZoneInfo("America/Chicago"))
ALL = ["read", "bash", "edit", "write"]
CONCISE = "- Keep your answers short."
PATHS = "- Show file paths clearly when you work with files."
BASH_ALONE = "- Use bash for file operations such as ls, rg and find."
PREFER = (
    "- Prefer the grep, find and ls tools to bash for exploring files: they are faster "
    "and respect .gitignore."
)
READ_EDIT = "- Read a file with read before you edit it; use read for this, never cat or sed."
EDIT = "- Use edit for precise changes: the old text must match exactly."
WRITE = "- Use write only for new files or complete rewrites."
SUMMARY = (
    "- To summarise what you did, write plain text in your answer; do not use cat or bash "
    "to show it."
)


@pytest.fixture(scope="module")
def pi() -> Catalog:
    return catalog.load("pi", "==1.1.0")


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """home/.sf/agent/AGENTS.md; root/AGENTS.md; root/work/{AGENTS.md, CLAUDE.md};
    root/work/app/CLAUDE.md (the working directory)."""
    home, root = tmp_path / "home", tmp_path / "root"
    write(home / ".sf" / "agent" / "AGENTS.md", "global rules\n")
    write(root / "AGENTS.md", "root agents\n")
    write(root / "work" / "AGENTS.md", "work agents\n")
    write(root / "work" / "CLAUDE.md", "work claude, shadowed by AGENTS.md\n")
    write(root / "work" / "app" / "CLAUDE.md", "app claude\n")
    return {"home": home, "root": root, "cwd": root / "work" / "app"}


def gather(pi: Catalog, tree: dict[str, Path], **base: Any) -> Any:
    base.setdefault("tools", ALL)
    return gather_in(
        pi, tree["cwd"], home=tree["home"], root=tree["root"], clock=lambda: SATURDAY, base=base
    )


def text(pi: Catalog, tree: dict[str, Path], **base: Any) -> str:
    return pi.assemble(gather(pi, tree, **base)).text


def block(prompt: str, start: str) -> list[str]:
    """The lines of the paragraph that starts with ``start`` (up to the next blank line)."""
    return prompt.split(start, 1)[1].split("\n\n", 1)[0].splitlines()


def test_p1_p2_p46_five_sections_in_order_date_and_cwd_last(
    pi: Catalog, tree: dict[str, Path]
) -> None:
    write(tree["cwd"] / ".sf" / "APPEND_SYSTEM.md", "APPENDED")
    skill(tree["home"] / ".agents" / "skills" / "deploy", "name: deploy\ndescription: Ship it")
    prompt = text(pi, tree)
    markers = [
        "You are a purpose-driven software compiler",
        "Available tools:\n",
        "Besides these, the project may give you further tools",
        "Guidelines:\n",
        "Pi documentation (",
        "\n\nAPPENDED\n\n",
        "\n\n# Project Context\n\n",
        "<available_skills>",
        "\n\nCurrent date and time: ",
        "\nCurrent working directory: ",
    ]
    positions = [prompt.index(marker) for marker in markers]
    assert positions == sorted(positions)
    assert prompt.endswith(f"Current working directory: {tree['cwd'].resolve()}")


def test_p4_p5_p6_p7_tools_list_priority_and_snippet_normalised(
    pi: Catalog, tmp_path: Path
) -> None:
    ctx = gather_in(
        pi,
        tmp_path,
        base={
            "tools": ["deploy", "read", "ls", "lint"],
            "tool_info": {
                "deploy": {"snippet": "  Ship the\n  build\r\n now  "},
                "read": {"snippet": "Read with line numbers"},
                "lint": {"description": "a description is no snippet"},
            },
        },
    )
    prompt = pi.assemble(ctx).text
    assert block(prompt, "Available tools:\n") == [
        "- deploy: Ship the build now",
        "- read: Read with line numbers",
        "- ls: List a folder's contents",
        "- lint: lint",
    ]
    note = prompt.split("Available tools:\n", 1)[1].split("\n\n", 2)[1]
    assert note == "Besides these, the project may give you further tools of its own."


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        (["bash"], [BASH_ALONE]),  # P9
        (["bash", "grep"], [PREFER]),  # P10
        (["bash", "find"], [PREFER]),
        (["bash", "ls"], [PREFER]),
        (["grep", "find"], []),
        (["read", "edit"], [READ_EDIT, EDIT, SUMMARY]),  # P11, P12, P14
        (["read"], []),
        (["edit"], [EDIT, SUMMARY]),
        (["write"], [WRITE, SUMMARY]),  # P13, P14
        (ALL, [BASH_ALONE, READ_EDIT, EDIT, WRITE, SUMMARY]),
        ([], []),
    ],
)
def test_p8_to_p15_the_guideline_table(
    pi: Catalog, tmp_path: Path, tools: list[str], expected: list[str]
) -> None:
    prompt = pi.assemble(gather_in(pi, tmp_path, base={"tools": tools})).text
    assert block(prompt, "Guidelines:\n") == [*expected, CONCISE, PATHS]


def test_p16_p17_p18_prompt_guidelines_go_before_the_two_last_lines_once_each(
    pi: Catalog, tmp_path: Path
) -> None:
    ctx = gather_in(
        pi,
        tmp_path,
        base={
            "tools": ["bash", "deploy", "lint"],
            "tool_info": {
                "deploy": {"guidelines": ["Deploy from main only.", "  Ask before deploying. "]},
                "lint": {"guidelines": ["Ask before deploying.", "", "Keep your answers short."]},
                "inactive": {"guidelines": ["Never shown."]},
            },
            "guidelines": ["Run lint before you commit.", "Deploy from main only."],
        },
    )
    assert block(pi.assemble(ctx).text, "Guidelines:\n") == [
        BASH_ALONE,
        "- Deploy from main only.",
        "- Ask before deploying.",
        CONCISE,
        "- Run lint before you commit.",
        PATHS,
    ]


def test_p19_documentation_pointers_labelled_as_the_document_does(
    pi: Catalog, tree: dict[str, Path]
) -> None:
    prompt = text(pi, tree)
    docs = tree["home"].resolve() / ".sf" / "package"
    lines = block(prompt, "Pi documentation (")
    assert lines[0].startswith("read only when the user asks about pi itself")
    assert lines[0].endswith("):")
    assert lines[1:] == [
        f"- Main documentation: {docs}/README.md",
        f"- Additional docs: {docs}/docs",
        f"- Examples: {docs}/examples",
    ]
    moved = text(pi, tree, variables={"docs_root": "/opt/pi"})
    assert "- Additional docs: /opt/pi/docs" in moved
    assert "Pi documentation" not in text(pi, tree, variables={"docs_root": ""})


def test_p20_p22_p23_project_system_md_replaces_the_whole_base_and_only_it(
    pi: Catalog, tree: dict[str, Path]
) -> None:
    write(tree["cwd"] / ".sf" / "SYSTEM.md", "You are Custom.\n")
    write(tree["home"] / ".sf" / "agent" / "SYSTEM.md", "global SYSTEM.md, not used")
    write(tree["cwd"] / ".sf" / "APPEND_SYSTEM.md", "Also this.")
    skill(tree["cwd"] / ".sf" / "skills" / "lint", "name: lint\ndescription: Lint it")
    ctx = gather(
        pi, tree, tool_info={"bash": {"guidelines": ["An extension guideline."]}}, tools=ALL
    )
    prompt = pi.assemble(ctx).text
    assert prompt.startswith("You are Custom.\n\nAlso this.\n\n# Project Context\n\n")
    for gone in (
        "purpose-driven",
        "Available tools:",
        "Guidelines:",
        "Pi documentation",
        "An extension guideline.",
        "global SYSTEM.md",
    ):
        assert gone not in prompt
    for kept in ("<name>lint</name>", "Current date and time:", "Current working directory:"):
        assert kept in prompt


def test_p21_the_global_system_md_when_the_project_has_none(
    pi: Catalog, tree: dict[str, Path]
) -> None:
    write(tree["home"] / ".sf" / "agent" / "SYSTEM.md", "You are Global.")
    prompt = text(pi, tree)
    assert prompt.startswith("You are Global.\n\n# Project Context")
    assert "Available tools:" not in prompt


def test_p24_the_upstream_pi_folders_are_not_read(pi: Catalog, tree: dict[str, Path]) -> None:
    write(tree["cwd"] / ".pi" / "SYSTEM.md", "PI-SYSTEM")
    write(tree["cwd"] / ".pi" / "APPEND_SYSTEM.md", "PI-APPEND")
    write(tree["home"] / ".pi" / "agent" / "AGENTS.md", "PI-GLOBAL")
    skill(tree["home"] / ".pi" / "agent" / "skills" / "old", "name: old\ndescription: Old")
    prompt = text(pi, tree)
    assert prompt.startswith("You are a purpose-driven software compiler")
    for gone in ("PI-SYSTEM", "PI-APPEND", "PI-GLOBAL", "<available_skills>"):
        assert gone not in prompt


def test_p25_p26_p27_p28_append_system_project_first_after_the_base(
    pi: Catalog, tree: dict[str, Path]
) -> None:
    assert "\n\n# Project Context" in text(pi, tree)
    before = block(text(pi, tree), "Pi documentation (")[-1]
    write(tree["home"] / ".sf" / "agent" / "APPEND_SYSTEM.md", "Global append.")
    prompt = text(pi, tree)
    assert f"{before}\n\nGlobal append.\n\n# Project Context" in prompt
    write(tree["cwd"] / ".sf" / "APPEND_SYSTEM.md", "Project append.\n")
    prompt = text(pi, tree)
    assert f"{before}\n\nProject append.\n\n# Project Context" in prompt
    assert "Global append." not in prompt
    write(tree["cwd"] / ".sf" / "SYSTEM.md", "Mine.")
    assert text(pi, tree).startswith("Mine.\n\nProject append.\n\n# Project Context")


def test_p29_to_p33_project_context_global_first_then_root_down(
    pi: Catalog, tree: dict[str, Path]
) -> None:
    prompt = text(pi, tree, tools=["bash"])
    home, root = tree["home"].resolve(), tree["root"].resolve()
    section = prompt.split("# Project Context\n\n", 1)[1].split("\n\nCurrent date", 1)[0]
    assert section == (
        "Project-specific instructions and guidelines:\n\n"
        f"## {home}/.sf/agent/AGENTS.md\n\nglobal rules\n\n"
        f"## {root}/AGENTS.md\n\nroot agents\n\n"
        f"## {root}/work/AGENTS.md\n\nwork agents\n\n"
        f"## {root}/work/app/CLAUDE.md\n\napp claude"
    )
    assert "shadowed" not in prompt


def test_p29_only_agents_md_is_global(pi: Catalog, tree: dict[str, Path]) -> None:
    (tree["home"] / ".sf" / "agent" / "AGENTS.md").unlink()
    write(tree["home"] / ".sf" / "agent" / "CLAUDE.md", "global claude")
    prompt = text(pi, tree)
    assert "global claude" not in prompt
    assert "## " + str(tree["root"].resolve() / "AGENTS.md") in prompt


def test_p34_no_instruction_file_no_section(pi: Catalog, tmp_path: Path) -> None:
    prompt = pi.assemble(gather_in(pi, tmp_path, root=tmp_path, base={"tools": ALL})).text
    assert "# Project Context" not in prompt
    assert "Project-specific" not in prompt


def test_p36_to_p43_skills_listing(pi: Catalog, tree: dict[str, Path]) -> None:
    home, cwd = tree["home"], tree["cwd"]
    skill(home / ".sf" / "agent" / "skills" / "a", "name: a-skill\ndescription: First <one>")
    skill(home / ".agents" / "skills" / "commit", "name: commit\ndescription: Commit & push")
    skill(cwd / ".sf" / "skills" / "c", "name: c-skill\ndescription: Third", body="SECRET BODY")
    skill(cwd / ".agents" / "skills" / "d", "name: d-skill\ndescription: Fourth")
    off = "name: hidden\ndescription: x\ndisable-model-invocation: true"
    skill(cwd / ".sf" / "skills" / "e", off)
    prompt = text(pi, tree)
    intro, listing = prompt.split("\n\n<available_skills>\n", 1)
    assert intro.rsplit("\n\n", 1)[1].splitlines() == [
        "The skills below hold specialised instructions for particular tasks.",
        "When a task matches a skill's description, load the skill's file with the read tool "
        "and follow it.",
        "A relative path in a skill file is relative to the skill's own folder.",
    ]
    listing = listing.split("</available_skills>", 1)[0]
    h, c = home.resolve(), cwd.resolve()
    assert listing == (
        f"<skill>\n<name>a-skill</name>\n<description>First &lt;one&gt;</description>\n"
        f"<location>{h}/.sf/agent/skills/a/SKILL.md</location>\n</skill>\n"
        f"<skill>\n<name>commit</name>\n<description>Commit &amp; push</description>\n"
        f"<location>{h}/.agents/skills/commit/SKILL.md</location>\n</skill>\n"
        f"<skill>\n<name>c-skill</name>\n<description>Third</description>\n"
        f"<location>{c}/.sf/skills/c/SKILL.md</location>\n</skill>\n"
        f"<skill>\n<name>d-skill</name>\n<description>Fourth</description>\n"
        f"<location>{c}/.agents/skills/d/SKILL.md</location>\n</skill>\n"
    )
    assert "SECRET BODY" not in prompt and "hidden" not in prompt
    without_read = text(pi, tree, tools=["bash", "edit"])
    assert "<available_skills>" not in without_read and "skills below" not in without_read


def test_p37_no_skills_no_listing(pi: Catalog, tree: dict[str, Path]) -> None:
    prompt = text(pi, tree)
    assert "<available_skills>" not in prompt and "skills below" not in prompt


def test_p44_p45_the_documented_date_shape(pi: Catalog, tree: dict[str, Path]) -> None:
    prompt = text(pi, tree)
    assert prompt.endswith(
        "\n\nCurrent date and time: Saturday, March 7, 2026 at 08:55:05 AM CST\n"
        f"Current working directory: {tree['cwd'].resolve()}"
    )
    evening = datetime(2026, 7, 14, 21, 3, 0, tzinfo=ZoneInfo("Europe/Paris"))
    ctx = gather_in(pi, tree["cwd"], home=tree["home"], clock=lambda: evening)
    assert "Current date and time: Tuesday, July 14, 2026 at 09:03:00 PM CEST\n" in (
        pi.assemble(ctx).text
    )


def test_p47_a_new_tool_set_rebuilds_tools_and_guidelines(
    pi: Catalog, tree: dict[str, Path]
) -> None:
    ctx = gather(pi, tree, tools=["read"])
    first = pi.assemble(ctx).text
    second = pi.assemble(ctx.model_copy(update={"tools": ("read", "edit")})).text
    assert block(first, "Available tools:\n") == ["- read: Read the contents of a file"]
    assert "- edit: Change a file precisely by replacing exact text" in second
    assert READ_EDIT in second and READ_EDIT not in first


def test_p48_a_per_prompt_change_lasts_one_assembly(pi: Catalog, tree: dict[str, Path]) -> None:
    ctx = gather(pi, tree)
    base = pi.assemble(ctx).text
    changed = pi.assemble(ctx.model_copy(update={"append": "Only this turn."})).text
    assert changed == base + "\n\nOnly this turn."
    assert pi.assemble(ctx).text == base


def test_p49_reload_reads_the_files_again(pi: Catalog, tree: dict[str, Path]) -> None:
    before = text(pi, tree)
    write(tree["root"] / "work" / "AGENTS.md", "changed work agents\n")
    after = text(pi, tree)
    assert "work agents" in before and "changed work agents" in after


def test_the_released_version_is_unchanged(tree: dict[str, Path]) -> None:
    old = catalog.load("pi", "==1.0.0")
    prompt = old.assemble(gather(old, tree)).text
    assert "Instructions and guidelines for this project:" in prompt
    assert "global rules" not in prompt  # 1.0.0 reads ~/.pi/agent, not ~/.sf/agent
