"""The expression compiler: parse, check names and shapes, compile to closures once.

Compiling also evaluates what it can: a sub-expression whose operands are all
known while compiling (literals, and the ``constants`` a caller gives, such as
the ``part`` and ``agent`` of one agent's plan) is computed then, ``and``,
``or`` and ``if ... else`` over a known operand keep only the side that can
run, and what is left reads the scope. The checks of names and shapes are
those of the expression as written, whatever the constants, so substituting
never adds an error nor hides one.
"""

from __future__ import annotations

import ast
import operator
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import Any, Final, NoReturn

from catalog.errors import (
    CatalogError,
    EvaluationBudgetError,
    EvaluationError,
    ExpressionError,
)
from catalog.lang._operators import (
    COMPARISONS,
    OPERATOR_SYMBOLS,
    REFUSED,
    Comparison,
    is_none,
    length_test,
    single_comparison,
)
from catalog.lang.functions import (
    FUNCTIONS,
    NOT_LITERAL,
    Arg,
    Function,
    check_items,
    check_length,
)
from catalog.lang.parsing import Source, parse
from catalog.lang.shapes import (
    ANY,
    SCALAR,
    MappingShape,
    SequenceShape,
    Shape,
    common_shape,
)
from catalog.lang.values import (
    LITERAL_NAMES,
    MAX_DEPTH,
    OPERATION_ERRORS,
    Path,
    Run,
    Scope,
    budgeted,
    charge,
    contains,
    cost,
    fields_of,
    get_item,
    read_attribute,
    type_name,
)
from catalog.text.suggest import did_you_mean

__all__ = [
    "Expression",
    "ExpressionCache",
    "compile_expression",
]

_NO_SCOPE: Final[Scope] = types.MappingProxyType({})


