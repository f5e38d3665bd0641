"""[definitions], [lines] and [defaults.KIND]: named values and shared conditions of a manifest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog, diff, load_dir
from catalog.errors import CatalogError, EvaluationError, ExpressionError, ManifestError
from tests.conftest import run_cli

Make = Callable[..., Path]


def line_of(folder: Path, needle: str) -> int:
    """The 1-based line of the first manifest line holding ``needle``."""
    lines = (folder / "catalog.toml").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if needle in line)


def build(make_catalog: Make, parts: list[dict[str, Any]], **extra: Any) -> Catalog:
    return load_dir(make_catalog(parts=parts, extra=extra))


def with_tables(folder: Path, toml: str) -> Path:
    """``folder``'s manifest with the TOML tables ``toml`` appended, as a person writes them."""
    manifest = folder / "catalog.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n" + toml, encoding="utf-8")
    return folder


# -- [definitions]


def test_a_definition_serves_conditions_bodies_and_later_definitions(make_catalog: Make) -> None:
    cat = build(
        make_catalog,
        [
            {"id": "shell", "when": "shells", "body": "Shells: {{ join(shells, ', ') }}."},
            {"id": "count", "when": "many", "body": "{{ len(shells) }} shells"},
            {"id": "none", "when": "not shells", "body": "No shell."},
        ],
        definitions={
            "shells": 'intersect(tools, ["bash", "zsh"])',
            "many": "len(shells) > 1",
        },
    )
    assert cat.definitions == ("shells", "many")
    assert cat.assemble({"tools": ["zsh", "read", "bash"]}).text == (
        "Shells: zsh, bash.\n\n2 shells"
    )
    assert cat.assemble({"tools": ["bash"]}).text == "Shells: bash."
    assert cat.assemble({"tools": ["read"]}).text == "No shell."


def test_a_definition_sees_variables_and_the_agent(make_catalog: Make) -> None:
    folder = make_catalog(
        parts=[{"id": "p", "agents": ["*"], "body": "{{ greeting }}"}],
        variables=[{"name": "who", "type": "str", "default": "world"}],
        agents=[{"name": "helper"}],
        extra={"definitions": {"greeting": '("sub " if agent.is_subagent else "") + "hi " + who'}},
    )
    cat = load_dir(folder)
    assert cat.assemble({}).text == "hi world"
    assert cat.assemble({"variables": {"who": "ada"}}, agent="helper").text == "sub hi ada"


def test_a_definition_has_the_shape_of_its_expression(make_catalog: Make) -> None:
    folder = make_catalog(
        parts=[{"id": "p", "body": "{{ top.nmae }}"}],
        extra={"definitions": {"top": "first(skills)"}},
    )
    with pytest.raises(CatalogError) as caught:
        load_dir(folder)
    assert "nmae" in caught.value.message
    assert caught.value.hint is not None and "name" in caught.value.hint


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("tools", "'tools' is already a context name or a variable"),
        ("level", "'level' is already a context name or a variable"),
        ("part", "'part' is already a reserved name"),
        ("loop", "'loop' is already a reserved name"),
        ("none", "'none' is already a reserved name"),
    ],
)
def test_a_definition_may_not_shadow_a_known_name(
    make_catalog: Make, name: str, message: str
) -> None:
    folder = make_catalog(
        parts=[{"id": "p"}],
        variables=[{"name": "level", "type": "int"}],
        extra={"definitions": {name: "1"}},
    )
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    assert caught.value.message == message
    assert caught.value.key == f"definitions.{name}"
    assert caught.value.line == line_of(folder, f"{name} = ")


def test_a_name_in_definitions_and_lines_at_once_is_refused(make_catalog: Make) -> None:
    folder = with_tables(
        make_catalog(parts=[{"id": "p"}]),
        '[definitions]\nx = "1"\n\n[[lines.x]]\ntext = "a"\n',
    )
    with pytest.raises(ManifestError, match="'x' is defined twice") as caught:
        load_dir(folder)
    assert caught.value.line == line_of(folder, "[[lines.x]]")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("len(", "syntax error"),
        ("later + 1", "unknown name 'later'"),
        ("tols", "unknown name 'tols'"),
    ],
)
def test_a_broken_definition_is_an_error_at_its_line(
    make_catalog: Make, source: str, message: str
) -> None:
    folder = make_catalog(
        parts=[{"id": "p"}],
        extra={"definitions": {"first_one": source, "later": "2"}},
    )
    with pytest.raises(ExpressionError) as caught:
        load_dir(folder)
    assert message in caught.value.message
    assert (caught.value.key, caught.value.line) == (
        "definitions.first_one",
        line_of(folder, "first_one = "),
    )
    assert str(folder / "catalog.toml") in str(caught.value)


