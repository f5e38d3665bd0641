"""The importer reads upstream text in linear time: hostile READMEs, subjects, headers.

Each input here is a megabyte built to make a backtracking pattern work
quadratically or worse: the patterns these readers replaced take hours on
them (``scripts/bench_hostile.py`` prints the figures). The tests check the
results; a return to such a pattern would make them hang.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import InvalidVersion, Version

from catalog.errors import ImporterError
from catalog.importers.piebald.changelog import parse_changelog
from catalog.importers.piebald.header import MAX_DEPTH, read_header
from catalog.importers.piebald.parse import (
    parse_prompt_file,
    parse_readme,
    release_version,
)

MB = 1_000_000
ENTRY = "- [Agent Prompt: Explore](./system-prompts/agent-prompt-explore.md) (**516** tks) - Find."


def test_a_readme_of_a_million_blank_lines() -> None:
    readme = parse_readme("as of **[Claude Code v2.1.38](x)\n" + "\n" * MB + ENTRY + "\n")
    assert readme.version == "2.1.38"
    assert readme.entries["agent-prompt-explore.md"].tokens == 516
    assert readme.entries["agent-prompt-explore.md"].description == "Find."


@pytest.mark.parametrize(
    "noise",
    [
        " " * MB,
        "- [" * (MB // 3),
        "- [a](./system-prompts/" + "x" * MB,
        "as of **[Claude Code v1" * (MB // 23),
        "as of **[Claude Code v" + "1" * MB,
        "- [a](system-prompts/a.md) (**" + "1," * (MB // 2),
        " \t\n" * (MB // 3),
    ],
)
def test_a_readme_of_hostile_noise(noise: str) -> None:
    readme = parse_readme(noise + "\n" + ENTRY + "\nas of **[Claude Code v2.1.38](x)\n")
    assert list(readme.entries) == ["agent-prompt-explore.md"]
    assert readme.version == "2.1.38"


@pytest.mark.parametrize(
    ("subject", "version"),
    [
        ("1" + ".1" * (MB // 2) + " x", None),
        ("v2.1.37 (" + "+" * MB + ")", "2.1.37"),
        ("v2.1.37" + " " * MB + "(+0 tokens)", "2.1.37"),
        ("v2.1.37" + " " * MB + "x", None),
        ("v" * MB, None),
        ("1." * MB, None),
        ("v2.1.37 (+0 tokens)" + " " * MB, "2.1.37"),
    ],
)
def test_hostile_commit_subjects(subject: str, version: str | None) -> None:
    assert release_version(subject) == version


def test_a_changelog_bullet_with_a_megabyte_of_spaces() -> None:
    text = "# [2.1.38](x)\n- Skill: A" + " " * MB + "(12 tks) - Rewritten.\n- a" + " " * MB + "b\n"
    (release,) = parse_changelog(text)
    first, second = release.changed
    assert (first.names, first.summary) == (("Skill: A",), "Rewritten.")
    assert second.name == "a" + " " * MB + "b"
    (release,) = parse_changelog(text, ["Skill: A"])
    assert release.changed[0].names == ("Skill: A",)


def test_a_header_of_a_megabyte() -> None:
    folded = "a: >\n" + "  word\n" * (MB // 7)
    assert read_header(folded, "a.md")[0]["a"] == " ".join(["word"] * (MB // 7)) + "\n"
    flow = "a: [" + "x, " * (MB // 3) + "'it''s', \"q\"]"
    assert read_header(flow, "a.md")[0]["a"] == ["x"] * (MB // 3) + ["it's", "q"]
    keys = "".join(f"k{i}: v {i}\n" for i in range(MB // 10))
    assert len(read_header(keys, "a.md")[0]) == MB // 10


def test_a_header_nested_too_deep_is_refused_at_its_line() -> None:
    deep = "".join(" " * level + "k:\n" for level in range(1_000)) + " " * 1_000 + "v\n"
    with pytest.raises(ImporterError) as info:
        parse_prompt_file("<!--\n" + deep + "-->\nBody.\n", "system-prompts/a.md")
    assert info.value.message == f"header: nested more than {MAX_DEPTH} levels deep"
    assert (info.value.file, info.value.line) == ("system-prompts/a.md", 2 + MAX_DEPTH)
    fits = "".join(" " * level + "k:\n" for level in range(MAX_DEPTH - 1)) + " " * 99 + "v\n"
    value: object = read_header(fits, "a.md")[0]
    for _ in range(MAX_DEPTH - 1):
        assert isinstance(value, dict)
        value = value["k"]
    assert value == "v"


# The patterns the readers replaced, as an independent reading of small inputs.
OLD_ENTRY = re.compile(
    r"^\s*[-*]\s+\[(?P<name>.+?)\]\((?:\./)?system-prompts/(?P<file>[^)\s]+?\.md)\)"
    r"\s*\(\*\*(?P<tokens>[\d,]+)\*\*\s*tks?\)\s*(?:[-\u2013\u2014]\s*(?P<description>.*?))?\s*$"
)
OLD_SUBJECT = re.compile(r"^v?(?P<version>\d+(?:\.\d+)+[^\s(]*)(?:\s+\(.*\))?\s*$")

PIECES = ["- ", "* ", "[", "]", "(", ")", "](", "./", "system-prompts/", "a", "b.md", " ",
          "\t", "(**", "**", "12", ",", " tks)", "tk)", " - ", "\u2014", "d e"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14))
def test_readme_lines_read_as_the_old_pattern_did(pieces: list[str]) -> None:
    line = "".join(pieces)
    old = OLD_ENTRY.match(line)
    expected = {}
    # The old pattern let a name run past a `](` that led nowhere; names end at the first.
    if old is not None and "](" not in old["name"]:
        tokens = int(old["tokens"].replace(",", ""))
        expected = {old["file"]: (old["name"], tokens, old["description"] or "")}
    found = parse_readme(line).entries
    assert {f: (e.name, e.tokens, e.description) for f, e in found.items()} == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["v", "1", "2", ".", "0", " ", "(", ")", "x", "rc1", "\t"])))
def test_subjects_read_as_the_old_pattern_did(pieces: list[str]) -> None:
    subject = "".join(pieces)
    old = OLD_SUBJECT.match(subject.strip())
    expected = old["version"] if old else None
    try:
        Version(expected or "")
    except InvalidVersion:
        expected = None
    assert release_version(subject) == expected
