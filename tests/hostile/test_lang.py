"""Hostile templates and expressions: linear parsing, bounded output, a fixed budget.

Inputs are generated here: pathological bracket templates (unclosed tags by
the thousand, megabyte lines of tags), expressions that multiply text or
lists, bodies that loop over them. No test measures time: a quadratic or
exponential parse would make the suite hang, which is the failure shown;
scripts/bench_hostile.py prints the figures.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import astuple
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import load_dir
from catalog.cli import main
from catalog.errors import EvaluationBudgetError, EvaluationError, TemplateError
from catalog.lang.brackets import (
    MAX_TEMPLATE_LENGTH,
    _tags,
    find_references,
    render_brackets,
)
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY
from catalog.lang.template import compile_template
from catalog.lang.values import MAX_EVALUATION_COST, MAX_LIST_LENGTH

# The tag grammar as the old regular expression wrote it: an independent
# statement of what a tag is, used as the oracle for the hand-written scanner
# on short inputs (where its backtracking costs nothing).
_NAME = r"([a-z][a-z0-9_]*):([^\]\s][^\]\n]*)"
_ORACLE = re.compile(rf"\[(?:if +(!?){_NAME}|(else)|(endif)|{_NAME})\]")


def _oracle_tags(text: str) -> list[tuple[str, int, int, bool, str, str]]:
    found = []
    for m in _ORACLE.finditer(text):
        negate, if_type, if_name, is_else, is_endif, var_type, var_name = m.groups()
        if if_type is not None:
            found.append(("if", m.start(), m.end(), negate == "!", if_type, if_name.rstrip()))
        elif is_else or is_endif:
            found.append((is_else or is_endif, m.start(), m.end(), False, "", ""))
        else:
            found.append(("var", m.start(), m.end(), False, var_type, var_name.rstrip()))
    return found


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="[]:!if elsendab_1\n\t", max_size=80))
def test_the_scanner_finds_the_tags_the_grammar_defines(text: str) -> None:
    assert [astuple(tag) for tag in _tags(text)] == _oracle_tags(text)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["[if a:b]", "[if !a:b]", "[else]", "[endif]", "[a:b]", "[x:y ]", "\n", " ", "[", "t"]
        ),
        max_size=40,
    )
)
def test_rendering_tag_soup_matches_the_grammar(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert [astuple(tag) for tag in _tags(text)] == _oracle_tags(text)
    out = render_brackets(text, {"a:b": "V"})
    assert "[x:y ]" not in out or "[x:y ]" in text  # a missing value renders as nothing


@pytest.mark.parametrize(
    "template",
    [
        "[a:" * 20_000 + "\n]",  # the reported case: every "[" opened, closed on the next line
        "[a:" * 80_000 + "]",  # one tag holding the rest
        "[" * 250_000 + "]",
        "[if " + " " * 250_000 + "a:b]",
        "[if a:b][endif]" * 17_000,  # tags by the thousand on one line
        "  " * 100_000 + "[if a:b]x[endif]" * 3_000,
        "[" + "a" * 250_000 + ":b]",  # a type longer than any type
    ],
)
def test_pathological_templates_render_in_one_pass(template: str) -> None:
    assert len(template) <= MAX_TEMPLATE_LENGTH
    out = render_brackets(template, {"a:b": "V"})
    assert isinstance(out, str)
    find_references(template, "a")


def test_pathological_templates_keep_their_meaning() -> None:
    assert render_brackets("[a:" * 3 + "\n]", {"a:b": "V"}) == "[a:[a:[a:\n]"
    assert render_brackets("[if a:b][endif]" * 3 + "[a:b]", {"a:b": "V"}) == "V"
    assert render_brackets("[" * 5 + "a:b]", {"a:b": "V"}) == "[[[[V"
    long_type = "[" + "a" * 100 + ":b]"
    assert render_brackets(long_type, {}) == long_type


def test_a_template_over_the_size_limit_is_refused() -> None:
    with pytest.raises(EvaluationError, match=f"more than the limit of {MAX_TEMPLATE_LENGTH}"):
        render_brackets("[a:" * 350_000, {})


def test_bracket_output_is_bounded() -> None:
    template = "[file:big]" * 200
    with pytest.raises(EvaluationError, match="longer than 1000000 characters"):
        render_brackets(template, {"file:": {"big": "x" * 10_000}}, max_output=1_000_000)


# -- the evaluation budget


def _evaluate(source: str, **scope: Any) -> Any:
    return compile_expression(source, dict.fromkeys(scope, ANY))(scope)


def test_split_and_intersect_on_huge_generated_texts_stop_at_the_budget() -> None:
    source = "intersect(split(x), split(x))"
    with pytest.raises(EvaluationBudgetError) as caught:
        _evaluate(source, x="a " * 1_000_000)
    assert caught.value.expression == f"`{source}`"
    assert f"evaluation budget of {MAX_EVALUATION_COST} units" in str(caught.value)


def test_lists_past_the_item_limit_are_refused_before_they_exist() -> None:
    with pytest.raises(EvaluationError, match=f"more than the limit of {MAX_LIST_LENGTH}"):
        _evaluate('split(x, ",")', x="," * MAX_LIST_LENGTH)
    with pytest.raises(EvaluationError, match=f"more than the limit of {MAX_LIST_LENGTH}"):
        _evaluate("lines(x)", x="\n" * MAX_LIST_LENGTH)
    with pytest.raises(EvaluationError, match=f"more than the limit of {MAX_LIST_LENGTH}"):
        _evaluate("split(x)", x="a " * (MAX_LIST_LENGTH + 1))


def test_intersect_is_linear_and_keeps_its_meaning() -> None:
    many = [str(i) for i in range(200_000)]
    assert _evaluate("len(intersect(x, y))", x=many, y=many[::-1]) == 200_000
    assert _evaluate("intersect(x, y)", x=[[1], "a", [2]], y=[[2], "a"]) == ["a", [2]]


def test_a_loop_of_costly_placeholders_stops_at_the_budget() -> None:
    body = (
        "{% for i in items %}"
        '{{ len(replace(replace(t, "a", "aaaaaaaaaa"), "a", "aa")) }}'
        "{% endfor %}"
    )
    template = compile_template(body, {"items": ANY, "t": ANY})
    assert template.render({"items": [1], "t": "ab"}) == "21"
    with pytest.raises(EvaluationBudgetError) as caught:
        template.render({"items": list(range(100)), "t": "a" * 100_000})
    assert (caught.value.line, caught.value.column) == (1, 23)  # where the placeholder starts
    assert "replace(replace(t" in str(caught.value)


def test_the_budget_is_fresh_for_each_evaluation() -> None:
    expression = compile_expression('replace(t, "a", "bb")', {"t": ANY})
    text = "a" * 5_000_000  # each call spends about three quarters of the budget
    for _ in range(3):
        assert len(expression({"t": text})) == 10_000_000


def test_a_brackets_template_built_by_string_functions_is_bounded() -> None:
    source = 'brackets(replace(t, "x", "[if a:b][a:b][endif]"), {"a:b": v})'
    with pytest.raises(EvaluationError):
        _evaluate(source.replace('{"a:b": v}', "m"), t="x" * 20_000, m={"a:b": "v" * 1000})


def test_over_budget_while_assembling_names_the_file_part_and_expression(
    make_catalog: Callable[..., Path],
) -> None:
    body = "Intro\n{{ len(intersect(split(blob), split(blob))) }}\n"
    folder = make_catalog(
        parts=[{"id": "greedy", "body": body}],
        variables=[{"name": "blob", "type": "str", "default": ""}],
    )
    cat = load_dir(folder)
    assert cat.assemble({}).text.startswith("Intro")
    with pytest.raises(EvaluationBudgetError) as caught:
        cat.assemble({"variables": {"blob": "w " * 1_000_000}})
    message = str(caught.value)
    assert message.startswith(f"{folder / 'greedy.md'}:2:")
    assert "part 'greedy'" in message
    assert "`len(intersect(split(blob), split(blob)))`" in message


@pytest.mark.parametrize(
    "body",
    [
        '{{ "' * 50_000,  # unclosed tags whose quotes never balance
        "{% for " + "a" * 200_000 + " %}",  # a malformed for with a long word
        "{% for x " + " " * 200_000 + "in %}",
        "{# c #}\n" * 100_000 + "{{ x",
        "{{" + " " * 300_000,
    ],
)
def test_pathological_bodies_are_refused_in_one_pass(body: str) -> None:
    with pytest.raises(TemplateError):
        compile_template(body, {"x": ANY})


def test_a_long_body_of_tags_compiles_and_renders() -> None:
    body = "{# c #}\n" * 50_000 + "{% if x %}{{ x }}{% endif %}\n" * 2_000
    assert compile_template(body, {"x": ANY}).render({"x": "v"}) == "v\n" * 2_000


def test_the_cli_reports_a_spent_budget_in_one_message(
    make_catalog: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        parts=[{"id": "greedy", "body": "{{ len(intersect(split(blob), split(blob))) }}"}],
        variables=[{"name": "blob", "type": "str", "default": "w " * 1_000_000}],
    )
    assert main(["assemble", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"catalog: error: {folder / 'greedy.md'}:1:")
    assert "part 'greedy'" in err and "Traceback" not in err
