"""The TOML position helper, and error lines that stay exact in a catalog of 10,000 parts."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from catalog import ManifestError, load_dir
from catalog.errors import CatalogError, ExpressionError
from catalog.io.positions import TomlPositions, key_lines

TRICKY = '''\
title = "top"   # a comment
"quoted.key" = 1
dotted.inner = 2

[[part]]
id = "a"
body = """
[[part]]
id = "not a part: inside a string"
"""
literal = \'\'\'
[catalog]
\'\'\'
agents = [
  "main",   # first
  "explore",
]
meta = { name = "x", nested = { deep = [1, 2] } }

[[part]]
id = "b"
escaped = "a \\" [[part]] quote"

[part.meta]
name = "b's meta"

[[sources.files]]
names = ["AGENTS.md"]
'''


def _line_of(text: str, needle: str) -> int:
    """The 1-based line where ``needle`` first appears: the test's own count."""
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        (("title",), "title ="),
        (("quoted.key",), '"quoted.key"'),
        (("dotted", "inner"), "dotted.inner"),
        (("dotted",), "dotted.inner"),
        (("part",), '[[part]]\nid = "a"'),
        (("part", 0, "body"), "body ="),
        (("part", 0, "literal"), "literal ="),
        (("part", 0, "agents"), "agents ="),
        (("part", 0, "agents", 1), '"explore"'),
        (("part", 0, "meta", "name"), "meta = {"),
        (("part", 0, "meta", "nested", "deep", 1), "meta = {"),
        (("part", 1), '[[part]]\nid = "b"'),
        (("part", 1, "id"), 'id = "b"'),
        (("part", 1, "escaped"), "escaped ="),
        (("part", 1, "meta"), "[part.meta]"),
        (("part", 1, "meta", "name"), 'name = "b\'s meta"'),
        (("sources", "files", 0, "names", 0), "names ="),
        (("part", 1, "meta", "missing"), "[part.meta]"),  # closest: the table
    ],
)
def test_every_kind_of_key_is_found_on_its_line(path: tuple[str | int, ...], needle: str) -> None:
    assert TomlPositions(TRICKY).line(path) == _line_of(TRICKY, needle)


def test_a_header_inside_a_multi_line_string_is_not_a_table() -> None:
    positions = TomlPositions(TRICKY)
    assert positions.span(("part", 2)) is None
    assert positions.span(("catalog",)) is None


@pytest.mark.parametrize("path", [("part", 2, "id"), ("missing",), ("sources", "files", 1), ()])
def test_what_the_text_does_not_hold_has_no_line(path: tuple[str | int, ...]) -> None:
    assert TomlPositions(TRICKY).line(path) is None


def test_value_spans_cover_the_value_exactly() -> None:
    positions = TomlPositions(TRICKY)
    for path, value in [
        (("part", 1, "escaped"), '"a \\" [[part]] quote"'),
        (("part", 0, "agents", 0), '"main"'),
        (("title",), '"top"'),
    ]:
        span = positions.span(path)
        assert span is not None
        assert TRICKY[span.value_start : span.value_end] == value


@pytest.mark.parametrize(
    "text",
    [
        "[[",
        "a = [1, 2",
        'a = """never closed',
        "= 5\n[x\n",
        "a = {b = ",
        "[" * 5000,
        "a = " + "[" * 5000,
        "\x00\x01 weird = }",
        " " * 50_000 + "[t]\n" + "\n" * 50_000 + "# c\n" * 10_000 + "a.b = 1",
        "\t \n" * 30_000 + "x = " + "1" * 50_000 + " y",
    ],
)
def test_text_that_is_not_toml_never_fails(text: str) -> None:
    # Long runs of blank space and comments before something that is not a plain
    # key: a pattern that backtracked over them would never finish.
    positions = TomlPositions(text)
    positions.line(("a",))
    positions.line(("x", 0, "y"))


def test_the_index_is_built_only_when_a_line_is_asked_for() -> None:
    calls: list[tuple[str | int, ...]] = []

    def lookup(path: object) -> int | None:
        calls.append(tuple(path))  # type: ignore[arg-type]
        return 7

    placed = CatalogError("x", file="f", line=3).located(file="g", lines=lookup)
    assert (placed.file, placed.line) == ("f", 3)
    assert calls == []  # already placed: no line was looked up
    placed = CatalogError("x", key="when").located(file="g", key=("part", 2), lines=lookup)
    assert (placed.file, placed.key, placed.line) == ("g", "part[2].when", 7)
    assert calls == [("part", 2, "when")]


# --------------------------------------------------------------------------
# Error lines in a big catalog


PARTS = 10_000
BODY = "Some guidance.\n"


def _big_catalog(root: Path, bad: dict[str, str]) -> Path:
    """A version of PARTS parts sharing one body; ``bad`` replaces a line of part 9,999."""
    folder = root / "big" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "body.md").write_text(BODY, encoding="utf-8")
    digest = hashlib.sha256(BODY.encode()).hexdigest()
    lines = ['[catalog]\nname = "big"\nversion = "1.0.0"\n']
    for index in range(PARTS):
        part = (
            f'\n[[part]]\nid = "p{index}"\nfile = "body.md"\norder = {index}\n'
            f'when = "true"\ntokens = 4\nsha256 = "{digest}"\n'
        )
        if index == PARTS - 1:
            for old, new in bad.items():
                part = part.replace(old, new)
        lines.append(part)
    (folder / "catalog.toml").write_text("".join(lines), encoding="utf-8")
    return folder


def _expected_line(folder: Path, needle: str) -> int:
    text = (folder / "catalog.toml").read_text(encoding="utf-8")
    return text[: text.rindex(needle)].count("\n") + 1


@pytest.mark.parametrize(
    ("bad", "needle", "error", "key"),
    [
        ({'when = "true"': 'when = "tols"'}, "when =", ExpressionError, "part[9999].when"),
        ({'when = "true"': 'when = "false"'}, "when =", ManifestError, "part[9999].when"),
        ({'file = "body.md"': 'file = "gone.md"'}, "file =", ManifestError, "part[9999].file"),
        (
            {"sha256 = ": 'sha256 = "' + "0" * 64 + '"\n#'},
            "sha256 =",
            ManifestError,
            "part[9999].sha256",
        ),
        ({"tokens = 4": 'tokens = "four"'}, "tokens =", ManifestError, "part[9999].tokens"),
    ],
)
def test_the_last_of_10000_parts_is_reported_at_its_own_line(
    tmp_path: Path, bad: dict[str, str], needle: str, error: type[Exception], key: str
) -> None:
    folder = _big_catalog(tmp_path, bad)
    with pytest.raises(error) as caught:
        load_dir(folder)
    assert isinstance(caught.value, CatalogError)
    assert caught.value.file == str(folder / "catalog.toml")
    assert caught.value.line == _expected_line(folder, needle)
    assert caught.value.key == key


def test_key_lines_answers_for_the_text_it_was_given() -> None:
    text = "[a]\nb = 1\n"
    assert key_lines(text)(("a", "b")) == 2
    assert key_lines("x = 1\n[a]\nb = 1\n")(("a", "b")) == 3
