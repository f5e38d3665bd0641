"""The bundled opal catalog 1.1.0, behaviour by behaviour of its source document.

Each test names the rows of the table in docs/catalogs/opal.md it checks
(O1...). Every tree is built here in temporary folders.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import Catalog, SourceWarning
from tests._support.gathering import gather_in, skill, write
from tests._support.opal_texts import DISPLAY, EDIT, FOUR, READ_1, READ_2, SEARCH, STATUS, WRITE
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def opal() -> Catalog:
    return catalog.load("opal", "==1.1.0")


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """root/AGENTS.md; root/repo/{AGENTS.md, .opal/OPAL.md}; root/repo/src/.agents/AGENTS.md
    (the working directory is root/repo/src); skills in the project and the home."""
    home, root = tmp_path / "home", tmp_path / "root"
    write(root / "AGENTS.md", "org rules\n")
    write(root / "repo" / "AGENTS.md", "repo agents\n")
    write(root / "repo" / ".opal" / "OPAL.md", "repo opal\n")
    write(root / "repo" / "src" / ".agents" / "AGENTS.md", "src agents\n")
    home.mkdir()
    return {"home": home, "root": root, "cwd": root / "repo" / "src"}


def gather(opal: Catalog, tree: dict[str, Path], **base: Any) -> Any:
    base.setdefault("tools", FOUR)
    return gather_in(opal, tree["cwd"], home=tree["home"], root=tree["root"], base=base)


def text(opal: Catalog, tree: dict[str, Path], agent: str = "main", **base: Any) -> str:
    return opal.assemble(gather(opal, tree, **base), agent=agent).text


def sections(prompt: str) -> list[str]:
    return re.findall(r"^<([a-z-]+)(?: [^>]*)?>$", prompt, flags=re.MULTILINE)


def contexts(prompt: str) -> list[tuple[str, str]]:
    return re.findall(r'<project-context source="([^"]+)">\n(.*?)\n</project-context>', prompt)


def rules(prompt: str) -> list[str]:
    return prompt.split("<tool-guidelines>\n", 1)[1].split("\n</tool-guidelines>", 1)[0].split("\n")


def test_o1_o2_o34_six_tagged_sections_in_order_as_one_text(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    skill(tree["cwd"] / ".agents" / "skills" / "testing", "name: testing\ndescription: Fix tests")
    prompt = text(opal, tree, session={"id": "s1"})
    assert sections(prompt) == [
        "identity",
        *["project-context"] * 4,
        "skills",
        "environment",
        "tool-guidelines",
        "planning",
    ]
    assert prompt.startswith("<identity>\n") and prompt.endswith("\n</planning>")
    for closing in ("</identity>\n\n<project-context", "</skills>\n\n<environment>"):
        assert closing in prompt
    assert "</environment>\n\n<tool-guidelines>" in prompt
    assert "</tool-guidelines>\n\n<planning>" in prompt


def test_o3_empty_sections_are_left_out(opal: Catalog, tmp_path: Path) -> None:
    prompt = opal.assemble(gather_in(opal, tmp_path, root=tmp_path, base={"tools": []})).text
    assert sections(prompt) == ["identity", "environment"]
    assert "\n\n\n" not in prompt
    assert sections(opal.assemble({}).text) == ["identity"]


def test_o4_the_default_identity_is_wrapped_with_its_principles(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    identity = text(opal, tree).split("\n</identity>", 1)[0]
    assert identity.startswith("<identity>\nYou are Opal, an expert AI coding assistant.")
    principles = identity.split("\n## Principles\n", 1)[1].splitlines()
    assert len(principles) == 6 and all(line.startswith("- ") for line in principles)
    labels = [line[2:].split(" — ", 1)[0] for line in principles]
    assert labels == [  # the document's labels, each followed by " — "
        "Be direct",
        "Act, don't ask",
        "Verify your work",
        "Be honest",
        "Respect boundaries",
        "Stay on task",
    ]


def test_o5_a_custom_system_prompt_replaces_the_identity_unwrapped(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    prompt = text(opal, tree, overrides={"identity": "You are a code review specialist."})
    assert prompt.startswith("You are a code review specialist.\n\n<project-context source=")
    assert "<identity>" not in prompt and "You are Opal" not in prompt


def test_o6_o7_o8_o9_context_files_root_first_each_in_its_tag(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    root = tree["root"].resolve()
    assert contexts(text(opal, tree)) == [
        (f"{root}/AGENTS.md", "org rules"),
        (f"{root}/repo/AGENTS.md", "repo agents"),
        (f"{root}/repo/.opal/OPAL.md", "repo opal"),
        (f"{root}/repo/src/.agents/AGENTS.md", "src agents"),
    ]


def test_o7_all_six_places_of_one_folder(opal: Catalog, tmp_path: Path) -> None:
    for name in ("AGENTS.md", "OPAL.md"):
        for where in ("", ".agents/", ".opal/"):
            write(tmp_path / f"{where}{name}", f"{where}{name}")
    write(tmp_path / "CLAUDE.md", "not an Opal file")
    prompt = opal.assemble(gather_in(opal, tmp_path, root=tmp_path)).text
    assert [content for _, content in contexts(prompt)] == [
        "AGENTS.md",
        "OPAL.md",
        ".agents/AGENTS.md",
        ".agents/OPAL.md",
        ".opal/AGENTS.md",
        ".opal/OPAL.md",
    ]
    assert "not an Opal file" not in prompt


def test_o10_context_enabled_false_leaves_the_files_out(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    prompt = text(opal, tree, variables={"context_enabled": False})
    assert "<project-context" not in prompt
    assert sections(prompt) == ["identity", "environment", "tool-guidelines"]


def test_o11_context_filenames_is_the_caller_s(opal: Catalog, tree: dict[str, Path]) -> None:
    write(tree["root"] / "repo" / "CLAUDE.md", "repo claude")
    write(tree["cwd"] / ".opal" / "CLAUDE.md", "src opal claude")
    prompt = text(opal, tree, variables={"context_filenames": ["CLAUDE.md"]})
    root = tree["root"].resolve()
    assert contexts(prompt) == [
        (f"{root}/repo/CLAUDE.md", "repo claude"),
        (f"{root}/repo/src/.opal/CLAUDE.md", "src opal claude"),
    ]


def test_o12_o13_o14_skill_menu_from_every_folder_in_order(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    cwd, home = tree["cwd"], tree["home"]
    skill(cwd / ".agents" / "skills" / "one", "name: one\ndescription: First", body="BODY-ONE")
    skill(cwd / ".github" / "skills" / "two", "name: two\ndescription: Second")
    skill(home / ".agents" / "skills" / "three", "name: three\ndescription: Third")
    skill(home / ".opal" / "skills" / "four", "name: four\ndescription: Fourth")
    prompt = text(opal, tree)
    menu = prompt.split("<skills>\n", 1)[1].split("\n</skills>", 1)[0]
    intro, listing = menu.split("\n\n", 1)
    assert "`use_skill` tool" in intro and "full instructions" in intro
    assert listing.splitlines() == [
        "- **one**: First",
        "- **two**: Second",
        "- **three**: Third",
        "- **four**: Fourth",
    ]
    assert "BODY-ONE" not in prompt


def test_o15_a_skill_without_name_or_description_is_skipped_with_a_warning(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    folder = tree["cwd"] / ".agents" / "skills"
    skill(folder / "good", "name: good\ndescription: Fine")
    nameless = skill(folder / "nameless", "description: No name")
    undescribed = skill(folder / "undescribed", "name: undescribed")
    broken = write(folder / "broken" / "SKILL.md", "---\nname: [unclosed\n---\n")
    with pytest.warns(SourceWarning) as caught:
        prompt = text(opal, tree)
    menu = prompt.split("<skills>\n", 1)[1].split("\n</skills>", 1)[0]
    assert menu.splitlines()[-1] == "- **good**: Fine"
    assert "nameless" not in menu and "undescribed" not in menu
    messages = " | ".join(str(w.message) for w in caught)
    for path in (nameless, undescribed, broken):
        assert str(path) in messages
    assert "has no `name`" in messages and "has no `description`" in messages


def test_o16_skills_enabled_false_leaves_the_menu_out(opal: Catalog, tree: dict[str, Path]) -> None:
    skill(tree["cwd"] / ".agents" / "skills" / "one", "name: one\ndescription: First")
    assert "<skills>" in text(opal, tree)
    assert "<skills>" not in text(opal, tree, variables={"skills_enabled": False})


def test_o17_extra_skill_folders_come_last(opal: Catalog, tree: dict[str, Path]) -> None:
    skill(tree["home"] / ".opal" / "skills" / "four", "name: four\ndescription: Fourth")
    extra = tree["root"] / "team-skills"
    skill(extra / "five", "name: five\ndescription: Fifth")
    prompt = text(opal, tree, variables={"skills_extra_dirs": [str(extra)]})
    menu = prompt.split("<skills>\n", 1)[1].split("\n</skills>", 1)[0]
    assert menu.splitlines()[-2:] == ["- **four**: Fourth", "- **five**: Fifth"]


def test_o18_environment_holds_the_working_directory(opal: Catalog, tree: dict[str, Path]) -> None:
    environment = text(opal, tree).split("<environment>\n", 1)[1].split("\n</environment>")[0]
    assert str(tree["cwd"].resolve()) in environment


def test_o19_o28_the_example_output_for_four_tools(opal: Catalog, tmp_path: Path) -> None:
    prompt = opal.assemble(gather_in(opal, tmp_path, base={"tools": FOUR})).text
    assert rules(prompt) == [READ_1, READ_2, EDIT, WRITE, DISPLAY, STATUS]


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        (["read_file"], [STATUS]),  # O20 needs a shell
        (["read_file", "bash"], [READ_1, READ_2, DISPLAY, STATUS]),  # O20, O23
        (["edit_file", "zsh"], [EDIT, DISPLAY, SEARCH, STATUS]),  # O21, O24
        (["edit_file"], [STATUS]),
        (["write_file"], [WRITE, STATUS]),  # O22 needs no shell
        (["cmd"], [DISPLAY, SEARCH, STATUS]),
        (["grep"], [STATUS]),  # O25: any known tool
        (["use_skill"], [STATUS]),
    ],
)
def test_o20_to_o25_each_rule_and_its_trigger(
    opal: Catalog, tmp_path: Path, tools: list[str], expected: list[str]
) -> None:
    prompt = opal.assemble(gather_in(opal, tmp_path, base={"tools": tools})).text
    assert rules(prompt) == expected


@pytest.mark.parametrize("shell", ["shell", "bash", "zsh", "cmd", "powershell"])
def test_o26_shell_detection(opal: Catalog, tmp_path: Path, shell: str) -> None:
    prompt = opal.assemble(gather_in(opal, tmp_path, base={"tools": ["read_file", shell]})).text
    assert READ_1 in prompt and DISPLAY in prompt
    fish = opal.assemble(gather_in(opal, tmp_path, base={"tools": ["read_file", "fish"]})).text
    assert READ_1 not in fish


def test_o27_no_rule_no_section(opal: Catalog, tmp_path: Path) -> None:
    prompt = opal.assemble(gather_in(opal, tmp_path, base={"tools": ["web_search"]})).text
    assert "<tool-guidelines>" not in prompt


def test_o29_o30_planning_with_a_session_the_home_expanded(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    prompt = text(opal, tree, session={"id": "s1"})
    planning = prompt.split("<planning>\n", 1)[1].split("\n</planning>", 1)[0]
    first, path, blank, instructions = planning.split("\n", 3)
    assert first.endswith("plan document at:") and blank == ""
    assert path == f"{tree['home'].resolve()}/.opal/sessions/s1/plan.md"
    assert "before you start implementing" in instructions
    assert "as you complete steps" in instructions
    assert instructions.endswith("at any time with Ctrl+Y.")
    own = text(opal, tree, session={"id": "s1", "dir": "/data/s1"})
    assert "\n/data/s1/plan.md\n" in own
    in_home = text(opal, tree, session={"id": "s1", "dir": "~/work/s1"})
    assert f"\n{tree['home'].resolve()}/work/s1/plan.md\n" in in_home
    assert "<planning>" not in text(opal, tree)


def test_o31_o32_a_sub_agent_gets_all_but_planning(opal: Catalog, tree: dict[str, Path]) -> None:
    skill(tree["cwd"] / ".agents" / "skills" / "one", "name: one\ndescription: First")
    prompt = text(
        opal,
        tree,
        agent="sub-agent",
        session={"id": "s1"},
        tools=["read_file"],
        overrides={"identity": "Find the bug in parser.ex."},
    )
    assert prompt.startswith("Find the bug in parser.ex.\n\n<project-context")
    assert sections(prompt) == [
        *["project-context"] * 4,
        "skills",
        "environment",
        "tool-guidelines",
    ]
    assert rules(prompt) == [STATUS]


def test_o33_guidelines_follow_the_tool_set_of_each_turn(
    opal: Catalog, tree: dict[str, Path]
) -> None:
    ctx = gather(opal, tree, tools=["read_file"])
    assert rules(opal.assemble(ctx).text) == [STATUS]
    later = ctx.model_copy(update={"tools": ("read_file", "shell")})
    assert rules(opal.assemble(later).text) == [READ_1, READ_2, DISPLAY, STATUS]


def test_the_released_version_is_unchanged(tree: dict[str, Path]) -> None:
    old = catalog.load("opal", "==1.0.0")
    prompt = old.assemble(gather(old, tree, session={"id": "s1"})).text
    assert "~/.opal/sessions/s1/plan.md" in prompt and "Ctrl+Y" not in prompt


def test_o10_o11_settings_from_the_command_line(
    tree: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree["cwd"] / "CLAUDE.md", "src claude")
    common = ["--from-dir", str(tree["cwd"]), "--root", str(tree["root"]), "--no-git"]
    common += ["--home", str(tree["home"])]
    names = ["--set", 'variables.context_filenames=["CLAUDE.md"]']
    code, out, _ = run_cli(capsys, "assemble", "opal@1.1.0", *common, *names)
    assert code == 0
    assert [content for _, content in contexts(out)] == ["src claude"]
    off = ["--set", "variables.context_enabled=false"]
    code, out, _ = run_cli(capsys, "assemble", "opal@1.1.0", *common, *off)
    assert code == 0 and "<project-context" not in out