def test_a_definition_failing_at_assembly_names_its_manifest_line(make_catalog: Make) -> None:
    folder = make_catalog(
        parts=[{"id": "p", "body": "{{ total }}"}],
        extra={"definitions": {"total": "env.cwd - 1"}},
    )
    cat = load_dir(folder)
    with pytest.raises(EvaluationError) as caught:
        cat.assemble({"env": {"cwd": "/w"}})
    assert "cannot apply '-' to text and number" in caught.value.message
    assert caught.value.file == str(folder / "catalog.toml")
    assert (caught.value.key, caught.value.line) == ("definitions.total", line_of(folder, "total"))


# -- [lines]

GUIDES = [
    {"when": '"bash" in tools', "text": "Use bash."},
    {"when": '"edit" in tools', "text": "  Edit precisely.  "},
    {"items": 'guidelines + flatten(pluck(pick(tool_info, tools), "guidelines"))'},
    {"text": "Be concise."},
    {"when": '"bash" in tools', "items": '"Use bash."'},
    {"items": "none"},
]


def test_lines_keep_order_and_drop_blank_lines_and_repeats(make_catalog: Make) -> None:
    cat = build(
        make_catalog,
        [
            {
                "id": "g",
                "when": "guide",
                "body": "Guidelines:\n{% for line in guide %}\n- {{ line }}\n{% endfor %}",
            }
        ],
        lines={"guide": GUIDES},
    )
    context = {
        "tools": ["edit", "bash", "lint"],
        "guidelines": ["Be concise.", "  ", "Ask first."],
        "tool_info": {
            "lint": {"guidelines": ["Lint first.", "Ask first."]},
            "off": {"guidelines": ["Never shown."]},
        },
    }
    assert cat.assemble(context).text == (
        "Guidelines:\n- Use bash.\n- Edit precisely.\n- Be concise.\n- Ask first.\n- Lint first."
    )
    assert cat.assemble({}).text == "Guidelines:\n- Be concise."


def test_an_empty_lines_list_is_false_in_a_condition(make_catalog: Make) -> None:
    cat = build(
        make_catalog,
        [{"id": "g", "when": "guide", "body": "{{ join(guide, ' / ') }}"}],
        lines={"guide": [{"when": '"x" in tools', "text": "x is on"}]},
    )
    assert cat.assemble({"tools": ["x"]}).text == "x is on"
    assert [p.reason for p in cat.assemble({}).excluded] == ["condition"]


def test_lines_use_definitions(make_catalog: Make) -> None:
    cat = build(
        make_catalog,
        [{"id": "g", "body": "{{ join(guide, '|') }}"}],
        definitions={"shell": 'intersect(tools, ["sh", "bash"])'},
        lines={"guide": [{"when": "shell", "items": "shell"}, {"text": "end"}]},
    )
    assert cat.assemble({"tools": ["bash", "sh"]}).text == "bash|sh|end"


def test_a_lines_entry_needs_exactly_one_of_text_and_items(make_catalog: Make) -> None:
    folder = make_catalog(
        parts=[{"id": "p"}], extra={"lines": {"guide": [{"text": "a"}, {"when": "tools"}]}}
    )
    with pytest.raises(ManifestError, match="exactly one of `text`") as caught:
        load_dir(folder)
    assert caught.value.key == "lines.guide[1]"


def test_a_broken_lines_entry_is_an_error_at_its_line(make_catalog: Make) -> None:
    folder = with_tables(
        make_catalog(parts=[{"id": "p"}]),
        '[[lines.guide]]\ntext = "a"\n\n[[lines.guide]]\ntext = "b"\nwhen = \'"x" in tols\'\n',
    )
    with pytest.raises(ExpressionError, match="unknown name 'tols'") as caught:
        load_dir(folder)
    assert caught.value.key == "lines.guide[1].when"
    assert caught.value.line == line_of(folder, '"x" in tols')


def test_items_that_are_no_lines_fail_at_assembly_naming_the_entry(make_catalog: Make) -> None:
    folder = with_tables(
        make_catalog(parts=[{"id": "p", "body": "{{ guide }}"}]),
        '[[lines.guide]]\ntext = "first"\n\n[[lines.guide]]\nitems = "len(tools)"\n',
    )
    cat = load_dir(folder)
    with pytest.raises(EvaluationError, match="`items` must give a text or a list") as caught:
        cat.assemble({"tools": ["a"]})
    assert caught.value.key == "lines.guide[1].items"
    assert caught.value.line == line_of(folder, "len(tools)")


# -- [defaults.KIND]

TOOL_WHEN = "part.name in tools and (not agent.is_subagent or part.name in agent.tools)"


def tool(name: str, **more: Any) -> dict[str, Any]:
    return {"id": name.lower(), "kind": "tool", "name": name, "body": f"{name}: use it.", **more}


