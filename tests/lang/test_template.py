"""Part bodies: every construct, the whitespace rule, errors, and data safety."""

from __future__ import annotations

import ast
from dataclasses import FrozenInstanceError
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from catalog.errors import CatalogError, EvaluationError, TemplateError
from catalog.lang.shapes import ANY, SCALAR, MappingShape, RecordShape, SequenceShape
from catalog.lang.template import (
    LOOP_SHAPE,
    MAX_BLOCK_DEPTH,
    MAX_LOOP_ITERATIONS,
    MAX_OUTPUT_LENGTH,
    compile_template,
)

SKILL = RecordShape({"name": SCALAR, "description": SCALAR, "hidden": SCALAR}, "Skill")
NAMES = {
    "tools": SequenceShape(SCALAR),
    "skills": SequenceShape(SKILL),
    "env": RecordShape({"os": SCALAR}, "Env"),
    "n": SCALAR,
    "s": SCALAR,
    "flag": SCALAR,
    "off": SCALAR,
    "none_value": SCALAR,
    "empty": SequenceShape(SCALAR),
    "data": MappingShape(SCALAR),
    "anything": ANY,
}
SCOPE: dict[str, Any] = {
    "tools": ["Bash", "Read"],
    "skills": [
        {"name": "pdf", "description": "Read PDFs", "hidden": False},
        {"name": "xlsx", "description": "Sheets", "hidden": True},
    ],
    "env": {"os": "linux"},
    "n": 3,
    "s": "World",
    "flag": True,
    "off": False,
    "none_value": None,
    "empty": [],
    "data": {"b": 2, "a": 1},
}


def render(body: str, **overrides: Any) -> str:
    return compile_template(body, NAMES).render(SCOPE | overrides)


CONSTRUCTS: list[tuple[str, str]] = [
    ("plain text", "plain text"),
    ("Hello {{ s }}!", "Hello World!"),
    ("{{ n + 1 }}", "4"),
    ("{{ tools }}", "Bash, Read"),
    ("{{ none_value }}", ""),
    ("{{ true }}/{{ false }}", "true/false"),
    ("{{ data }}", '{"a": 1, "b": 2}'),
    ('{{ "{{" }} x }}', "{{ x }}"),
    ("{{ '}}' }}", "}}"),
    ("{{ '%}' }}{{ \"#}\" }}", "%}#}"),
    ("{{\n  n\n}}", "3"),
    ("{%if n%}x{%endif%}", "x"),
    ("{% if n > 2 %}big{% endif %}", "big"),
    ("{% if n > 5 %}big{% endif %}", ""),
    ("{% if n > 5 %}big{% else %}small{% endif %}", "small"),
    (
        "{% if n == 1 %}one{% elif n == 3 %}three{% elif n == 3 %}again{% else %}other{% endif %}",
        "three",
    ),
    ("{% if n == 1 %}one{% elif n == 2 %}two{% else %}other{% endif %}", "other"),
    ("{% if none_value %}x{% elif empty %}y{% endif %}", ""),
    ("{% if anything.missing is none %}safe{% endif %}", "safe"),
    ("{% for t in tools %}[{{ t }}]{% endfor %}", "[Bash][Read]"),
    (
        "{% for t in tools %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.length }}"
        "{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %};{% endfor %}",
        "1/0/2F;2/1/2L;",
    ),
    ("{% for t in none_value %}x{% endfor %}", ""),
    ("{% for t in empty %}x{% endfor %}", ""),
    ("{% for c in s %}{{ c }}.{% endfor %}", "W.o.r.l.d."),
    (
        "{% for a in [1, 2] %}{% for b in ['x', 'y'] %}{{ a }}{{ b }}{{ loop.index }} "
        "{% endfor %}{% endfor %}",
        "1x1 1y2 2x1 2y2 ",
    ),
    ("{% for k in data %}{{ k }}={{ data[k] }};{% endfor %}", "b=2;a=1;"),
    ("{% for k in keys(data) %}{{ k }};{% endfor %}", "a;b;"),
    (
        "{% for s in skills %}{% if not s.hidden %}- {{ s.name }}: {{ s.description }}\n"
        "{% endif %}{% endfor %}",
        "- pdf: Read PDFs\n",
    ),
    ("{% for n in [7] %}{{ n }}{% endfor %}{{ n }}", "73"),
    ("{# comment #}text", "text"),
    ("a{# multi\nline {{ not parsed }} #}b", "ab"),
    ("{% if 'Bash' in tools %}{{ join(tools, ' ') }}{% endif %}", "Bash Read"),
    ("é{{ s }}ü{{ s }}", "éWorldüWorld"),
    ("{% if false %}text{% endif %}", ""),
    ("stray }} and %} and #} are text", "stray }} and %} and #} are text"),
    ("{ single { braces }", "{ single { braces }"),
]


