"""A condition written with another language's operators gets a hint naming each
one's word here: '&&' and, '||' or, '!' not (but never for the '!' of '!=')."""

from __future__ import annotations

import pytest

from catalog.errors import ExpressionError
from catalog.lang.parsing import parse


@pytest.mark.parametrize(
    ("source", "hint"),
    [
        ("tools && !plan_mode", "write 'and' instead of '&&', 'not' instead of '!'"),
        ("!plan_mode", "write 'not' instead of '!'"),
        ("a || b", "write 'or' instead of '||'"),
        ("a != b && c", "write 'and' instead of '&&'"),
    ],
)
def test_c_operators_are_told_their_words(source: str, hint: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse(source)
    assert caught.value.hint == hint