def test_one_default_condition_serves_every_tool_part(make_catalog: Make) -> None:
    folder = make_catalog(
        parts=[
            {"id": "intro", "agents": ["*"], "body": "Hello."},
            tool("Bash"),
            tool("Read"),
            tool("Grep", when='"Grep" in tools and "fast" in features'),
        ],
        agents=[{"name": "explore", "tools": ["Read"]}],
        extra={"defaults": {"tool": {"when": TOOL_WHEN, "agents": ["*"], "stability": "session"}}},
    )
    cat = load_dir(folder)
    tools = ["Bash", "Read", "Grep"]
    assert [t.name for t in cat.assemble({"tools": tools}).tools] == ["Bash", "Read"]
    both = {"tools": tools, "features": ["fast"]}
    assert [t.name for t in cat.assemble(both).tools] == ["Bash", "Read", "Grep"]
    assert [t.name for t in cat.assemble({"tools": tools}, agent="explore").tools] == ["Read"]
    decls = {p.id: p.decl for p in cat.parts}
    assert decls["bash"].when == TOOL_WHEN and decls["bash"].stability == "session"
    assert decls["grep"].when.startswith('"Grep" in tools')
    assert decls["intro"].stability == "static" and decls["intro"].when == "true"
    written = {p.id: p for p in cat.manifest.part}
    assert "when" not in written["bash"].model_fields_set  # the manifest stays as written


def test_a_body_reads_its_own_part(make_catalog: Make) -> None:
    folder = make_catalog(
        parts=[
            {"id": "intro", "body": "I am {{ part.id }} ({{ part.kind }})."},
            tool("Bash", body="{{ part.name }} runs commands ({{ part.id }})."),
        ],
        extra={"defaults": {"tool": {"when": "part.name in tools"}}},
    )
    prompt = load_dir(folder).assemble({"tools": ["Bash"]})
    assert prompt.text == "I am intro (system)."
    assert prompt.tools[0].description == "Bash runs commands (bash)."


def test_a_broken_default_is_an_error_at_its_own_line(make_catalog: Make) -> None:
    folder = with_tables(
        make_catalog(parts=[tool("Bash")]),
        '[defaults.tool]\nagents = ["*"]\nwhen = "part.nmae in tools"\n',
    )
    with pytest.raises(ExpressionError) as caught:
        load_dir(folder)
    assert "nmae" in caught.value.message
    assert caught.value.key == "defaults.tool.when"
    assert caught.value.line == line_of(folder, "part.nmae")


def test_a_default_naming_an_unknown_agent_is_refused(make_catalog: Make) -> None:
    folder = make_catalog(parts=[tool("Bash")], extra={"defaults": {"tool": {"agents": ["ghost"]}}})
    with pytest.raises(ManifestError, match="unknown agent 'ghost'") as caught:
        load_dir(folder)
    assert caught.value.key == "defaults.tool.agents"


def test_an_unknown_kind_in_defaults_is_refused(make_catalog: Make) -> None:
    folder = make_catalog(parts=[tool("Bash")], extra={"defaults": {"tols": {"when": "true"}}})
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    assert caught.value.key is not None and caught.value.key.startswith("defaults")


def test_part_is_not_a_name_for_definitions(make_catalog: Make) -> None:
    folder = make_catalog(parts=[{"id": "p"}], extra={"definitions": {"mine": "part.id"}})
    with pytest.raises(ExpressionError, match="unknown name 'part'"):
        load_dir(folder)


def test_show_lists_definitions_lines_and_defaults_once(
    make_catalog: Make, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        parts=[tool("Bash"), tool("Read"), tool("Grep", when='"Grep" in tools')],
        extra={
            "definitions": {"shells": 'intersect(tools, ["bash"])'},
            "lines": {"guide": [{"text": "Be brief."}, {"when": "shells", "items": "shells"}]},
            "defaults": {"tool": {"when": TOOL_WHEN, "agents": ["*"]}},
        },
    )
    code, out, _ = run_cli(capsys, "show", str(folder))
    assert code == 0
    assert 'definition shells = intersect(tools, ["bash"])\n' in out
    assert 'lines guide:\n  - "Be brief."\n  - items shells  when shells\n' in out
    assert f"defaults for tool parts: when = {TOOL_WHEN}; agents = *\n" in out
    assert out.count(TOOL_WHEN) == 1
    rows = [line for line in out.splitlines() if line.split()[:1] in (["10"], ["20"], ["30"])]
    assert [row.split(" / ", 1)[1] for row in rows] == [
        "(defaults for tool)",
        "(defaults for tool)",
        '"Grep" in tools',
    ]


def test_a_diff_reports_changed_definitions_lines_and_defaults(make_catalog: Make) -> None:
    parts = [{"id": "p", "body": "{{ x }}"}]
    old = load_dir(make_catalog("d", "1.0.0", parts, extra={"definitions": {"x": '"a"'}}))
    new = load_dir(
        make_catalog(
            "d",
            "1.1.0",
            parts,
            extra={
                "definitions": {"x": '"b"'},
                "lines": {"y": [{"text": "t"}]},
                "defaults": {"system": {"stability": "session"}},
            },
        )
    )
    changes = {c.key: (c.old, c.new) for c in diff(old, new).settings}
    assert changes == {
        "definitions.x": ('"a"', '"b"'),
        "lines.y": (None, [{"text": "t", "when": "true"}]),
        "defaults.system": (None, {"stability": "session"}),
    }
