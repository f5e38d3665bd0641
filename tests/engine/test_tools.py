"""The tool names a catalog knows: one answer, read from every place tools are tested."""

from __future__ import annotations

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
