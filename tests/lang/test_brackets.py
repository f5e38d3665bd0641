"""The bracket dialect for user templates, the functions added for it, and `catalog variables`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import ManifestError, load_dir
from catalog.cli import main
from catalog.errors import EvaluationError, ExpressionError
from catalog.lang.brackets import find_references, render_brackets
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY

BINDINGS: dict[str, Any] = {
    "system:date": "2025-01-31",
    "git:branch": "main",
    "git:status": "",
    "flag:on": True,
    "flag:off": False,
    "file:": {"AGENTS.md": "Be brief.", "empty.md": "  \n"},
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("Today is [system:date].", "Today is 2025-01-31."),
        ("[file:AGENTS.md]|[file:missing.md]|", "Be brief.||"),
        ("a[unknown:thing]b[system:nope]c", "abc"),
        ("[if git:branch]on [git:branch][endif]", "on main"),
        ("[if git:status]dirty[else]clean[endif]", "clean"),
        ("[if !git:status]clean[endif][if !git:branch]x[endif]", "clean"),
        ("[if flag:on]1[endif][if flag:off]2[endif][if file:empty.md]3[endif]", "1"),
        ("[if git:branch][if !git:status]A[else]B[endif][else]C[endif]", "A"),
        ("[if git:status][if git:branch]A[endif][else][if flag:on]D[endif][endif]", "D"),
        ("x [endif] y [else] z", "x [endif] y [else] z"),
        ("[if git:branch]never closed", "[if git:branch]never closed"),
        ("[if git:branch]a[else]b[else]c[endif]", "a"),
        ("[if git:status]a[else]b[else]c[endif]", "b[else]c"),
        ("[note: a remark] [link](x) [x:]", "[note: a remark] [link](x) [x:]"),
        ("[if unknown:x]no[else]yes[endif]", "yes"),
        ("[if git:branch ]on [git:branch  ][endif]", "on main"),
    ],
)
def test_render(template: str, expected: str) -> None:
    assert render_brackets(template, BINDINGS) == expected


def test_tag_lines_disappear_and_values_are_data() -> None:
    template = "Intro\n[if file:AGENTS.md]\n## AGENTS.md\n  [file:AGENTS.md]\n[endif]\nEnd [if x:y]"
    bindings = {**BINDINGS, "file:": {"AGENTS.md": "[system:date] [if git:branch]raw[endif]"}}
    assert render_brackets(template, bindings) == (
        "Intro\n## AGENTS.md\n  [system:date] [if git:branch]raw[endif]\nEnd [if x:y]"
    )


def test_nesting_deeper_than_the_limit_stays_literal() -> None:
    deep = "[if flag:on]" * 40 + "x" + "[endif]" * 40
    out = render_brackets(deep, BINDINGS)
    assert out.count("[if flag:on]") == 8 and out.count("[endif]") == 8 and "x" in out


def test_find_references() -> None:
    text = "[file:a.md] [if !file:b.md][file:a.md][endif] [git:branch] [if file:c.md]"
    assert find_references(text, "file") == ["a.md", "b.md", "c.md"]


def call(source: str, **scope: Any) -> Any:
    return compile_expression(source, dict.fromkeys(scope, ANY))(scope)


def test_new_list_functions() -> None:
    assert call("flatten(x)", x=[[1, 2], 3, (4,)]) == [1, 2, 3, 4]
    assert call('intersect(x, ["b", "c", "z"])', x=["a", "c", "b"]) == ["c", "b"]
    assert call("compact(x)", x=[None, "", "a", 0, [], "b"]) == ["a", 0, "b"]
    assert call('pick(m, ["b", "x", "a"])', m={"a": 1, "b": 2}) == [2, 1]
    assert call('brackets("[a:b]!", m)', m={"a:b": "hi"}) == "hi!"


def test_brackets_refuses_a_non_mapping() -> None:
    with pytest.raises(EvaluationError, match="expected a mapping of bindings"):
        call('brackets("x", 3)')


@pytest.fixture
def bound(make_catalog: Callable[..., Path]) -> Path:
    return make_catalog(
        parts=[{"id": "p", "body": "{{ brackets(template, bindings) }}"}],
        variables=[
            {
                "name": "template",
                "type": "str",
                "default": "[prompt:cwd] [file:A.md]",
                "description": "the user's template",
            },
            {"name": "names", "type": "map", "default": {"read": "Reads"}},
        ],
        extra={
            "binding": [
                {"name": "prompt:cwd", "value": "env.cwd", "description": "working directory"},
                {"name": "file:", "source": "file", "description": "a file's text"},
            ]
        },
    )


def test_bindings_resolve_from_the_context(bound: Path) -> None:
    cat = load_dir(bound)
    text = cat.assemble({"env": {"cwd": "/src"}, "files": {"A.md": "aaa"}}).text
    assert text == "/src aaa"
    assert [b.name for b in cat.bindings] == ["prompt:cwd", "file:"]


def test_a_binding_expression_is_checked_when_loading(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        parts=[{"id": "p"}], extra={"binding": [{"name": "prompt:cwd", "value": "env.cwdd"}]}
    )
    with pytest.raises(ExpressionError, match="has no attribute 'cwdd'") as caught:
        load_dir(folder)
    assert caught.value.key == "binding[0].value"


@pytest.mark.parametrize(
    ("binding", "message"),
    [
        ({"name": "file:"}, "exactly one of"),
        ({"name": "file:x", "source": "file"}, "ends in ':'"),
        ({"name": "Bad:x", "value": "1"}, "must match the pattern"),
    ],
)
def test_malformed_bindings(
    make_catalog: Callable[..., Path], binding: dict[str, str], message: str
) -> None:
    folder = make_catalog(parts=[{"id": "p"}], extra={"binding": [binding]})
    with pytest.raises(ManifestError, match=message):
        load_dir(folder)


def test_variables_command(bound: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variables", str(bound)]) == 0
    out = capsys.readouterr().out
    assert "template" in out and "the user's template" in out
    assert "[prompt:cwd]" in out and "env.cwd" in out
    assert "[file:NAME]" in out and "from files" in out
    assert main(["variables", str(bound), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [v["name"] for v in data["variables"]] == ["template", "names"]
    assert data["variables"][1] == {
        "name": "names",
        "type": "map",
        "default": {"read": "Reads"},
        "description": "",
    }
    assert data["bindings"][1]["dynamic"] is True


def test_a_map_variable_is_set_from_the_command_line(
    bound: Path, capsys: pytest.CaptureFixture[str], make_catalog: Callable[..., Path]
) -> None:
    folder = make_catalog(
        "maps",
        parts=[{"id": "p", "body": "{{ names.read }}/{{ names.write }}"}],
        variables=[{"name": "names", "type": "map", "default": {"read": "Reads"}}],
    )
    assert main(["assemble", str(folder)]) == 0
    assert capsys.readouterr().out == "Reads/\n"
    assert main(["assemble", str(folder), "--set", 'names={"write": "W"}']) == 0
    assert capsys.readouterr().out == "/W\n"


def test_a_variable_may_not_shadow_bindings(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        parts=[{"id": "p"}],
        variables=[{"name": "bindings", "type": "str"}],
        extra={"binding": [{"name": "a:b", "value": "1"}]},
    )
    with pytest.raises(ManifestError, match="variable 'bindings' shadows"):
        load_dir(folder)


def test_variables_and_show_write_a_map_default_alike_with_keys_sorted(
    make_catalog: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    default = {"write": "Writes", "read": "Reads"}
    folder = make_catalog(
        parts=[{"id": "p"}], variables=[{"name": "names", "type": "map", "default": default}]
    )
    written = '{"read": "Reads", "write": "Writes"}'
    assert main(["variables", str(folder)]) == 0
    assert f"names                  map   default {written}\n" in capsys.readouterr().out
    assert main(["show", str(folder)]) == 0
    assert f"variable names: map = {written}  \n" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("template", "nonblank", "defined"),
    [
        ("[if git:status]clean repo[else]none[endif]", "none", "clean repo"),
        ("[if file:empty.md]exists[endif]", "", "exists"),
        ("[if !file:missing.md]missing[endif]", "missing", "missing"),
        ("[if flag:off]false is a value[endif]", "", "false is a value"),
    ],
)
def test_if_tests_non_blank_values_or_with_defined_any_value_but_none(
    template: str, nonblank: str, defined: str
) -> None:
    assert render_brackets(template, BINDINGS) == nonblank
    assert render_brackets(template, BINDINGS, defined=True) == defined
    expression = compile_expression(f"brackets(t, b, {'defined'!r})", {"t": ANY, "b": ANY})
    assert expression.evaluate({"t": template, "b": BINDINGS}) == defined


def test_brackets_refuses_an_unknown_test() -> None:
    expression = compile_expression('brackets("x", none, "maybe")', {})
    with pytest.raises(EvaluationError, match="'nonblank', 'defined'"):
        expression.evaluate({})
