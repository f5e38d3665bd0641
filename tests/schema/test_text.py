"""Texts no UTF-8 writer can encode: JSON's ``"\\ud800"`` is valid JSON that gives a lone
surrogate, which used to reach a fingerprint or stdout and end in a traceback. One check
(``text_problem``) refuses them wherever parsed data comes in, naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import load
from catalog.errors import ContextError
from catalog.io.contexts import load_context
from catalog.io.textfile import parse_json
from catalog.schema.context import coerce_context
from catalog.schema.text import text_problem
from tests.conftest import run_cli


@pytest.mark.parametrize(
    ("data", "where", "words"),
    [
        ("\ud800", "", "the text holds a lone surrogate (\\ud800)"),
        ({"env": {"cwd": "a\udfffb"}}, "env.cwd", "the text holds a lone surrogate (\\udfff)"),
        ({"files": {"x\udc80": "text"}}, "files", "the key 'x\\udc80' holds a lone surrogate"),
        ({"tools": ["Bash", "\ud83d"]}, "tools[1]", "lone surrogate (\\ud83d)"),
        ([[{"deep": ["ok", {"k": "\ud800"}]}]], "[0][0].deep[1].k", "lone surrogate"),
    ],
)
def test_the_check_names_where_a_lone_surrogate_is(data: object, where: str, words: str) -> None:
    problem = text_problem(data)
    assert problem is not None
    assert problem.where == where
    assert words in problem.message
    assert "\\u" in problem.hint  # says how to write such a character


def test_pairs_nul_and_other_values_are_fine_unless_nul_is_refused() -> None:
    fine = {"emoji": "\U0001f600", "text": "a\0b", "n": 1, "none": None, "list": [1.5, True]}
    assert text_problem(json.loads(json.dumps(fine))) is None
    problem = text_problem(fine, nul=True)
    assert problem is not None and problem.where == "text" and "NUL" in problem.message


def test_a_json_file_with_a_lone_surrogate_is_refused_naming_file_and_key() -> None:
    with pytest.raises(ContextError) as info:
        parse_json('{"env": {"cwd": "\\ud800"}}', "ctx.json", ContextError, "fix it")
    assert str(info.value).startswith("ctx.json: env.cwd: the text holds a lone surrogate")


def test_a_context_with_a_lone_surrogate_is_refused_before_assembling() -> None:
    with pytest.raises(ContextError, match=r"env\.cwd: the text holds a lone surrogate"):
        coerce_context({"env": {"cwd": "\ud800"}})
    with pytest.raises(ContextError, match="lone surrogate"):
        load("pi").assemble({"variables": {"\udc00": "x"}})


@pytest.mark.parametrize(
    ("args", "file_text", "words"),
    [
        (["--context", "{file}"], '{"env": {"cwd": "\\ud800"}}', "env.cwd: the text holds"),
        (["--context", "{file}"], '{"variables": {"\\udc80x": 1}}', "the key '\\udc80x'"),
        (["--set", 'env.cwd="\\ud800"'], None, "env.cwd: the text holds a lone surrogate"),
    ],
)
def test_the_command_line_says_so_and_exits_2(
    args: list[str],
    file_text: str | None,
    words: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = tmp_path / "context.json"
    if file_text is not None:
        file.write_text(file_text, encoding="utf-8")
    given = [arg.format(file=file) for arg in args]
    for command in ("assemble", "tokens"):
        code, out, err = run_cli(capsys, command, "pi", *given)
        assert (code, out) == (2, ""), err
        assert err.startswith("catalog: error: ")
        assert words in err and "Traceback" not in err
        if file_text is not None:
            assert str(file) in err


def test_a_toml_context_cannot_hold_one(tmp_path: Path) -> None:
    """TOML refuses a surrogate escape itself: the same error path, with a line."""
    file = tmp_path / "context.toml"
    file.write_text('[env]\ncwd = "\\ud800"\n', encoding="utf-8")
    with pytest.raises(ContextError, match=r"context\.toml:2:14: invalid TOML"):
        load_context(file)
