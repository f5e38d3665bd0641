"""The YAML subset of front-matter headers: values, nesting, quoting, and loud failures."""

from __future__ import annotations

from typing import Any

import pytest

from catalog import ImporterError
from catalog.importers.simple_yaml import parse_simple_yaml


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: 'Agent Prompt: Explore'\n", {"name": "Agent Prompt: Explore"}),
        ("a: 'it''s'\nb: \"say \\\"hi\\\"\\t\\\\\"\n", {"a": "it's", "b": 'say "hi"\t\\'}),
        ("ccVersion: 2.1\nn: 42\nyes: true\nno: False\nnone: ~\nalso: null\n",
         {"ccVersion": "2.1", "n": 42, "yes": True, "no": False, "none": None, "also": None}),
        ("url: http://example.com/a#b\nnote: text # comment\n",
         {"url": "http://example.com/a#b", "note": "text"}),
        ("variables:\n  - A\n  - 'B'\n  - \"C\"\n", {"variables": ["A", "B", "C"]}),
        ("variables:\n- A\n- B\nnext: 1\n", {"variables": ["A", "B"], "next": 1}),
        ("meta:\n  tools: [Read, \"Grep\", 'Glob']\n  empty: []\n  map: {}\n",
         {"meta": {"tools": ["Read", "Grep", "Glob"], "empty": [], "map": {}}}),
        ("agentMetadata:\n  agentType: x\n  nested:\n    deep: 1\n  after: 2\n",
         {"agentMetadata": {"agentType": "x", "nested": {"deep": 1}, "after": 2}}),
        ("items:\n  - k: v\n    k2: w\n  - plain\n", {"items": [{"k": "v", "k2": "w"}, "plain"]}),
        ("long: 'first\n  second\n\n  third'\n", {"long": "first second\nthird"}),
        ('joined: "a \\\n  b"\n', {"joined": "a b"}),
        ("lit: |\n  one\n    two\n\n  three\nx: 1\n", {"lit": "one\n  two\n\nthree\n", "x": 1}),
        ("folded: >-\n  one\n  two\n\n  three\n", {"folded": "one two\nthree"}),
        ("keep: |+\n  a\n\nz: 1\n", {"keep": "a\n\n", "z": 1}),
        ('emoji: "\\uD83E\\uDD16 \\x41\\u00e9"\n', {"emoji": "\U0001f916 A\u00e9"}),
        ("# a comment\n\nkey: value\n", {"key": "value"}),
        ("", {}),
    ],
)  # fmt: skip
def test_values(text: str, expected: dict[str, Any]) -> None:
    assert parse_simple_yaml(text, file="f.md") == expected


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a: &anchor 1\n", 2, "unsupported YAML '&'"),
        ("a: {b: 1}\n", 2, "unsupported YAML '{'"),
        ("a: 1\n  b: 2\n", 3, "unexpected indentation"),
        ("a: 'never closed\nb: 2\n", 2, "unclosed ' string"),
        ('a: "\\q"\n', 2, "unknown escape \\q"),
        ("a: 'x' y\n", 2, "unexpected text after the closing quote"),
        ("a: 1\na: 2\n", 3, "duplicate key 'a'"),
        ("- item\n", 2, "expected `key: value` lines"),
        ("just text\n", 2, "expected `key: value`, found 'just text'"),
        ("a: [x, [y]]\n", 2, "unsupported flow sequence"),
    ],
)
def test_errors_name_file_and_line(text: str, line: int, message: str) -> None:
    with pytest.raises(ImporterError) as info:
        parse_simple_yaml(text, file="system-prompts/x.md", first_line=2)
    error = info.value
    assert (error.file, error.line) == ("system-prompts/x.md", line)
    assert message in error.message