@pytest.mark.parametrize(("body", "expected"), CONSTRUCTS)
def test_constructs(body: str, expected: str) -> None:
    assert render(body) == expected


WHITESPACE: list[tuple[str, str]] = [
    ("A\n{% if flag %}\nB\n{% endif %}\nC\n", "A\nB\nC\n"),
    ("A\n{% if off %}\nB\n{% endif %}\nC\n", "A\nC\n"),
    ("A\n{% if off %}\nB\n{% else %}\nD\n{% endif %}\nC\n", "A\nD\nC\n"),
    ("  {% if flag %}  \nB\n  {% endif %}\t\nC", "B\nC"),
    ("- {% if flag %}x{% endif %}\n", "- x\n"),
    ("{% for t in tools %}\n- {{ t }}\n{% endfor %}\n", "- Bash\n- Read\n"),
    (
        "# Tools\n\n{% for t in tools %}\n  - {{ t }}\n{% endfor %}\n\nEnd\n",
        "# Tools\n\n  - Bash\n  - Read\n\nEnd\n",
    ),
    ("{# note #}\nA\n", "A\n"),
    ("A\n{# note #}\n", "A\n"),
    ("A\n{# a comment\n   over lines #}\nB\n", "A\nB\n"),
    ("A\n{% if flag %}{% if flag %}\nB\n{% endif %}{% endif %}\nC", "A\nB\nC"),
    ("A\n{% if flag %} {% if flag %}\nB\n{% endif %}\t{% endif %}\nC", "A\nB\nC"),
    ("A\r\n{% if flag %}\r\nB\r\n{% endif %}\r\nC\r\n", "A\r\nB\r\nC\r\n"),
    ("{{ s }}\n{% if flag %}\nB\n{% endif %}", "World\nB\n"),
    ("A {% if flag %}\nB\n{% endif %} C", "A \nB\n C"),
    ("{% if flag %}{{ s }}{% endif %}\n", "World\n"),
    ("A\n\n{% if off %}\nB\n{% endif %}\n\nC\n", "A\n\n\nC\n"),
    ("{% if flag %}\n{% endif %}", ""),
    ("A\n    {# indented comment #}\n    B\n", "A\n    B\n"),
    ("{% if flag %}A{% endif %}", "A"),
    ("A\n{% for t in tools %}{{ t }}{% endfor %}\nB", "A\nBashRead\nB"),
    ("x{# c #}\ny", "x\ny"),
    ("{% if flag %}\n\n{% endif %}", "\n"),
]


@pytest.mark.parametrize(("body", "expected"), WHITESPACE)
def test_whitespace_rule(body: str, expected: str) -> None:
    assert render(body) == expected


