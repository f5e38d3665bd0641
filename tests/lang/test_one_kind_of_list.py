"""The language has one kind of list: a context's lists are tuples and an expression's
own (``["Bash"]``, ``split(...)``, ``+``) are Python lists, yet ``==``, ``!=``, the
orderings and ``in`` read them as one kind, at any depth, as a catalog author expects."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import load_dir
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY
from catalog.lang.values import one_budget, spent


def _value(source: str, **scope: Any) -> Any:
    return compile_expression(source, dict.fromkeys(scope, ANY))(scope)


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        ('tools == ["Bash"]', {"tools": ("Bash",)}, True),
        ('["Bash"] == tools', {"tools": ("Bash",)}, True),
        ('tools != ["Bash"]', {"tools": ("Bash",)}, False),
        ('tools == ["Bash"]', {"tools": ("Bash", "Read")}, False),  # a length apart
        ('tools == ["Read"]', {"tools": ("Bash",)}, False),
        ('tools != ["Read"]', {"tools": ("Bash",)}, True),
        ('split("a,b", ",") == tools', {"tools": ("a", "b")}, True),
        ('tools + ["c"] == xs', {"tools": ("a",), "xs": ("a", "c")}, True),
        ('[["a"], ["b", 1]] == xs', {"xs": (("a",), ("b", 1))}, True),
        ('[["a"], ["b", 1]] == xs', {"xs": (("a",), ("b", 2))}, False),  # deep, last item
        ("m == n", {"m": {"k": ("a",)}, "n": {"k": ["a"]}}, True),
        ("m == n", {"m": {"k": ("a",)}, "n": {"j": ["a"]}}, False),  # other keys
        ("m == n", {"m": {"k": ("a",)}, "n": {"k": ["b"]}}, False),
        ('x == ["a"]', {"x": "a"}, False),  # a text is no list
        ('[["a", "b"]] == xs', {"xs": ("ab",)}, False),  # nor is one inside a list
        ("xs == m", {"xs": ("a", "b"), "m": {"a": 1, "b": 2}}, False),  # nor a mapping
        ("x == [1]", {"x": 1}, False),
        ("x == 1.0", {"x": 1}, True),  # numbers compare as before
        ("(1, 2) == [1, 2]", {}, True),
    ],
)
def test_equality_reads_lists_and_tuples_as_one_kind(
    source: str, scope: dict[str, Any], expected: bool
) -> None:
    assert _value(source, **scope) is expected


@pytest.mark.parametrize(
    ("source", "xs", "expected"),
    [
        ('xs < ["b"]', ("a",), True),
        ('xs < ["a"]', ("a",), False),
        ('xs <= ["a"]', ("a",), True),
        ('xs <= ["a"]', ("a", "b"), False),  # the longer is greater when one starts the other
        ('xs > ["a", "b"]', ("a", "c"), True),
        ('xs >= ["a", "c"]', ("a", "b"), False),
        ('xs > [["a"], "z"]', (("b",), "a"), True),  # the first items that differ decide
        ('["a", "b"] > xs', ("a",), True),
    ],
)
def test_orderings_read_lists_and_tuples_as_one_kind(
    source: str, xs: tuple[Any, ...], expected: bool
) -> None:
    assert _value(source, xs=xs) is expected


def test_a_list_is_found_in_a_list_of_lists_of_either_kind() -> None:
    assert _value('["a"] in xs', xs=(("b",), ("a",))) is True
    assert _value('["c"] in xs', xs=(("b",), ("a",))) is False
    assert _value('["c"] not in xs', xs=(("b",), ("a",))) is True
    assert _value("xs[0] in [['b'], ['c']]", xs=(("b",),)) is True


def test_a_part_whose_condition_compares_tools_with_a_written_list_is_selected(
    make_catalog: Callable[..., Path],
) -> None:
    folder = make_catalog(
        parts=[
            {"id": "bash-only", "when": 'tools == ["Bash"]', "body": "Only Bash."},
            {"id": "not-bash-only", "when": 'tools != ["Bash"]', "body": "More."},
        ]
    )
    catalog = load_dir(folder)
    assert catalog.assemble({"tools": ["Bash"]}).text == "Only Bash."
    assert catalog.assemble({"tools": ["Bash", "Read"]}).text == "More."


def test_comparing_a_list_with_a_tuple_costs_what_comparing_two_tuples_costs() -> None:
    items = tuple(f"item {n}" for n in range(5_000))
    expression = compile_expression("xs == ys", {"xs": ANY, "ys": ANY})

    def units(ys: object) -> int:
        def run() -> int:
            assert expression({"xs": items, "ys": ys}) is True
            return spent()

        return one_budget(run)

    # Read whole, on one side: 16 units an item, and "item 0" to "item 4999" are
    # 10 texts of 6 characters, 90 of 7, 900 of 8 and 4,000 of 9.
    read = 5_000 * 16 + 10 * 6 + 90 * 7 + 900 * 8 + 4_000 * 9
    assert units(items) == units(list(items)) == read
