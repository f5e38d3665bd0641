"""Bodies without loops render the same text, and raise the same error at the same
place, as inside a loop of one item (the walk every body takes)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.errors import CatalogError
from catalog.lang.shapes import ANY, SCALAR, RecordShape
from catalog.lang.template import compile_template

NAMES = {
    "a": ANY,
    "b": ANY,
    "n": ANY,
    "rec": RecordShape({"d": SCALAR}, "Rec"),
}
_VALUES = st.sampled_from(["", "x", "12", "Ab", None, True, False, 0, 3, ["p", "q"]])

_TESTS = st.sampled_from(
    ["a", "not b", "n > 1", "rec.d == 'x'", "int(a) > 0", "a and b", "len(b) == 2", "n"]
)
_WRITES = st.sampled_from(
    ["{{ a }}", "{{ b }}", "{{ rec.d }}", '{{ a if b else "z" }}', "{{ n + 1 }}", "{{ lower(a) }}"]
)
_TEXTS = st.sampled_from(["x", " ", "\n", "ab\n", "  ", "é"])


def _body(depth: int) -> st.SearchStrategy[str]:
    leaf = st.one_of(_TEXTS, _WRITES)
    if depth == 0:
        return st.lists(leaf, max_size=4).map("".join)
    inner = _body(depth - 1)
    block = st.builds(
        lambda test, then, elifs, orelse: (
            f"{{% if {test} %}}{then}"
            + "".join(f"{{% elif {t} %}}{b}" for t, b in elifs)
            + (f"{{% else %}}{orelse}" if orelse is not None else "")
            + "{% endif %}"
        ),
        _TESTS,
        inner,
        st.lists(st.tuples(_TESTS, inner), max_size=2),
        st.none() | inner,
    )
    return st.lists(st.one_of(leaf, block), max_size=5).map("".join)


def _outcome(source: str, scope: dict[str, Any], *, shift: int = 0) -> tuple[str, Any]:
    """The text a body renders, or its error: message, line (less ``shift``) and column."""
    try:
        return "text", compile_template(source, NAMES).render(scope)
    except CatalogError as exc:
        line = None if exc.line is None else exc.line - shift
        return "error", (type(exc).__name__, exc.message, line, exc.column)


def _walked(source: str, scope: dict[str, Any]) -> tuple[str, Any]:
    """What the step-by-step walk gives: the body in a loop of one item, whose tags
    stand on lines of their own (which vanish)."""
    return _outcome("{% for once in [1] %}\n" + source + "{% endfor %}", scope, shift=1)


@settings(max_examples=400, deadline=None)
@given(
    body=_body(3),
    a=_VALUES,
    b=_VALUES,
    n=_VALUES,
    d=_VALUES,
)
def test_a_body_renders_along_its_path_as_the_walk_renders_it(
    body: str, a: Any, b: Any, n: Any, d: Any
) -> None:
    source = body + "\n"
    scope = {"a": a, "b": b, "n": n, "rec": {"d": d}}
    assert _outcome(source, scope) == _walked(source, scope)


def test_each_branch_path_renders_its_own_text() -> None:
    template = compile_template(
        "{% if a %}A={{ a }}{% elif b %}B{% else %}none{% endif %};{% if n %} n={{ n }}{% endif %}",
        NAMES,
    )
    expected = {
        ("x", None, 0): "A=x;",
        ("", "y", 2): "B; n=2",
        ("", "", None): "none;",
        ("yes", None, "3"): "A=yes; n=3",
    }
    for _ in range(2):  # the second render of each the same
        for (a, b, n), text in expected.items():
            assert template.render({"a": a, "b": b, "n": n, "rec": None}) == text


@pytest.mark.parametrize(
    ("source", "scope", "message", "column"),
    [
        # The error of the first failing test or value in the body's order, as the
        # walk meets it: here a value written before a test that fails too.
        ("{{ n + 1 }}{% if int(a) > 0 %}x{% endif %}\n", {"n": "t", "a": "q"}, "'+'", 6),
        ("{% if int(a) > 0 %}x{% endif %}{{ n + 1 }}\n", {"n": "t", "a": "q"}, "int()", 7),
    ],
)
def test_an_error_is_the_first_the_body_meets_in_its_order(
    source: str, scope: dict[str, Any], message: str, column: int
) -> None:
    kind, (name, text, line, found) = _outcome(source, {"b": None, "rec": None, **scope})
    assert kind == "error" and name == "EvaluationError"
    assert message in text
    assert (line, found) == (1, column)
