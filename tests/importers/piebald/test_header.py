"""The upstream headers read as their authors meant them (catalog.importers.piebald.header).

Each mess class found in the real history has synthetic cases here; where a
header is valid YAML, the reading must be the one YAML's base loader gives
(checked on generated headers), and every real fixture release imports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import catalog
from catalog.errors import ImporterError
from catalog.importers.piebald import import_releases, read_checkout
from catalog.importers.piebald.header import read_header
from catalog.io.validate import check_catalog


def read(text: str) -> dict[str, Any]:
    return read_header(text, "x.md")[0]


def yaml_reading(text: str) -> Any:
    """What YAML's base loader (every scalar text) gives, or None when it refuses."""

    def build(node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return node.value
        if isinstance(node, yaml.SequenceNode):
            return [build(item) for item in node.value]
        return {key.value: build(value) for key, value in node.value}

    try:
        root = yaml.compose(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        return None
    return {} if root is None else build(root)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # An unquoted ": " inside a value: the key is the first word, the value the rest.
        (
            "description: System Prompt: Main system prompt for learning mode\n",
            {"description": "System Prompt: Main system prompt for learning mode"},
        ),
        ("name: a: b: c\nurl: http://x.y/z\n", {"name": "a: b: c", "url": "http://x.y/z"}),
        # `- *` means every tool; YAML reads an alias.
        ("agentMetadata:\n  tools:\n    - *\n", {"agentMetadata": {"tools": ["*"]}}),
        ("tools:\n- *\n- Read\n", {"tools": ["*", "Read"]}),
        # An unescaped quote inside single quotes.
        (
            "name: 'Tool Description: TeammateTool's operation parameter'\n",
            {"name": "Tool Description: TeammateTool's operation parameter"},
        ),
        ("name: 'it''s ''quoted'''\n", {"name": "it's 'quoted'"}),
        # JSON-quoted values.
        (
            'name: "Agent Prompt: \\"Explore\\" \\u2014 fast"\nccVersion: "2.1.240"\n',
            {"name": 'Agent Prompt: "Explore" \u2014 fast', "ccVersion": "2.1.240"},
        ),
        ('name: "not "JSON" at all"\n', {"name": 'not "JSON" at all'}),
        # Folded and literal blocks, with chomping.
        ("d: >\n  one\n  two\n\n  three\n", {"d": "one two\nthree\n"}),
        ("d: >-\n  one\n  two\n", {"d": "one two"}),
        ("d: |\n  one\n    two\n", {"d": "one\n  two\n"}),
        ("d: |+\n  one\n\n", {"d": "one\n\n"}),
        ("d: |-\n  one\ne: x\n", {"d": "one", "e": "x"}),
        # Nesting by indentation.
        (
            "agentMetadata:\n  agentType: 'Explore'\n  model: inherit\n  disallowedTools:\n"
            "    - Agent\n    - Edit\n  whenToUse: >\n    Fast search: finds\n    files.\n"
            "ccVersion: 2.1.118\n",
            {
                "agentMetadata": {
                    "agentType": "Explore",
                    "model": "inherit",
                    "disallowedTools": ["Agent", "Edit"],
                    "whenToUse": "Fast search: finds files.\n",
                },
                "ccVersion": "2.1.118",
            },
        ),
        ("a:\n  b:\n    c: deep\n", {"a": {"b": {"c": "deep"}}}),
        (
            "items:\n  - type: agent\n    name: x\n  - y\n",
            {"items": [{"type": "agent", "name": "x"}, "y"]},
        ),
        # Every value is text.
        (
            "ccVersion: 2.1\nvariables:\n  - FALSE\n  - null\n  - 42\n",
            {"ccVersion": "2.1", "variables": ["FALSE", "null", "42"]},
        ),
        ("empty:\nnext: x\n", {"empty": "", "next": "x"}),
        # A plain value continued on deeper lines is folded with spaces.
        ("d: one\n  two: three\n", {"d": "one two: three"}),
        # Comments and blank lines between keys are skipped.
        ("# note\na: 1\n\n# more\nb: 2\n", {"a": "1", "b": "2"}),
        ("tools: [Read, 'Grep', \"Bash\"]\n", {"tools": ["Read", "Grep", "Bash"]}),
    ],
)
def test_messy_headers_read_as_meant(text: str, expected: dict[str, Any]) -> None:
    assert read(text) == expected
    reading = yaml_reading(text)
    if reading is not None:  # valid YAML: the same reading
        assert reading == expected


