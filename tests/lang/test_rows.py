"""Rows: a body's values read once from a scope, and the body rendered from them."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.errors import EvaluationError
from catalog.lang.rows import row_reader, row_roots
from catalog.lang.shapes import ANY
from catalog.lang.template import compile_template
from catalog.schema.context import Environment


def test_the_keys_name_whole_names_then_the_paths_of_each_name() -> None:
    reader = row_reader({("tools",), ("env", "os"), ("env", "cwd"), ("x", "a", "b"), ("mode",)})
    assert reader.keys == ("mode", "tools", "env.cwd", "env.os", "x.a.b")
    scope = {
        "tools": ("Bash",),
        "mode": "plan",
        "env": Environment(cwd="/p", os="Linux"),
        "x": {"a": {"b": 3}},
    }
    values = reader.read(scope)
    assert values == ("plan", ("Bash",), "/p", "Linux", 3)
    assert reader.row(values) == {
        "mode": "plan",
        "tools": ("Bash",),
        "env.cwd": "/p",
        "env.os": "Linux",
        "x.a.b": 3,
    }


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (Environment(cwd="/p", os="Linux"), ("/p", "Linux")),  # declared fields, in one call
        ({"cwd": "/m", "os": "Mac"}, ("/m", "Mac")),  # a mapping: its keys
        ({"cwd": "/m"}, ("/m", None)),  # a missing key is none
        (None, (None, None)),  # safe navigation
        ("text", (None, None)),  # a value without those names
    ],
)
def test_paths_are_read_as_the_expression_language_reads_them(env: Any, expected: Any) -> None:
    reader = row_reader({("env", "cwd"), ("env", "os")})
    assert reader.read({"env": env}) == expected
    assert row_reader({("env", "cwd")}).read({"env": env}) == expected[:1]


def test_only_names_read_through_attributes_alone_have_their_paths_in_the_row() -> None:
    assert row_roots({("env", "cwd"), ("tools",), ("x", "a"), ("x",)}) == {"env"}
    assert row_reader({("x", "a"), ("x",)}).keys == ("x",)  # read whole: the path follows


def test_a_reader_of_names_read_whole_says_the_scope_holds_its_row() -> None:
    assert row_reader({("tools",)}).by_name
    assert row_reader({("tools",), ("mode",)}).by_name
    assert row_reader({("x", "a"), ("x",)}).by_name  # x is read whole
    assert not row_reader({("env", "cwd")}).by_name
    assert not row_reader({("env", "cwd"), ("tools",)}).by_name


_BODIES = [
    "{{ env.cwd }} on {{ env.os if env.os else 'unknown' }}: {{ join(tools, ', ') }}",
    "{% if env.os and lower(env.os) != 'linux' %}{{ env.os }}{% elif env.cwd %}at {{ env.cwd }}"
    "{% else %}nowhere{% endif %}",
    "{% if 'Bash' in tools %}bash{% endif %}{% for tool in tools %}[{{ loop.index }} {{ tool }}]"
    "{% endfor %}",
    # A loop variable named as a root of the row is the loop's, inside the loop.
    "{{ env.cwd }}{% for env in items %}<{{ env.cwd }}>{% endfor %}{{ env.os }}",
    "{% for item in items %}{{ item.cwd }}@{{ env.os }}{% endfor %}",
    "{{ x.a.b }} {{ x.a.c }} {{ env }}",
]
_SCOPES = [
    {
        "env": Environment(cwd="/p", os="Linux"),
        "tools": ("Bash", "Read"),
        "items": [{"cwd": "/1"}, {"cwd": "/2"}],
        "x": {"a": {"b": 1, "c": "two"}},
    },
    {
        "env": {"cwd": "/m", "os": "Darwin"},
        "tools": (),
        "items": [],
        "x": {"a": None},
    },
    {"env": None, "tools": None, "items": None, "x": None},
]


@pytest.mark.parametrize("body", _BODIES)
@pytest.mark.parametrize("scope", _SCOPES)
def test_a_body_rendered_from_its_row_writes_what_it_writes_from_the_scope(
    body: str, scope: dict[str, Any]
) -> None:
    names = dict.fromkeys(("env", "tools", "items", "x"), ANY)
    template = compile_template(body, names)
    reader = row_reader(template.reads)
    by_row = compile_template(body, names, rows=row_roots(template.reads))
    assert by_row.reads == template.reads
    row = reader.row(reader.read(scope))
    assert by_row.render(row) == template.render(scope)


def test_an_error_from_a_row_is_placed_where_the_expression_is_written() -> None:
    body = "line one\n{{ 1 + env.cwd }}"
    names = {"env": ANY}
    template = compile_template(body, names)
    reader = row_reader(template.reads)
    by_row = compile_template(body, names, rows=row_roots(template.reads))
    row = reader.row(reader.read({"env": {"cwd": "/p"}}))
    with pytest.raises(EvaluationError) as caught:
        by_row.render(row)
    assert (caught.value.line, caught.value.column) == (2, 6)
    assert "cannot apply '+' to number and text" in caught.value.message