ERRORS: list[tuple[str, str, int, int]] = [
    ("{{ x", "'{{' is never closed", 1, 1),
    ("ab\ncd {% if", "'{%' is never closed", 2, 4),
    ("{# note", "'{#' is never closed", 1, 1),
    ("{% foo %}", "unknown tag 'foo'", 1, 1),
    ("{% %}", "empty tag", 1, 1),
    ("{%- if n %}{% endif %}", "unknown tag '-'", 1, 1),
    ("a\n  {% endif %}", "'endif' without a matching 'if'", 2, 3),
    ("{% endfor %}", "'endfor' without a matching 'for'", 1, 1),
    ("{% else %}", "'else' without a matching 'if'", 1, 1),
    ("{% elif n %}", "'elif' without a matching 'if'", 1, 1),
    ("{% for t in tools %}{% else %}{% endfor %}", "'else' found, but the open block", 1, 21),
    ("line\n{% if n %}\nx\n", "the 'if' block opened on line 2 is never closed", 2, 1),
    ("{% for t in tools %}\n{% if n %}\n{% endfor %}", "the 'if' of line 2", 3, 1),
    ("{% if n %}{% else %}{% elif n %}{% endif %}", "'elif' after 'else'", 1, 21),
    ("{% if n %}{% else %}{% else %}{% endif %}", "a second 'else'", 1, 21),
    ("{% for t tools %}{% endfor %}", "malformed 'for'", 1, 1),
    ("{% for %}{% endfor %}", "malformed 'for'", 1, 1),
    ("{% for 1t in tools %}{% endfor %}", "not a valid loop variable name", 1, 8),
    ("{% for in in tools %}{% endfor %}", "not a valid loop variable name", 1, 8),
    ("{% for _t in tools %}{% endfor %}", "cannot be a loop variable name", 1, 8),
    ("{% for loop in tools %}{% endfor %}", "cannot be a loop variable name", 1, 8),
    ("{% for true in tools %}{% endfor %}", "cannot be a loop variable name", 1, 8),
    ("{% for t in %}{% endfor %}", "empty expression", 1, 13),
    ("{% for t in env %}{% endfor %}", "cannot be iterated", 1, 13),
    ("{% if n %}{% else if n %}{% endif %}", "'else' takes nothing after it", 1, 11),
    ("{% if n %}{% endif x %}", "'endif' takes nothing after it", 1, 11),
    ("Hi {{ tols }}", "unknown name 'tols'", 1, 7),
    ("a\n\n  {% if n * 2 %}{% endif %}", "operator '*' is not allowed", 3, 11),
    ("{% for t in n.x %}{% endfor %}", "has no attribute 'x'", 1, 15),
    ("{{ }}", "empty expression", 1, 3),
    ("{% if %}{% endif %}", "empty expression", 1, 6),
    ("{% for t in tools %}{{ loop.nope }}{% endfor %}", "has no attribute 'nope'", 1, 29),
    ("{% for t in tools %}{% endfor %}{{ t }}", "unknown name 't'", 1, 36),
    ("x {{ 'it }}", "unterminated string", 1, 6),
    ("{{ lambda: 1 }}", "lambda is not allowed", 1, 4),
    ("{{ n }}\n  {{ x.__class__ }}", "names starting with '_'", 2, 8),
]


@pytest.mark.parametrize(("body", "message", "line", "column"), ERRORS)
def test_errors(body: str, message: str, line: int, column: int) -> None:
    with pytest.raises(TemplateError) as caught:
        compile_template(body, NAMES)
    assert message in caught.value.message
    assert (caught.value.line, caught.value.column) == (line, column)


def test_unknown_tag_suggests() -> None:
    with pytest.raises(TemplateError) as caught:
        compile_template("{% endfro %}", NAMES)
    assert caught.value.hint is not None
    assert "did you mean 'endfor'" in caught.value.hint


def test_unclosed_block_hint_names_the_closer() -> None:
    with pytest.raises(TemplateError) as caught:
        compile_template("{% for t in tools %}\n", NAMES)
    assert caught.value.hint == "add {% endfor %}"


RENDER_ERRORS: list[tuple[str, str, int, int]] = [
    ("a\n{{ n < 'x' }}", "cannot apply '<' to number and text", 2, 6),
    ("{% for t in n %}{% endfor %}", "cannot loop over number", 1, 13),
    ("x\n{% if lower(n) %}{% endif %}", "lower(): expected text", 2, 7),
    ("{% if off %}{% elif n - 'a' %}{% endif %}", "cannot apply '-'", 1, 23),
    ("{% for t in tools %}\n  {{ t - 1 }}\n{% endfor %}", "cannot apply '-'", 2, 8),
]


