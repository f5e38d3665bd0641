"""What a comparison's closure spends of the evaluation budget: ``"Bash" in tools``, a
short known text looked for in a short tuple (a context's lists are tuples), is read
directly and charges nothing; anything longer is charged by what the search reads.

Every figure is counted in budget units (``spent()``), never in time.
"""

from __future__ import annotations

import pytest

from catalog.errors import EvaluationError
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY
from catalog.lang.values import one_budget, spent


def _evaluate(source: str, items: object) -> tuple[object, int]:
    """The value of ``source`` with ``xs`` bound to ``items``, and the units it spent."""
    expression = compile_expression(source, {"xs": ANY})

    def run() -> tuple[object, int]:
        return expression({"xs": items}), spent()

    return one_budget(run)


def _names(count: int) -> tuple[str, ...]:
    return tuple(f"T{n}" for n in range(count))


@pytest.mark.parametrize(
    ("source", "items", "found"),
    [
        ('"Bash" in xs', _names(64), False),
        ('"T63" in xs', _names(64), True),
        ('"' + "a" * 16 + '" in xs', _names(64), False),  # the longest text read freely
        ("7 in xs", tuple(range(64)), True),
        ("true in xs", (False,) * 64, False),
    ],
)
def test_a_short_constant_in_a_short_tuple_is_free(
    source: str, items: tuple[object, ...], found: bool
) -> None:
    assert _evaluate(source, items) == (found, 0)


@pytest.mark.parametrize(
    ("source", "items", "least"),
    [
        ('"Bash" in xs', _names(65), 65 * 16),  # one item past the free length
        ('"Bash" in xs', list(_names(64)), 64 * 16),  # a list, not a tuple
        ('"' + "a" * 17 + '" in xs', _names(64), 64 * 16),  # one character too long
        ("[7] in xs", tuple(range(64)), 64 * 16),  # a list is no short constant
    ],
)
def test_anything_longer_is_charged_by_what_the_search_reads(
    source: str, items: object, least: int
) -> None:
    found, units = _evaluate(source, items)
    assert found is False
    assert units >= least


# -- what `in` charges, by the kind of container (values.contains)


def _spent_on(source: str, **scope: object) -> tuple[object, int]:
    """The value of ``source`` over ``scope`` and the units it spent."""
    expression = compile_expression(source, dict.fromkeys(scope, ANY))

    def run() -> tuple[object, int]:
        return expression(scope), spent()

    return one_budget(run)


def test_a_text_searched_in_a_text_is_charged_both_lengths_past_64() -> None:
    assert _spent_on('"a" in s', s="xyz") == (False, 0)
    assert _spent_on('"a" in s', s="b" * 63) == (False, 0)  # 64 characters in all: free
    assert _spent_on('"a" in s', s="b" * 64) == (False, 65)
    assert _spent_on('"b" in s', s="b" * 100) == (True, 101)


def test_a_mapping_or_a_set_is_charged_for_hashing_the_item_only() -> None:
    keys = {f"key {n}": n for n in range(1_000)}
    assert _spent_on('"key 5" in m', m=keys) == (True, 5)  # the 5 characters hashed
    assert _spent_on('"key 5" in s', s=frozenset(keys)) == (True, 5)
    assert _spent_on("x in m", x="k" * 10_000, m=keys) == (False, 10_000)
    assert _spent_on("x in m", x=7, m=keys) == (False, 0)  # a number is hashed at once


def test_any_mapping_or_sequence_is_searched_as_the_builtin_ones() -> None:
    from collections import UserList
    from types import MappingProxyType

    items = tuple(f"name {n}" for n in range(100))
    assert _spent_on('"zz" in xs', xs=UserList(items)) == _spent_on('"zz" in xs', xs=items)
    assert _spent_on('"zz" in xs', xs=items)[1] > 100 * 16  # read item by item
    assert _spent_on('"a" in m', m=MappingProxyType({"a": 1})) == (True, 1)


def test_looking_into_what_holds_no_items_names_it() -> None:
    with pytest.raises(EvaluationError) as caught:
        _spent_on('contains(x, "a")', x=3)
    assert str(caught.value) == "column 1: contains(): cannot look for an item in number"
    with pytest.raises(EvaluationError, match="cannot apply 'in' to list and mapping"):
        _spent_on('["a"] in m', m={"a": 1})  # a list is no key
