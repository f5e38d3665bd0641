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
    lines = text.count("\n") + 1
    for path in (("a",), ("x", 0, "y")):
        found = positions.line(path)
        assert found is None or 1 <= found <= lines, found


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


# -- every position is the file's line and column


def _catalog(tmp_path: Path, manifest: str, **bodies: str) -> Path:
    """A version folder whose manifest is ``manifest`` with ``{sha:ID}`` filled in."""
    folder = tmp_path / "demo" / "1.0.0"
    folder.mkdir(parents=True)
    for part_id, body in bodies.items():
        (folder / f"{part_id}.md").write_text(body, encoding="utf-8")
        digest = hashlib.sha256(body.encode()).hexdigest()
        manifest = manifest.replace(f"{{sha:{part_id}}}", digest)
    (folder / "catalog.toml").write_text(manifest, encoding="utf-8")
    return folder


_HEAD = '[catalog]\nname = "demo"\nversion = "1.0.0"\n\n'


def _part(when: str) -> str:
    return (
        f'[[part]]\nid = "a"\nfile = "a.md"\norder = 10\n{when}\ntokens = 1\nsha256 = "{{sha:a}}"\n'
    )


def test_a_toml_syntax_error_is_at_its_own_line_and_column(tmp_path: Path) -> None:
    # "Expected newline or end of document after a statement": about line 8, not the end.
    text = _HEAD + _part("").replace("order = 10", "order = 20 oops") + "\n# more\n# lines\n"
    folder = _catalog(tmp_path, text, a="A.")
    with pytest.raises(ManifestError) as info:
        load_dir(folder)
    assert (info.value.line, info.value.column) == (8, 12)
    assert text.splitlines()[7][11:] == "oops"
    assert str(info.value).startswith(f"{folder / 'catalog.toml'}:8:12: invalid TOML: Expected")
    assert "(at line" not in str(info.value)


def test_an_unclosed_value_is_reported_at_the_end_of_the_file(tmp_path: Path) -> None:
    folder = _catalog(tmp_path, _HEAD + 'summary = """never closed\n\nmore\n', a="A.")
    with pytest.raises(ManifestError) as info:
        load_dir(folder)
    assert info.value.line == 7 and "Unterminated string" in info.value.message


def test_a_json_syntax_error_has_its_column(tmp_path: Path) -> None:
    from catalog.io.contexts import load_context

    path = tmp_path / "ctx.json"
    path.write_text('{\n  "tools": ["Read",]\n}\n', encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_context(path)
    assert (info.value.line, info.value.column) == (2, 20)


@pytest.mark.parametrize(
    ("when", "line", "column"),
    [
        pytest.param("""when = '"Bash" in tols'""", 9, 19, id="literal string"),
        pytest.param('when = "\\"Bash\\" in tols"', 9, 21, id="escaped quotes"),
        pytest.param('when = "\\u0022x\\u0022 in tols"', 9, 26, id="unicode escapes"),
        pytest.param('when = """\n("Bash" in tools\n  or tols)"""', 11, 6, id="multi-line"),
        pytest.param("when = '''\n'Bash' in tols'''", 10, 11, id="multi-line literal"),
        pytest.param('when = """"Bash" in \\\n    tols"""', 10, 5, id="line-ending backslash"),
        pytest.param("when = \"'héllo' in tols\"", 9, 20, id="not ascii"),
    ],
)
def test_a_condition_error_is_at_the_files_line_and_column(
    tmp_path: Path, when: str, line: int, column: int
) -> None:
    text = _HEAD + _part(when)
    folder = _catalog(tmp_path, text, a="A.")
    with pytest.raises(ExpressionError) as info:
        load_dir(folder)
    error = info.value
    assert (error.key, error.line, error.column) == ("part[0].when", line, column)
    assert text.splitlines()[line - 1][column - 1 : column + 3] == "tols"
    assert f"catalog.toml:{line}:{column}: part[0].when: unknown name 'tols'" in str(error)


def test_a_condition_of_the_kinds_defaults_is_placed_in_its_table(tmp_path: Path) -> None:
    text = _HEAD + "[defaults.system]\nwhen = 'part.id in toolz'\n\n" + _part("")
    folder = _catalog(tmp_path, text, a="A.")
    with pytest.raises(ExpressionError) as info:
        load_dir(folder)
    assert (info.value.key, info.value.line, info.value.column) == ("defaults.system.when", 6, 20)


def test_a_condition_in_a_shared_parts_file_is_placed_there(tmp_path: Path) -> None:
    parts = _part("when = 'len(toolz) > 0'").replace("order = 10", "order = 10  # shared")
    shared = tmp_path / "demo" / "_parts.toml"
    folder = _catalog(tmp_path, _HEAD, a="A.")
    shared.write_text(parts.replace("{sha:a}", hashlib.sha256(b"A.").hexdigest()), encoding="utf-8")
    digest = hashlib.sha256(shared.read_bytes()).hexdigest()
    (folder / "catalog.toml").write_text(
        _HEAD + f'[[parts_from]]\nfile = "../_parts.toml"\nsha256 = "{digest}"\n', encoding="utf-8"
    )
    with pytest.raises(ExpressionError) as info:
        load_dir(folder)
    error = info.value
    assert (error.file, error.line, error.column) == (str(shared), 5, 13)
