"""Context files and mappings: bad input is a ContextError naming the file, key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import Context, ContextError, load_context
from catalog.schema.context import Environment, coerce_context


def test_a_toml_context_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "ctx.toml"
    path.write_text('tools = ["Bash"]\n[env]\nos = "Linux"\n', encoding="utf-8")
    assert load_context(path) == Context(tools=("Bash",), env=Environment(os="Linux"))


def test_a_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    toml, json = tmp_path / "ctx.toml", tmp_path / "ctx.json"
    toml.write_bytes(b'\xef\xbb\xbftools = ["Bash"]\n')
    json.write_bytes(b'\xef\xbb\xbf{"tools": ["Bash"]}')
    assert load_context(toml).tools == load_context(json).tools == ("Bash",)


@pytest.mark.parametrize(
    ("name", "text", "line", "words"),
    [
        ("ctx.toml", 'tools = ["Bash"]\n\n[env\n', 3, "invalid TOML"),
        ("ctx.json", '{\n  "tools": ["Bash",]\n}', 2, "invalid JSON"),
    ],
)
def test_a_syntax_error_names_the_line(
    tmp_path: Path, name: str, text: str, line: int, words: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ContextError) as info:
        load_context(path)
    assert (info.value.file, info.value.line) == (str(path), line)
    assert words in info.value.message


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("ctx.toml", '{"tools": ["Bash"]}\n', "this looks like JSON"),
        ("ctx.toml", '\ufeff\n  [{"tools": ["Bash"]}]', "this looks like JSON"),
        ("ctx.json", 'tools = ["Bash"]\n', "TOML goes in a .toml file"),
    ],
)
def test_a_context_in_the_other_format_is_told_by_its_hint(
    tmp_path: Path, name: str, text: str, words: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ContextError) as info:
        load_context(path)
    assert words in (info.value.hint or "")


def test_a_context_that_is_not_an_object_shows_what_one_looks_like(tmp_path: Path) -> None:
    path = tmp_path / "ctx.json"
    path.write_text('["Bash"]', encoding="utf-8")
    with pytest.raises(ContextError) as info:
        load_context(path)
    assert info.value.message == "the context must be a table/object at the top level"
    assert info.value.hint == 'write its fields as keys of one object: {"tools": ["Bash"]}'


def test_a_file_not_named_json_is_read_as_toml_and_the_hint_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ctx.yaml"
    path.write_text("tools: [Bash]\n", encoding="utf-8")
    with pytest.raises(ContextError) as info:
        load_context(path)
    assert "unless its name ends in .json" in (info.value.hint or "")


@pytest.mark.parametrize(
    ("data", "key", "message"),
    [
        ({"envv": {}}, "envv", "unknown key 'envv'; did you mean 'env'?"),
        ({"env": {"oss": "Linux"}}, "env.oss", "unknown key 'oss'; did you mean 'os'?"),
        ({"nonsense": 1}, "nonsense", "unknown key 'nonsense'; remove it or check its spelling"),
        ({"tools": "Bash"}, "tools", "must be a list (an array), not text ('Bash')"),
        ({"env": ["Linux"]}, "env", "must be a table (an object), not a list"),
        ({"project_files": [{"content": "x"}]}, "project_files[0].path", "missing required key"),
        ({"features": [1]}, "features[0]", "must be text, not a number (1)"),
        ({"token_budget": 0}, "token_budget", "must be greater than 0, not 0"),
    ],
)
def test_invalid_values_name_the_key_in_plain_words(
    data: dict[str, object], key: str, message: str
) -> None:
    with pytest.raises(ContextError) as info:
        coerce_context(data, source="ctx.json")
    assert info.value.file == "ctx.json"
    assert info.value.key == key
    assert message in info.value.message
    assert "pydantic" not in str(info.value).lower() and "tuple" not in str(info.value)


def test_further_problems_are_listed() -> None:
    with pytest.raises(ContextError) as info:
        coerce_context({"tools": 1, "features": 2})
    assert [o.key for o in info.value.others] == ["features"]
    assert "\n  context: features: must be a list" in str(info.value)