@pytest.mark.parametrize(("body", "message", "line", "column"), RENDER_ERRORS)
def test_render_errors_carry_the_body_position(
    body: str, message: str, line: int, column: int
) -> None:
    template = compile_template(body, NAMES)
    with pytest.raises(EvaluationError) as caught:
        template.render(SCOPE)
    assert message in caught.value.message
    assert (caught.value.line, caught.value.column) == (line, column)


def test_bodies_sharing_a_cache_compile_each_expression_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from catalog.lang import compiler

    compiled: list[str] = []
    original = compiler.compile_expression

    def counting(source: str, names: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(source)
        return original(source, names, *args, **kwargs)

    monkeypatch.setattr(compiler, "compile_expression", counting)
    cache = compiler.ExpressionCache()
    first = compile_template("{{ n < s }}|{{ s }}", NAMES, cache)
    second = compile_template("a\nb {{ n < s }}|{{ s }}", NAMES, cache)
    assert compiled == [" n < s ", " s "]
    compile_template("{{ s }}", dict(NAMES), cache)  # an equal mapping, not the same one
    assert compiled == [" n < s ", " s ", " s "]
    # One compiled expression, each use placed where it is written.
    for template, line, column in ((first, 1, 6), (second, 2, 8)):
        with pytest.raises(EvaluationError) as caught:
            template.render(SCOPE)
        assert (caught.value.line, caught.value.column) == (line, column)
    # A failure is not kept: it is raised, where it is written, each time.
    for body, column in (("{{ nn }}", 4), ("x {{ nn }}", 6)):
        with pytest.raises(TemplateError, match="unknown name 'nn'") as failed:
            compile_template(body, NAMES, cache)
        assert failed.value.column == column


def test_inserted_values_are_never_parsed_again() -> None:
    tricky = "{{ n }} {% if true %}x{% endif %} {# c #} {% for %} {{"
    template = compile_template("<{{ s }}>|{% for t in tools %}{{ t }}{% endfor %}", NAMES)
    assert template.render(SCOPE | {"s": tricky, "tools": [tricky]}) == f"<{tricky}>|{tricky}"


@settings(max_examples=300, deadline=None)
@given(value=st.text())
def test_any_value_comes_out_unchanged(value: str) -> None:
    assert render("[{{ s }}]", s=value) == f"[{value}]"


def test_static_body_is_returned_as_is() -> None:
    body = "No tags { here } at all.\n"
    template = compile_template(body, NAMES)
    assert template.is_static
    assert template.names == frozenset()
    assert template.render({}) is body


def test_comment_only_body_is_not_static_but_constant() -> None:
    template = compile_template("A{# gone #}B", NAMES)
    assert not template.is_static
    assert template.render({}) == "AB"


def test_template_object() -> None:
    body = "{{ s }}{% for t in tools %}{{ t }}{{ loop.index }}{% endfor %}{% if n %}{% endif %}"
    template = compile_template(body, NAMES)
    assert template.source == body
    assert template.names == frozenset({"s", "tools", "n"})
    assert not template.is_static
    with pytest.raises(FrozenInstanceError):
        template.source = "x"  # type: ignore[misc]


def test_loop_variable_shadowing_an_outer_name_is_not_an_outer_use() -> None:
    template = compile_template("{% for s in tools %}{{ s }}{% endfor %}", NAMES)
    assert template.names == frozenset({"tools"})


def test_loop_shape() -> None:
    assert set(LOOP_SHAPE.fields) == {"index", "index0", "first", "last", "length"}


def test_render_does_not_touch_the_scope_and_can_repeat() -> None:
    template = compile_template("{% for t in tools %}{{ t }}{% endfor %}", NAMES)
    scope = {"tools": ["a", "b"]}
    assert template.render(scope) == "ab"
    assert scope == {"tools": ["a", "b"]}
    assert template.render({"tools": ["c"]}) == "c"
    assert template.render({}) == ""


def test_rendering_never_parses_again(monkeypatch: pytest.MonkeyPatch) -> None:
    template = compile_template("{% if n %}{{ upper(s) }}{% endif %}", NAMES)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed at render time")

    monkeypatch.setattr(ast, "parse", refuse)
    assert template.render(SCOPE) == "WORLD"


def test_block_depth_limit() -> None:
    assert MAX_BLOCK_DEPTH == 32
    deepest = "{% if flag %}" * 32 + "x" + "{% endif %}" * 32
    assert render(deepest) == "x"
    with pytest.raises(TemplateError, match="nested more than 32") as caught:
        compile_template("{% if flag %}" * 33 + "{% endif %}" * 33, NAMES)
    assert (caught.value.line, caught.value.column) == (1, 32 * len("{% if flag %}") + 1)


def test_loop_iterations_are_bounded() -> None:
    assert MAX_LOOP_ITERATIONS == 100_000
    names = {"xs": SequenceShape(SCALAR)}
    nested = compile_template("{% for a in xs %}{% for b in xs %}{% endfor %}{% endfor %}", names)
    assert nested.render({"xs": range(300)}) == ""
    with pytest.raises(EvaluationError, match="loop iterations"):
        nested.render({"xs": range(400)})


def test_output_length_is_bounded() -> None:
    names = {"xs": SequenceShape(SCALAR), "big": SCALAR}
    template = compile_template("{% for a in xs %}{{ big }}{% endfor %}", names)
    big = "x" * (MAX_OUTPUT_LENGTH // 10)
    assert len(template.render({"xs": range(10), "big": big})) == MAX_OUTPUT_LENGTH
    with pytest.raises(EvaluationError, match="longer than"):
        template.render({"xs": range(11), "big": big})


TEMPLATE_TOKENS = [
    "{{", "}}", "{%", "%}", "{#", "#}", " if ", " elif ", " else ", " endif ", " for ",
    " endfor ", " in ", "n", "tools", "t", "loop.index", "'", '"', "\n", " ", "x", "{", "}",
    "%", "#", "-", "é", "\r\n", "not ", "__class__", "(", ")",
]  # fmt: skip
template_soup = st.lists(st.sampled_from(TEMPLATE_TOKENS), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(body=st.text(max_size=300) | template_soup)
def test_compile_raises_only_library_errors(body: str) -> None:
    try:
        template = compile_template(body, NAMES)
    except CatalogError as exc:
        assert exc.message.strip(), body
        return
    try:
        assert isinstance(template.render(SCOPE), str)
    except EvaluationError as exc:
        assert exc.message.strip(), body


def _closer_one_character_at_a_time(source: str, start: int, closer: str) -> int:
    """The rule for where a tag closes, read one character at a time (the reference)."""
    quote = ""
    index = start
    while index < len(source):
        char = source[index]
        if quote:
            if char == "\\":
                index += 1
            elif char in (quote, "\n"):
                quote = ""
        elif char in "\"'":
            quote = char
        elif source.startswith(closer, index):
            return index
        index += 1
    return source.find(closer, start)


closer_soup = st.lists(
    st.sampled_from(['"', "'", "\\", "\n", "}", "}}", "%}", "#}", "a", " ", "{{"]), max_size=20
).map("".join)


@settings(max_examples=2000, deadline=None)
@given(source=closer_soup, start=st.integers(0, 2), closer=st.sampled_from(["}}", "%}", "#}"]))
@example(source='{{ "\\"}}" }}', start=2, closer="}}")
def test_a_tag_closes_where_the_character_rule_says(source: str, start: int, closer: str) -> None:
    from catalog.lang._lexing import _find_closer

    start = min(start, len(source))
    expected = _closer_one_character_at_a_time(source, start, closer)
    assert _find_closer(source, start, closer) == expected


@settings(max_examples=300, deadline=None)
@given(body=st.text(alphabet=st.characters(blacklist_characters="{")))
def test_text_without_tags_is_static(body: str) -> None:
    template = compile_template(body, NAMES)
    assert template.is_static
    assert template.render(SCOPE) == body