# --------------------------------------------------------------------------
# The compiler


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled expression: call it with a scope to evaluate it.

    ``names`` holds the root names the expression reads when evaluated, ``reads``
    the paths it reads them by (``("env", "os")``; a name used otherwise than
    through attributes is read whole, as ``("env",)``), ``shape`` the shape of its
    result (``ANY`` when unknown) and ``builds`` whether evaluating it calls a
    function or adds. ``membership`` is ``(value, name)`` when what decides the
    expression's truth is whether that known value is in that name (``"Bash" in
    tools``), so a caller may test many such at once. ``nodes`` counts the nodes
    compiled: at most what one evaluation visits (a loop charges its budget by it).
    ``evaluate`` is the compiled closure (under a fresh evaluation budget when it
    builds): hot loops call it directly to skip one call level.
    """

    source: str
    names: frozenset[str]
    shape: Shape
    evaluate: Run = field(repr=False, compare=False)
    reads: frozenset[Path] = field(default=frozenset(), repr=False, compare=False)
    builds: bool = field(default=False, repr=False, compare=False)
    membership: tuple[object, str] | None = field(default=None, repr=False, compare=False)
    nodes: int = field(default=1, repr=False, compare=False)

    def __call__(self, scope: Scope) -> Any:
        """Evaluate against ``scope``; raises :class:`EvaluationError` on bad values."""
        return self.evaluate(scope)


@dataclass(frozen=True, slots=True)
class _Node:
    """A compiled sub-expression: its closure and the shape of its value.

    ``literal`` is its value when the source writes it as a literal (what shape
    rules may look at); ``known`` its value when that is known while compiling
    (a literal, a constant, or computed from them); ``reads`` the paths it reads
    from the scope, ``path`` its own path when it is one, and ``builds`` whether
    it calls a function or adds when evaluated; ``membership`` as
    :attr:`Expression.membership`.
    """

    run: Run
    shape: Shape
    literal: object = NOT_LITERAL
    known: object = NOT_LITERAL
    reads: frozenset[Path] = frozenset()
    path: Path | None = None
    builds: bool = False
    membership: tuple[object, str] | None = None


def _known(value: object, shape: Shape, literal: object = NOT_LITERAL) -> _Node:
    """The node of a value known while compiling."""
    return _Node(lambda scope: value, shape, literal, value)


def _reads(nodes: Iterable[_Node]) -> frozenset[Path]:
    return frozenset().union(*(node.reads for node in nodes))


def compile_expression(
    source: str,
    names: Mapping[str, Shape],
    constants: Mapping[str, Any] | None = None,
    *,
    condition: bool = False,
) -> Expression:
    """Parse, check and compile ``source`` once.

    ``names`` maps every name the expression may use to its shape; ``constants``
    gives the values of some of them, known now, to substitute (see the module
    docstring). With ``condition`` only the truth of the result matters (a
    ``when`` or an ``{% if %}``), so ``a and true`` compiles to ``a``. Raises
    :class:`ExpressionError` (with ``column``) for anything malformed, unsafe or
    unknown; no other exception escapes for any input text.
    """
    text, tree = parse(source)
    compiler = _Compiler(text, names, constants or {})
    node = compiler.compile(tree.body, 1, condition)
    # Only calls and '+' can build large values: the rest needs no budget of its own.
    run = budgeted(node.run, f"`{text.text}`") if node.builds else node.run
    roots = frozenset(path[0] for path in node.reads)
    membership = node.membership if condition else None
    shape, nodes = node.shape, compiler.nodes
    return Expression(source, roots, shape, run, node.reads, node.builds, membership, nodes)


class ExpressionCache:
    """Compiles each expression text once per names mapping, constants (the same
    objects, left unchanged while the cache is in use), for the many bodies of one
    catalog that write the same ``{{ env.os }}``. Failures are not kept: they raise
    each time."""

    def __init__(self) -> None:
        self._done: dict[
            tuple[str, int, int, bool],
            tuple[Mapping[str, Shape], Mapping[str, Any], Expression],
        ] = {}

    def compile(
        self,
        source: str,
        names: Mapping[str, Shape],
        constants: Mapping[str, Any] | None = None,
        *,
        condition: bool = False,
    ) -> Expression:
        """:func:`compile_expression`, or what it gave for these arguments."""
        constants = constants or _NO_SCOPE  # every empty mapping as one
        key = (source, id(names), id(constants), condition)
        found = self._done.get(key)
        if found is not None and found[0] is names and found[1] is constants:
            return found[2]
        expression = compile_expression(source, names, constants, condition=condition)
        self._done[key] = (names, constants, expression)
        return expression


class _Compiler:
    """Walks a whitelist of AST node types, building one closure per node."""

    def __init__(
        self,
        source: Source,
        names: Mapping[str, Shape],
        constants: Mapping[str, Any],
    ):
        self._source = source
        self._names = names
        self._constants = constants
        self.nodes = 0  # compiled so far: what evaluating the expression may visit

    # -- errors

    def fail(self, message: str, column: int, hint: str | None = None) -> NoReturn:
        raise ExpressionError(message, column=column, hint=hint)

    def at(self, error: ExpressionError, column: int) -> ExpressionError:
        """``error`` (raised by a shape check) placed at ``column``."""
        return error.located(column=column)

    def _check_name(self, name: str, column: int) -> None:
        if name.startswith("_"):
            self.fail(f"names starting with '_' are not allowed: '{name}'", column)

    # -- what is known while compiling

    def _combined(
        self, run: Run, shape: Shape, operands: tuple[_Node, ...], *, builds: bool = False
    ) -> _Node:
        """The node running ``run`` over ``operands``: computed now when they are all
        known, unless that fails (the error then comes when evaluating, as written).
        A list is copied for each evaluation (built afresh when it holds lists), so
        nobody shares it."""
        builds = builds or any(operand.builds for operand in operands)
        if any(operand.known is NOT_LITERAL for operand in operands):
            return _Node(run, shape, reads=_reads(operands), builds=builds)
        try:
            value = budgeted(run, "a constant expression")(_NO_SCOPE)
        except CatalogError:
            return _Node(run, shape, builds=builds)
        if isinstance(value, list):
            if any(isinstance(item, list | dict) for item in value):
                return _Node(run, shape, known=value, builds=builds)
            return _Node(lambda scope: list(value), shape, known=value)
        return _known(value, shape)

    # -- dispatch

    def compile(self, node: ast.expr, depth: int, truth: bool = False) -> _Node:
        """Compile one node; the match is the whitelist, anything else is refused.

        With ``truth``, only whether the value is truthy matters to the caller.
        """
        self.nodes += 1
        if depth > MAX_DEPTH:
            self.fail(
                f"expression is nested more than {MAX_DEPTH} levels deep",
                self._source.column(node),
            )
        match node:
            case ast.Constant():
                return self._constant(node)
            case ast.Name():
                return self._name(node)
            case ast.Attribute():
                return self.get_attribute(node, depth)
            case ast.Subscript():
                return self._subscript(node, depth)
            case ast.BoolOp():
                return self._bool_op(node, depth, truth)
            case ast.UnaryOp():
                return self._unary(node, depth)
            case ast.BinOp():
                return self._binary(node, depth)
            case ast.Compare():
                compared = self._compare(node, depth)
                return self._nonempty(node, depth, compared) if truth else compared
            case ast.IfExp():
                return self._if(node, depth, truth)
            case ast.Call():
                return self._call(node, depth)
            case ast.List() | ast.Tuple():
                return self._sequence(node, depth)
        what = REFUSED.get(type(node), type(node).__name__)
        self.fail(f"{what} is not allowed", self._source.column(node))

    # -- handlers

    def _constant(self, node: ast.Constant) -> _Node:
        value = node.value
        if value is not None and not isinstance(value, str | int | float):
            kind = "'...'" if value is Ellipsis else f"a {type(value).__name__} literal"
            self.fail(f"{kind} is not allowed", self._source.column(node))
        return _known(value, SCALAR, value)

    def _name(self, node: ast.Name) -> _Node:
        name = node.id
        if name in LITERAL_NAMES:
            value = LITERAL_NAMES[name]
            return _known(value, SCALAR, value)
        column = self._source.column(node)
        self._check_name(name, column)
        shape = self._names.get(name)
        if shape is None:
            hint = did_you_mean(name, self._names, what="known names")
            if name in FUNCTIONS:
                hint = f"'{name}' is a function: call it, as in {name}(...); {hint}"
            self.fail(f"unknown name '{name}'", column, hint)
        if name in self._constants:
            return _known(self._constants[name], shape)
        path = (name,)
        return _Node(lambda scope: scope.get(name), shape, reads=frozenset({path}), path=path)

    def get_attribute(self, node: ast.Attribute, depth: int) -> _Node:
        name = node.attr
        column = self._source.base + self._source.end(node) - len(name) + 1
        self._check_name(name, column)
        inner = self.compile(node.value, depth + 1)
        try:
            shape = inner.shape.attribute(name, where=self._source.where(node.value))
        except ExpressionError as exc:
            raise self.at(exc, column) from None
        run = inner.run
        # The name was checked above: it is read without checking it again, and
        # straight from the classes met that declare it (a record: env.os).
        declaring: set[type] = set()

        def read_from(value: object) -> Any:
            kind = type(value)
            if kind in declaring:
                return getattr(value, name)
            if name in fields_of(kind):
                declaring.add(kind)
            return read_attribute(value, name)

        read: Run = lambda scope: read_from(run(scope))  # noqa: E731
        if inner.path is not None:  # a longer path read from the scope: env.os
            if len(inner.path) == 1:  # a name's attribute, read in one step
                root = inner.path[0]

                def read(scope: Scope) -> Any:
                    value = scope.get(root)
                    if type(value) in declaring:
                        return getattr(value, name)
                    return read_from(value)

            path = (*inner.path, name)
            return _Node(read, shape, reads=frozenset({path}), path=path)
        return self._combined(read, shape, (inner,))

    def _subscript(self, node: ast.Subscript, depth: int) -> _Node:
        key_node = node.slice
        if isinstance(key_node, ast.Tuple):
            self.fail("indexing with several keys is not allowed", self._source.column(key_node))
        inner = self.compile(node.value, depth + 1)
        key = self.compile(key_node, depth + 1)
        literal = key.literal
        if isinstance(literal, str) and literal.startswith("_"):
            self.fail(
                f"keys starting with '_' are not allowed: {literal!r}",
                self._source.column(key_node),
            )
        shape_key = (
            literal if isinstance(literal, str | int) and not isinstance(literal, bool) else None
        )
        try:
            shape = inner.shape.item(shape_key, where=self._source.where(node.value))
        except ExpressionError as exc:
            raise self.at(exc, self._source.column(key_node)) from None
        run_value, run_key, column = inner.run, key.run, self._source.column(node)

        def run(scope: Scope) -> Any:
            container, index = run_value(scope), run_key(scope)
            try:
                return get_item(container, index)
            except OPERATION_ERRORS as exc:
                raise EvaluationError(f"cannot index: {exc}", column=column) from None

        return self._combined(run, shape, (inner, key))

    def _bool_op(self, node: ast.BoolOp, depth: int, truth: bool) -> _Node:
        operands = [self.compile(value, depth + 1, truth) for value in node.values]
        shape = common_shape(operand.shape for operand in operands)
        is_and = isinstance(node.op, ast.And)
        # Only the operands that can run and decide are kept: evaluation stops at a
        # known operand that decides ('and' at a falsy one, 'or' at a truthy one),
        # and one that does not decide is passed over unless its value is the result.
        kept: list[_Node] = []
        for index, operand in enumerate(operands):
            if operand.known is NOT_LITERAL:
                kept.append(operand)
            elif bool(operand.known) != is_and:
                kept.append(operand)
                break
            elif index == len(operands) - 1 and not (truth and kept):
                kept.append(operand)
        first = kept[0]
        if first.known is not NOT_LITERAL:  # decided before anything runs
            # Its own closure, not its value: a known list is copied at each evaluation.
            return _Node(first.run, shape, known=first.known, builds=first.builds)
        builds = any(operand.builds for operand in kept)
        if len(kept) == 1:
            only = kept[0]
            return _Node(
                only.run, shape, reads=only.reads, builds=builds, membership=only.membership
            )
        runs = tuple(operand.run for operand in kept)
        if is_and:

            def run(scope: Scope) -> Any:
                value = None
                for operand in runs:
                    value = operand(scope)
                    if not value:
                        return value
                return value

        else:

            def run(scope: Scope) -> Any:
                value = None
                for operand in runs:
                    value = operand(scope)
                    if value:
                        return value
                return value

        return _Node(run, shape, reads=_reads(kept), builds=builds)

    def _unary(self, node: ast.UnaryOp, depth: int) -> _Node:
        if isinstance(node.op, ast.Not):
            inner = self.compile(node.operand, depth + 1, truth=True)
            operand = inner.run
            return self._combined(lambda scope: not operand(scope), SCALAR, (inner,))
        if not isinstance(node.op, ast.USub):
            symbol = OPERATOR_SYMBOLS[type(node.op)]
            self.fail(
                f"unary operator '{symbol}' is not allowed",
                self._source.column(node),
                "only unary - is supported",
            )
        inner = self.compile(node.operand, depth + 1)
        if isinstance(inner.literal, int | float) and not isinstance(inner.literal, bool):
            negated = -inner.literal
            return _known(negated, SCALAR, negated)
        value_run, column = inner.run, self._source.column(node)

        def run(scope: Scope) -> Any:
            value = value_run(scope)
            try:
                return -value
            except OPERATION_ERRORS:
                raise EvaluationError(
                    f"cannot apply unary '-' to {type_name(value)}", column=column
                ) from None

        return self._combined(run, SCALAR, (inner,))

    def _binary(self, node: ast.BinOp, depth: int) -> _Node:
        adding = isinstance(node.op, ast.Add)
        if not adding and not isinstance(node.op, ast.Sub):
            symbol = OPERATOR_SYMBOLS[type(node.op)]
            self.fail(
                f"operator '{symbol}' is not allowed",
                self._source.between(node.left, node.right, symbol),
                "filters are not supported: call a function instead, as in upper(x)"
                if symbol == "|"
                else "only + and - are supported",
            )
        left = self.compile(node.left, depth + 1)
        right = self.compile(node.right, depth + 1)
        symbol = "+" if adding else "-"
        column = self._source.between(node.left, node.right, symbol)
        run_left, run_right = left.run, right.run
        shape = left.shape if left.shape == right.shape else ANY

        def run(scope: Scope) -> Any:
            a, b = run_left(scope), run_right(scope)
            try:
                if not adding:
                    return a - b
                if isinstance(a, str | list | tuple) and isinstance(b, str | list | tuple):
                    check_length(len(a) + len(b), "the result of '+'")
                    charge(cost(a) + cost(b))
                    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
                        # A context's tuples and a literal's lists join as one list.
                        check_items(len(a) + len(b), "the result of '+'")
                        return [*a, *b]
                return a + b
            except EvaluationBudgetError:
                raise
            except EvaluationError as exc:  # past a length limit: placed at the '+'
                raise exc.located(column=column) from None
            except OPERATION_ERRORS:
                raise EvaluationError(
                    f"cannot apply '{symbol}' to {type_name(a)} and {type_name(b)}", column=column
                ) from None

        return self._combined(run, shape, (left, right), builds=True)

    def _compare(self, node: ast.Compare, depth: int) -> _Node:
        left_node = self.compile(node.left, depth + 1)
        first = left_node.run
        steps: list[Comparison] = []
        operands = [left_node]
        previous = node.left
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            symbol, function = COMPARISONS[type(op)]
            column = self._source.between(previous, comparator, symbol.split()[0])
            if isinstance(op, ast.Is | ast.IsNot) and not is_none(comparator):
                self.fail(
                    f"'{symbol}' is only allowed with none (x {symbol} none)",
                    column,
                    "use == or != to compare values",
                )
            operands.append(self.compile(comparator, depth + 1))
            steps.append((symbol, function, operands[-1].run, column))
            previous = comparator
        chain = tuple(steps)
        if len(chain) == 1:
            right = operands[1]
            name = right.path[0] if right.path is not None and len(right.path) == 1 else None
            single = single_comparison(left_node.known, right.known, name, chain[0], first)
            compared = self._combined(single, SCALAR, tuple(operands))
            if chain[0][1] is contains and left_node.known is not NOT_LITERAL and name:
                return replace(compared, membership=(left_node.known, name))
            return compared

        def run(scope: Scope) -> Any:
            left = first(scope)
            result: Any = True
            for symbol, function, operand, column in chain:
                right = operand(scope)
                try:
                    result = function(left, right)
                except OPERATION_ERRORS:
                    raise EvaluationError(
                        f"cannot apply '{symbol}' to {type_name(left)} and {type_name(right)}",
                        column=column,
                    ) from None
                if not result:
                    return result
                left = right
            return result

        return self._combined(run, SCALAR, tuple(operands))

    def _nonempty(self, node: ast.Compare, depth: int, compared: _Node) -> _Node:
        """Where only its truth matters, ``len(x) > 0`` of a list or a mapping is the
        truth of ``x`` (:func:`length_test`): the length is not counted. ``compared``,
        the comparison as written (checked and compiled), is kept otherwise."""
        measured, negated = length_test(node) or (None, False)
        if measured is None or compared.known is not NOT_LITERAL:
            return compared
        inner = self.compile(measured, depth + 2, truth=True)
        if not isinstance(inner.shape, SequenceShape | MappingShape):
            return compared
        run = inner.run
        if negated:
            return replace(inner, run=lambda scope: not run(scope), shape=SCALAR, path=None)
        return replace(inner, shape=SCALAR, path=None)

    def _if(self, node: ast.IfExp, depth: int, truth: bool) -> _Node:
        test_node = self.compile(node.test, depth + 1, truth=True)
        body = self.compile(node.body, depth + 1, truth)
        orelse = self.compile(node.orelse, depth + 1, truth)
        shape = body.shape if body.shape == orelse.shape else ANY
        if test_node.known is not NOT_LITERAL:  # only one side can run
            chosen = body if test_node.known else orelse
            return _Node(
                chosen.run,
                shape,
                NOT_LITERAL,
                chosen.known,
                chosen.reads,
                chosen.path,
                chosen.builds,
            )
        test, run_body, run_else = test_node.run, body.run, orelse.run
        return _Node(
            lambda scope: run_body(scope) if test(scope) else run_else(scope),
            shape,
            reads=_reads((test_node, body, orelse)),
            builds=test_node.builds or body.builds or orelse.builds,
        )

    def _call(self, node: ast.Call, depth: int) -> _Node:
        function, column = self._function(node)
        args = [self.compile(arg, depth + 1) for arg in node.args]
        try:
            shape = function.shape(
                [
                    Arg(a.shape, a.literal, self._source.where(n))
                    for a, n in zip(args, node.args, strict=True)
                ]
            )
        except ExpressionError as exc:
            raise self.at(exc, column) from None
        run = _calling(function, column, tuple(arg.run for arg in args))
        return self._combined(run, shape, tuple(args), builds=True)

    def _function(self, node: ast.Call) -> tuple[Function, int]:
        """The function ``node`` calls, checked to be one of :data:`FUNCTIONS` called
        with positional arguments of the right count, and the column of its name."""
        func = node.func
        column = self._source.column(func)
        if not isinstance(func, ast.Name):
            kind = "methods" if isinstance(func, ast.Attribute) else "the result of an expression"
            self.fail(
                f"calling {kind} is not allowed",
                column,
                f"only these functions can be called: {', '.join(sorted(FUNCTIONS))}",
            )
        name = func.id
        self._check_name(name, column)
        function = FUNCTIONS.get(name)
        if function is None:
            self.fail(
                f"unknown function '{name}'",
                column,
                did_you_mean(name, FUNCTIONS, what="functions"),
            )
        if node.keywords:
            keyword = node.keywords[0]
            self.fail(
                f"{name}() takes no keyword arguments",
                self._source.column(keyword),
                "pass arguments by position",
            )
        count = len(node.args)
        if not function.min_args <= count <= function.max_args:
            expected = (
                str(function.min_args)
                if function.min_args == function.max_args
                else f"{function.min_args} to {function.max_args}"
            )
            self.fail(
                f"{name}() takes {expected} argument{'' if expected == '1' else 's'}, "
                f"{count} given",
                column,
                function.doc,
            )
        return function, column

    def _sequence(self, node: ast.List | ast.Tuple, depth: int) -> _Node:
        items = tuple(self.compile(item, depth + 1) for item in node.elts)
        runs = tuple(item.run for item in items)
        shape = SequenceShape(common_shape(item.shape for item in items))
        if isinstance(node, ast.Tuple):
            return self._combined(lambda scope: tuple(item(scope) for item in runs), shape, items)
        return self._combined(lambda scope: [item(scope) for item in runs], shape, items)


def _calling(function: Function, column: int, runs: tuple[Run, ...]) -> Run:
    """The closure calling ``function`` on what ``runs`` give, charging the budget for
    the arguments and the result; one or two arguments are read without a list."""
    name, call = function.name, function.call

    def failed(exc: Exception) -> CatalogError:
        if isinstance(exc, EvaluationBudgetError):
            return exc
        if isinstance(exc, CatalogError):  # what the function said, and what to do
            return EvaluationError(f"{name}(): {exc.message}", column=column, hint=exc.hint)
        return EvaluationError(f"{name}(): {exc}", column=column)

    if len(runs) == 1:  # most calls: one argument, read without a list
        only = runs[0]

        def run(scope: Scope) -> Any:
            value = only(scope)
            try:
                result = call(value)
            except Exception as exc:
                raise failed(exc) from None
            charge(1 + cost(result) + cost(value))
            return result

        return run
    if len(runs) == 2:  # the next most: two arguments, read without a list
        first, second = runs

        def run_two(scope: Scope) -> Any:
            a, b = first(scope), second(scope)
            try:
                result = call(a, b)
            except Exception as exc:
                raise failed(exc) from None
            charge(1 + cost(result) + cost(a) + cost(b))
            return result

        return run_two

    def run_many(scope: Scope) -> Any:
        values = list(map(operator.call, runs, repeat(scope)))  # the arguments' values
        try:
            result = call(*values)
        except Exception as exc:
            raise failed(exc) from None
        charge(1 + cost(result) + sum(map(cost, values)))
        return result

    return run_many
