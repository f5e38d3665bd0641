"""The bundled opal catalog: each documented behaviour, on real temporary folders."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import Catalog
from tests._support.gathering import gather_in, skill, write
from tests._support.opal_texts import DISPLAY, EDIT, FOUR, READ_1, READ_2, SEARCH, STATUS, WRITE


@pytest.fixture(scope="module")
def opal() -> Catalog:
    return catalog.load("opal", "==1.0.0")


@pytest.fixture
def project(tmp_path: Path) -> dict[str, Path]:
    home, repo = tmp_path / "home", tmp_path / "repo"
    write(tmp_path / "AGENTS.md", "org rules\n")
    write(repo / ".opal" / "OPAL.md", "repo opal\n")
    write(repo / "AGENTS.md", "repo agents\n")
    write(repo / "src" / ".agents" / "AGENTS.md", "src agents\n")
    skill(repo / "src" / ".agents" / "skills" / "testing", "name: testing\ndescription: Fix tests")
    skill(home / ".opal" / "skills" / "release", "name: release\ndescription: Cut a release")
    return {"home": home, "cwd": repo / "src", "root": tmp_path}


def assemble(opal: Catalog, project: dict[str, Path], agent: str = "main", **base: Any) -> str:
    base.setdefault("tools", FOUR)
    ctx = gather_in(opal, project["cwd"], home=project["home"], root=project["root"], base=base)
    return opal.assemble(ctx, agent=agent).text


def sections(text: str) -> list[str]:
    return re.findall(r"^<([a-z-]+)(?: [^>]*)?>$", text, flags=re.MULTILINE)


def test_every_section_is_wrapped_in_its_tag_in_order(
    opal: Catalog, project: dict[str, Path]
) -> None:
    text = assemble(opal, project, session={"id": "s1"})
    assert sections(text) == [
        "identity",
        "project-context",
        "project-context",
        "project-context",
        "project-context",
        "skills",
        "environment",
        "tool-guidelines",
        "planning",
    ]
    for tag in (
        "identity",
        "project-context",
        "skills",
        "environment",
        "tool-guidelines",
        "planning",
    ):
        assert text.count(f"<{tag}") == text.count(f"</{tag}>")
    assert text.startswith("<identity>\nYou are Opal") and text.endswith("</planning>")


def test_project_context_carries_its_source_outermost_first(
    opal: Catalog, project: dict[str, Path]
) -> None:
    root = project["root"].resolve()
    text = assemble(opal, project)
    found = re.findall(r'<project-context source="([^"]+)">\n(.*?)\n</project-context>', text)
    assert found == [
        (f"{root}/AGENTS.md", "org rules"),
        (f"{root}/repo/AGENTS.md", "repo agents"),
        (f"{root}/repo/.opal/OPAL.md", "repo opal"),
        (f"{root}/repo/src/.agents/AGENTS.md", "src agents"),
    ]


def test_a_blank_instruction_file_gets_no_section(opal: Catalog, tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "")
    write(tmp_path / ".opal" / "OPAL.md", "\n  \n")
    text = opal.assemble(gather_in(opal, tmp_path, root=tmp_path)).text
    assert sections(text) == ["identity", "environment"]
    write(tmp_path / "OPAL.md", "Use mix.\n")
    text = opal.assemble(gather_in(opal, tmp_path, root=tmp_path)).text
    block = f'<project-context source="{tmp_path.resolve()}/OPAL.md">\nUse mix.\n</project-context>'
    assert block in text
    assert sections(text) == ["identity", "project-context", "environment"]


def test_skills_menu(opal: Catalog, project: dict[str, Path]) -> None:
    text = assemble(opal, project)
    menu = text.split("<skills>\n", 1)[1].split("\n</skills>", 1)[0]
    assert menu.endswith("\n\n- **testing**: Fix tests\n- **release**: Cut a release")


def test_empty_sections_are_dropped(opal: Catalog, tmp_path: Path) -> None:
    ctx = gather_in(opal, tmp_path, base={"tools": ["web_search"]})
    assert sections(opal.assemble(ctx).text) == ["identity", "environment"]
    assert sections(opal.assemble({}).text) == ["identity"]


def test_four_tools_give_the_documented_rules_in_order(opal: Catalog, tmp_path: Path) -> None:
    text = opal.assemble(gather_in(opal, tmp_path, base={"tools": FOUR})).text
    block = text.split("<tool-guidelines>\n", 1)[1].split("\n</tool-guidelines>", 1)[0]
    assert block.splitlines() == [READ_1, READ_2, EDIT, WRITE, DISPLAY, STATUS]


@pytest.mark.parametrize("shell", ["shell", "bash", "zsh", "cmd", "powershell"])
def test_shell_detection(opal: Catalog, tmp_path: Path, shell: str) -> None:
    text = opal.assemble(gather_in(opal, tmp_path, base={"tools": ["read_file", shell]})).text
    assert READ_1 in text and DISPLAY in text and SEARCH not in text
    alone = opal.assemble(gather_in(opal, tmp_path, base={"tools": [shell]})).text
    assert SEARCH in alone and READ_1 not in alone


def test_no_shell_no_shell_rules(opal: Catalog, tmp_path: Path) -> None:
    ctx = gather_in(opal, tmp_path, base={"tools": ["read_file", "edit_file", "fish"]})
    text = opal.assemble(ctx).text
    block = text.split("<tool-guidelines>\n", 1)[1].split("\n</tool-guidelines>", 1)[0]
    assert block.splitlines() == [STATUS]


def test_planning_only_with_a_session_and_never_for_sub_agents(
    opal: Catalog, project: dict[str, Path]
) -> None:
    with_session = assemble(opal, project, session={"id": "s1"})
    assert (
        "<planning>\nFor a complex task of several steps, write a plan document at:\n"
        "~/.opal/sessions/s1/plan.md\n" in with_session
    )
    own_dir = assemble(opal, project, session={"id": "s1", "dir": "/data/s1"})
    assert "/data/s1/plan.md" in own_dir
    assert "<planning>" not in assemble(opal, project)
    sub = assemble(
        opal,
        project,
        agent="sub-agent",
        session={"id": "s1"},
        overrides={"identity": "Find the bug in parser.ex."},
    )
    assert "<planning>" not in sub
    assert sections(sub)[-2:] == ["environment", "tool-guidelines"]


def test_a_custom_system_prompt_replaces_the_identity_unwrapped(
    opal: Catalog, project: dict[str, Path]
) -> None:
    text = assemble(opal, project, overrides={"identity": "You review code."})
    assert text.startswith("You review code.\n\n<project-context source=")
    assert "<identity>" not in text and "You are Opal" not in text
