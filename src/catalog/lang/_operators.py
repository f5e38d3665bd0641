"""The operators of the expression language: what each is written as, the closures of
comparisons, and the constructs refused with their names.

The compiler (:mod:`catalog.lang.compiler`) looks its operators up here and
builds a comparison's closure with :func:`single_comparison`.
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any, Final

from catalog.errors import EvaluationError
from catalog.lang.functions import NOT_LITERAL
from catalog.lang.values import (
    OPERATION_ERRORS,
    SEARCHED_FREELY,
    Run,
    Scope,
    charge_compare,
    contains,
    equal,
    type_name,
)

__all__ = [
    "COMPARISONS",
    "OPERATOR_SYMBOLS",
    "REFUSED",
    "Comparison",
    "is_none",
    "length_test",
    "single_comparison",
]

Comparison = tuple[str, Callable[[Any, Any], Any], Run, int]
"""One comparison of a chain: its symbol, its function, the run of its right operand and
the column of the symbol."""


def single_comparison(
    left: object, right: object, name: str | None, step: Comparison, first: Run
) -> Run:
    """The closure for ``a OP b`` (no chain), ``left`` and ``right`` being the operands'
    values when known (else ``NOT_LITERAL``), ``name`` the name the right operand is
    when it is one and ``first`` the left operand's run: a known side is inlined, and
    ``"Bash" in tools`` reads its name and searches a short tuple directly."""
    symbol, function, operand, column = step

    def fail(a: object, b: object) -> EvaluationError:
        return EvaluationError(
            f"cannot apply '{symbol}' to {type_name(a)} and {type_name(b)}", column=column
        )

    if left is not NOT_LITERAL:
        constant = left
        if function is contains and name is not None:
            searched = name

            # A short known text or a number, looked for in a short tuple, is read at
            # most SEARCHED_FREELY times over: not worth a charge.
            short = type(constant) in (str, int, float, bool) and len(str(constant)) <= 16

            def run_in(scope: Scope) -> Any:
                container = scope.get(searched)
                if short and type(container) is tuple and len(container) <= SEARCHED_FREELY:
                    return constant in container
                try:
                    return contains(constant, container)
                except OPERATION_ERRORS:
                    raise fail(constant, container) from None

            return run_in

        def run_known(scope: Scope) -> Any:
            b = operand(scope)
            try:
                return function(constant, b)
            except OPERATION_ERRORS:
                raise fail(constant, b) from None

        return run_known
    if right is not NOT_LITERAL:
        known = right

        def run_known_right(scope: Scope) -> Any:
            a = first(scope)
            try:
                return function(a, known)
            except OPERATION_ERRORS:
                raise fail(a, known) from None

        return run_known_right

    def run(scope: Scope) -> Any:
        a, b = first(scope), operand(scope)
        try:
            return function(a, b)
        except OPERATION_ERRORS:
            raise fail(a, b) from None

    return run


REFUSED: Final[Mapping[type[ast.AST], str]] = {
    ast.Lambda: "lambda",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.NamedExpr: "assignment (:=)",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string",
    ast.Starred: "unpacking with *",
    ast.Dict: "a dict literal",
    ast.Set: "a set literal",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Slice: "a slice",
}
OPERATOR_SYMBOLS: Final[Mapping[type[ast.AST], str]] = {
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.Invert: "~",
    ast.UAdd: "+",
}


def _ordered(compare: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """``compare(a, b)`` (``<``, ``<=``...) reading a list and a tuple as one kind, item
    by item as Python compares two lists: the first items that differ decide, else the
    lengths."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple) and type(a) is not type(b):
        for x, y in zip(a, b, strict=False):  # the shorter ends it
            if not equal(x, y):
                return _ordered(compare, x, y)
        return compare(len(a), len(b))
    return compare(a, b)


def _charged(compare: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``compare``, spending what it may read of its operands first
    (:func:`~catalog.lang.values.charge_compare`): two long texts or lists cost their
    length, not one step."""

    def charged(a: Any, b: Any) -> Any:
        charge_compare(a, b)
        return compare(a, b)

    return charged


COMPARISONS: Final[Mapping[type[ast.cmpop], tuple[str, Callable[[Any, Any], Any]]]] = {
    ast.Eq: ("==", _charged(equal)),
    ast.NotEq: ("!=", _charged(lambda a, b: not equal(a, b))),
    ast.Lt: ("<", _charged(functools.partial(_ordered, operator.lt))),
    ast.LtE: ("<=", _charged(functools.partial(_ordered, operator.le))),
    ast.Gt: (">", _charged(functools.partial(_ordered, operator.gt))),
    ast.GtE: (">=", _charged(functools.partial(_ordered, operator.ge))),
    ast.In: ("in", contains),
    ast.NotIn: ("not in", lambda item, container: not contains(item, container)),
    ast.Is: ("is", lambda value, _none: value is None),
    ast.IsNot: ("is not", lambda value, _none: value is not None),
}


def is_none(node: ast.expr) -> bool:
    """Whether ``node`` is the none literal (``None`` or ``none``)."""
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Name) and node.id == "none"


_NONEMPTY: Final = frozenset({(ast.Gt, 0), (ast.NotEq, 0), (ast.GtE, 1)})
_EMPTY: Final = frozenset({(ast.Eq, 0), (ast.Lt, 1), (ast.LtE, 0)})


def length_test(node: ast.Compare) -> tuple[ast.expr, bool] | None:
    """``(x, negated)`` for a comparison that tests only whether ``len(x)`` is zero:
    ``len(x) > 0``, ``!= 0`` or ``>= 1`` (not negated), ``len(x) == 0``, ``< 1`` or
    ``<= 0`` (negated); None for any other comparison."""
    if len(node.ops) != 1:
        return None
    left, right = node.left, node.comparators[0]
    if not (
        isinstance(left, ast.Call)
        and isinstance(left.func, ast.Name)
        and left.func.id == "len"
        and len(left.args) == 1
        and not left.keywords
        and isinstance(right, ast.Constant)
        and type(right.value) is int
    ):
        return None
    written = (type(node.ops[0]), right.value)
    if written in _NONEMPTY:
        return left.args[0], False
    if written in _EMPTY:
        return left.args[0], True
    return None