def test_nested_flow_collections_stay_text() -> None:
    # YAML would read a list inside a list; header values are text or lists of text.
    assert read("tools: [a, [b]]\nx: {a: 1}\n") == {"tools": "[a, [b]]", "x": "{a: 1}"}


def test_key_lines_are_the_file_lines() -> None:
    _, lines = read_header("name: x\n\nvariables:\n  - A\nccVersion: 1\n", "x.md", first_line=2)
    assert lines == {"name": 2, "variables": 4, "ccVersion": 6}


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("a: 1\nnot a key\n", 3, "expected `key: value`, found 'not a key'"),
        ("a: 1\na: 2\n", 3, "the key 'a' is given twice"),
        ("a:\n\t- b\n", 3, "a tab in the indentation"),
        ("  a: 1\n  b: 2\nc: 3\n", 4, "indented less than the header's first key"),
        ("a:\n  b: 1\n c: 2\n", 4, "indented but continues nothing"),
    ],
)
def test_unreadable_headers_name_file_and_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(ImporterError) as info:
        read_header(text, "system-prompts/x.md", first_line=2)
    assert (info.value.file, info.value.line) == ("system-prompts/x.md", line)
    assert problem in info.value.message


def test_long_header_lines_read_in_linear_time() -> None:
    # No backtracking: a long value full of colons, quotes and spaces is one pass.
    value = "a: 'b' " * 20_000
    assert read(f"name: {value}\ntools: [{', '.join(['x'] * 20_000)}]\n")["name"] == value.strip()


_WORD = st.text(alphabet="abcXYZ019_-./", min_size=1, max_size=8).filter(lambda w: w[0].isalpha())
_SCALAR = st.one_of(
    st.builds(lambda w: w, _WORD),
    st.builds(lambda w: "'" + w.replace("'", "''") + "'", st.text("ab ':x", max_size=8)),
    st.builds(lambda w: '"' + w + '"', st.text("ab :x", max_size=8)),
)


@st.composite
def _headers(draw: st.DrawFn) -> str:
    lines = []
    for key in draw(st.lists(_WORD, min_size=1, max_size=5, unique=True)):
        shape = draw(st.sampled_from(["scalar", "list", "map", "block"]))
        if shape == "scalar":
            lines.append(f"{key}: {draw(_SCALAR)}")
        elif shape == "list":
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["", "  "]))
            lines.extend(f"{indent}- {v}" for v in draw(st.lists(_SCALAR, min_size=1, max_size=3)))
        elif shape == "map":
            lines.append(f"{key}:")
            for sub in draw(st.lists(_WORD, min_size=1, max_size=3, unique=True)):
                lines.append(f"  {sub}: {draw(_SCALAR)}")
        else:
            lines.append(f"{key}: {draw(st.sampled_from(['>', '|', '>-', '|-']))}")
            lines.extend(f"  {w}" for w in draw(st.lists(_WORD, min_size=1, max_size=3)))
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_headers())
def test_valid_yaml_headers_read_as_yaml_does(text: str) -> None:
    reading = yaml_reading(text)
    if reading is not None:
        assert read(text) == reading


FIXTURE_RELEASES = (
    "2.0.14", "2.0.70", "2.1.36", "2.1.37", "2.1.38", "2.1.51", "2.1.215", "2.1.239", "2.1.240",
)  # fmt: skip


def test_every_fixture_release_imports(claude_code_releases: Path, tmp_path: Path) -> None:
    upstream = claude_code_releases
    found = sorted(p.name for p in upstream.iterdir() if p.is_dir())
    assert set(FIXTURE_RELEASES) <= set(found)
    root = tmp_path / "catalogs"
    import_releases([read_checkout(upstream / v) for v in found], name="cc", out=root)
    for version in found:
        files = list((upstream / version / "system-prompts").glob("*.md"))
        loaded = catalog.load("cc", f"=={version}", paths=[root])
        assert len(loaded.parts) == len(files)
        assert check_catalog(loaded) == []
    # The three kinds of mess the fixture's SOURCE.md names, read as meant.
    old = catalog.load("cc", "==2.0.14", paths=[root]).part("system-prompt-learning-mode").decl
    assert old.description.startswith("System Prompt: Main system prompt for learning mode")
    quoted = catalog.load("cc", "==2.0.70", paths=[root])
    teammate = quoted.part("tool-description-teammatetools-operation-parameter").decl
    assert teammate.meta["name"] == "Tool Description: TeammateTool's operation parameter"
    general = catalog.load("cc", "==2.1.215", paths=[root]).part("agent-prompt-general-purpose")
    assert general.decl.meta["agentMetadata"]["tools"] == ["*"]
