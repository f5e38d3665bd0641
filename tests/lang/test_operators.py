"""What a comparison's closure spends of the evaluation budget: ``"Bash" in tools``, a
short known text looked for in a short tuple (a context's lists are tuples), is read
directly and charges nothing; anything longer is charged by what the search reads.

Every figure is counted in budget units (``spent()``), never in time.
"""

from __future__ import annotations

import pytest

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
