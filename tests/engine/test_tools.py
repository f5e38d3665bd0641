"""The tool names a catalog knows: one answer, read from every place tools are tested;
and the notes an assembly gives for each enabled tool outside them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import catalog
from catalog import load_dir
from tests.conftest import write_catalog


def test_every_place_a_tool_is_tested_is_read(tmp_path: Path) -> None:
    folder = write_catalog(
        tmp_path,
        parts=[
            {"id": "bash", "kind": "tool", "name": "Bash", "when": "part.name in tools"},
            {"id": "grep", "when": '"Grep" in tools and env.os == "linux"'},
            {"id": "no-read", "when": '"Read" not in tools'},
            {"id": "own", "when": '"Shell" in agent.tools'},
            {"id": "has", "when": 'contains(tools, "WebFetch")'},
            {"id": "lists", "when": 'intersect(tools, ["ls", "find"])'},
            {"id": "guided", "when": "pick(guides, tools)"},
            {"id": "shells", "when": '"zsh" in shells'},
            {"id": "body", "template": True,
             "body": '{% if "Notebook" in tools %}n{% endif %}{{ "Todo" in tools }}'},
        ],
        variables=[
            {"name": "shell_tools", "type": "list", "default": ["sh", "bash"]},
            {"name": "names", "type": "list", "default": ["AGENTS.md"]},
            {"name": "guides", "type": "map", "default": {"Fetch": "Fetch with care."}},
        ],
        agents=[{"name": "explore", "tools": ["Glob"]}],
        extra={
            "definitions": {"shells": "intersect(tools, shell_tools)"},
            "lines": {"rules": [{"when": '"Edit" in tools', "text": "Edit with care."},
                                {"when": "len(names) > 0", "text": "Files."}]},
        },
    )  # fmt: skip
    assert load_dir(folder).tool_names == {
        "Bash", "Grep", "Read", "Shell", "WebFetch", "ls", "find", "zsh", "sh", "bash",
        "Notebook", "Todo", "Glob", "Edit", "Fetch",
    }  # fmt: skip


def test_opal_knows_the_tools_its_rules_test() -> None:
    # The rules of [[lines.tool_rules]] test read_file, edit_file and write_file; the
    # shells and Opal's own tools come in through intersect(tools, ...) of two variables.
    assert catalog.load("opal", "1.1.0").tool_names == {
        "read_file", "edit_file", "write_file", "grep", "sub_agent", "tasks", "use_skill",
        "shell", "bash", "zsh", "cmd", "powershell",
    }  # fmt: skip


def test_texts_compared_with_anything_else_are_not_tools() -> None:
    # moltis compares env.os and agent.name with texts: none of them is a tool.
    assert catalog.load("moltis").tool_names == {"memory_get", "memory_save", "memory_search"}


def _noted(make_catalog: Callable[..., Path], context: dict[str, object]) -> tuple[str, ...]:
    """The notes of assembling, under ``context``, a catalog whose tools are Bash, Grep
    and Greet (each a tool part)."""
    folder = make_catalog(
        parts=[
            {"id": name.lower(), "kind": "tool", "name": name, "when": "part.name in tools"}
            for name in ("Bash", "Grep", "Greet")
        ]
    )
    return load_dir(folder).assemble(context).notes


def test_each_unknown_tool_is_noted_once_with_the_closest_known_name(
    make_catalog: Callable[..., Path],
) -> None:
    # Bash is known; Mine is described by the context; Gre is closer to Grep than to
    # Greet, and only the closest is named; nothing is close to Zzz.
    notes = _noted(
        make_catalog,
        {"tools": ["Gre", "Bash", "Zzz", "Gre", "Mine"], "tool_info": {"Mine": {}}},
    )
    assert notes == (
        "tool 'Gre' matches no part and no agent's tools of demo 1.0.0; did you mean 'Grep'?",
        "tool 'Zzz' matches no part and no agent's tools of demo 1.0.0",
    )


def test_known_tools_and_tools_the_context_describes_are_not_noted(
    make_catalog: Callable[..., Path],
) -> None:
    assert _noted(make_catalog, {"tools": ["Grep", "Bash"]}) == ()
    assert _noted(make_catalog, {"tools": ["Bash", "Mine"], "tool_info": {"Mine": {}}}) == ()


def test_ten_unknown_tools_are_named_and_the_rest_counted(
    make_catalog: Callable[..., Path],
) -> None:
    ten = [f"Zz{i:02}" for i in range(10)]
    named = tuple(
        f"tool {name!r} matches no part and no agent's tools of demo 1.0.0" for name in ten
    )
    assert _noted(make_catalog, {"tools": ten}) == named
    eleven = _noted(make_catalog, {"tools": [*ten, "Bash", "Zz10"]})
    assert eleven == (*named, "1 more tool matches no part and no agent's tools of demo 1.0.0")
    twelve = _noted(make_catalog, {"tools": [*ten, "Zz10", "Bash", "Zz11"]})
    assert twelve == (*named, "2 more tools match no part and no agent's tools of demo 1.0.0")
