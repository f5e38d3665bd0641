"""The expression compiler: parse, check names and shapes, compile to closures once."""

from __future__ import annotations

import ast
import bisect
import operator
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, NoReturn

from catalog.errors import (
    CatalogError,
    EvaluationBudgetError,
    EvaluationError,
    ExpressionError,
)
from catalog.lang.functions import (
    FUNCTIONS,
    NOT_LITERAL,
    Arg,
    check_items,
    check_length,
)
from catalog.lang.shapes import (
    ANY,
    SCALAR,
    SequenceShape,
    Shape,
    common_shape,
    did_you_mean,
)
from catalog.lang.values import (
    LITERAL_NAMES,
    MAX_DEPTH,
    MAX_NODES,
    MAX_SOURCE_LENGTH,
    OPERATION_ERRORS,
    Run,
    Scope,
    budgeted,
    charge,
    contains,
    cost,
    get_attribute,
    get_item,
    type_name,
)

__all__ = [
    "Expression",
    "ExpressionCache",
    "compile_expression",
]

_NEWLINE: Final = re.compile(r"\r\n|\r|\n")
_BRACKET: Final = re.compile(r"[()\[\]#]")


# --------------------------------------------------------------------------
# The compiler


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled expression: call it with a scope to evaluate it.

    ``names`` holds the root names the expression reads, ``shape`` the shape
    of its result (``ANY`` when unknown). ``evaluate`` is the compiled closure
    (under a fresh evaluation budget when the expression calls a function or
    uses ``+``): hot loops call it directly to skip one call level.
    """

    source: str
    names: frozenset[str]
    shape: Shape
    evaluate: Run = field(repr=False, compare=False)

    def __call__(self, scope: Scope) -> Any:
        """Evaluate against ``scope``; raises :class:`EvaluationError` on bad values."""
        return self.evaluate(scope)


@dataclass(frozen=True, slots=True)
class _Node:
    """A compiled sub-expression: its closure, shape and literal value if it is one."""

    run: Run
    shape: Shape
    literal: object = NOT_LITERAL


def _single_comparison(left: _Node, step: tuple[str, Callable[[Any, Any], Any], Run, int]) -> Run:
    """The closure for ``a OP b`` (no chain): the common case, with a literal left side inlined."""
    symbol, function, operand, column = step

    def fail(a: object, b: object) -> EvaluationError:
        return EvaluationError(
            f"cannot apply '{symbol}' to {type_name(a)} and {type_name(b)}", column=column
        )

    if left.literal is not NOT_LITERAL:
        constant = left.literal

        def run_literal(scope: Scope) -> Any:
            right = operand(scope)
            try:
                return function(constant, right)
            except OPERATION_ERRORS:
                raise fail(constant, right) from None

        return run_literal
    first = left.run

    def run(scope: Scope) -> Any:
        a, b = first(scope), operand(scope)
        try:
            return function(a, b)
        except OPERATION_ERRORS:
            raise fail(a, b) from None

    return run


_REFUSED: Final[Mapping[type[ast.AST], str]] = {
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
_OPERATOR_SYMBOLS: Final[Mapping[type[ast.AST], str]] = {
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
_COMPARISONS: Final[Mapping[type[ast.cmpop], tuple[str, Callable[[Any, Any], Any]]]] = {
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
    ast.In: ("in", contains),
    ast.NotIn: ("not in", lambda item, container: not contains(item, container)),
    ast.Is: ("is", lambda value, _none: value is None),
    ast.IsNot: ("is not", lambda value, _none: value is not None),
}


def compile_expression(source: str, names: Mapping[str, Shape]) -> Expression:
    """Parse, check and compile ``source`` once.

    ``names`` maps every name the expression may use to its shape. Raises
    :class:`ExpressionError` (with ``column``) for anything malformed, unsafe
    or unknown; no other exception escapes for any input text.
    """
    text = source.strip()
    base = len(source) - len(source.lstrip())
    if not text:
        raise ExpressionError("empty expression", column=1)
    if len(text) > MAX_SOURCE_LENGTH:
        raise ExpressionError(
            f"expression is {len(text)} characters long, "
            f"more than the limit of {MAX_SOURCE_LENGTH}",
            column=base + 1,
        )
    tree = _parse(text, base)
    # Every expression node owns at least one character of the text (a name, a
    # literal, an operator, a bracket or a comma), so a short text needs no count.
    count = _count_expressions(tree) if len(text) > MAX_NODES else 0
    if count > MAX_NODES:
        raise ExpressionError(
            f"expression has {count} parts, more than the limit of {MAX_NODES}",
            column=base + 1,
            hint="split it, or move the logic into the context",
        )
    compiler = _Compiler(text, base, names)
    if text.count("(") + text.count("[") > MAX_DEPTH:  # else they cannot nest too deep
        compiler.check_brackets(tree)
    node = compiler.compile(tree.body, 1)
    run = node.run
    if compiler.builds:
        # Only calls and '+' can build large values: the rest needs no budget of its own.
        run = budgeted(run, f"`{text}`")
    return Expression(source, frozenset(compiler.used), node.shape, run)


class ExpressionCache:
    """Compiles each expression text once per names mapping (the same object, left
    unchanged while the cache is in use), for the many bodies of one catalog that
    write the same ``{{ env.os }}``. Failures are not kept: they raise each time."""

    def __init__(self) -> None:
        self._done: dict[tuple[str, int], tuple[Mapping[str, Shape], Expression]] = {}

    def compile(self, source: str, names: Mapping[str, Shape]) -> Expression:
        """:func:`compile_expression`, or what it gave for this text and ``names``."""
        key = (source, id(names))
        found = self._done.get(key)
        if found is not None and found[0] is names:
            return found[1]
        expression = compile_expression(source, names)
        self._done[key] = (names, expression)
        return expression


def _count_expressions(tree: ast.AST) -> int:
    """How many expression nodes ``tree`` holds (one walk, no generator per node)."""
    count = 0
    pending = [tree]
    while pending:
        node = pending.pop()
        count += isinstance(node, ast.expr)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                pending.append(value)
            elif isinstance(value, list):
                pending.extend(item for item in value if isinstance(item, ast.AST))
    return count


def _parse(text: str, base: int) -> ast.Expression:
    """``ast.parse`` in eval mode, every failure turned into :class:`ExpressionError`.

    Warnings raised while parsing (an invalid escape such as ``"\\d"``) are
    errors too: a condition should not be accepted with a complaint on stderr.
    """
    try:
        with warnings.catch_warnings():
            # Invalid escapes and the like become syntax errors, not stderr noise.
            warnings.simplefilter("error")
            return ast.parse(text, mode="eval")
    except SyntaxError as exc:
        column = _syntax_column(text, exc)
        hint = None
        if "&&" in text or "||" in text:
            hint = "write 'and' / 'or' instead of '&&' / '||'"
        elif _NEWLINE.search(text) and _parses(_NEWLINE.sub(" ", text)):
            hint = "wrap an expression written on several lines in parentheses"
        message = exc.msg or "invalid syntax"
        raise ExpressionError(f"syntax error: {message}", column=base + column, hint=hint) from None
    except (ValueError, RecursionError, MemoryError, Warning) as exc:
        raise ExpressionError(f"cannot parse the expression: {exc}", column=base + 1) from None


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _syntax_column(text: str, exc: SyntaxError) -> int:
    """The 1-based character column of a :class:`SyntaxError`, counted from the source start."""
    if not exc.lineno:
        return 1
    if not exc.offset:  # the source ended too early
        return len(text) + 1
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    line = min(exc.lineno, len(starts)) - 1
    return min(starts[line] + exc.offset - 1, len(text)) + 1


class _Compiler:
    """Walks a whitelist of AST node types, building one closure per node."""

    def __init__(self, text: str, base: int, names: Mapping[str, Shape]) -> None:
        self._text = text
        self._base = base
        self._names = names
        self._starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        # Columns count characters, the tree counts UTF-8 bytes: the same in ASCII.
        self._ascii = text.isascii()
        self.used: set[str] = set()
        self.builds = False  # whether a call or a '+' / '-' was compiled

    # -- positions and errors

    def _offset(self, lineno: int, col: int) -> int:
        """Character offset in the text of an AST (line, UTF-8 byte column) position."""
        start = self._starts[lineno - 1]
        end = self._starts[lineno] if lineno < len(self._starts) else len(self._text)
        if self._ascii:
            return start + min(col, end - start)
        prefix = self._text[start:end].encode("utf-8")[:col]
        return start + len(prefix.decode("utf-8", "ignore"))

    def column(self, node: ast.AST) -> int:
        """1-based column of ``node`` in the caller's source."""
        lineno: int = getattr(node, "lineno", 1)
        col: int = getattr(node, "col_offset", 0)
        return self._base + self._offset(lineno, col) + 1

    def _end(self, node: ast.expr) -> int:
        return self._offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def where(self, node: ast.expr) -> str:
        """The source text of ``node``, whitespace collapsed, for messages."""
        start = self._offset(node.lineno, node.col_offset)
        return " ".join(self._text[start : self._end(node)].split())

    def _between(self, left: ast.expr, right: ast.expr, symbol: str) -> int:
        """Column of ``symbol`` written between two operands (the operator's position)."""
        start, stop = self._end(left), self._offset(right.lineno, right.col_offset)
        found = self._text.find(symbol, start, stop)
        return self._base + (found if found >= 0 else start) + 1

    def check_brackets(self, tree: ast.Expression) -> None:
        """Refuse brackets nested deeper than :data:`MAX_DEPTH`.

        Parentheses leave no node in the tree, so ``((((1))))`` is measured
        on the text, skipping string literals and comments.
        """
        strings: list[tuple[int, int]] = []
        for span in sorted(
            (self._offset(node.lineno, node.col_offset), self._end(node))
            for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr)
            or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))
        ):
            if not strings or span[0] >= strings[-1][1]:  # drop spans inside an f-string
                strings.append(span)
        starts = [start for start, _ in strings]
        depth, skip_to = 0, 0
        for found in _BRACKET.finditer(self._text):
            at = found.start()
            inside = bisect.bisect_right(starts, at) - 1
            if at < skip_to or (inside >= 0 and at < strings[inside][1]):
                continue
            char = found.group()
            if char == "#":
                newline = self._text.find("\n", at)
                skip_to = len(self._text) if newline < 0 else newline
            elif char in "([":
                depth += 1
                if depth > MAX_DEPTH:
                    self.fail(
                        f"brackets are nested more than {MAX_DEPTH} levels deep",
                        self._base + at + 1,
                    )
            else:
                depth -= 1

    def fail(self, message: str, column: int, hint: str | None = None) -> NoReturn:
        raise ExpressionError(message, column=column, hint=hint)

    def at(self, error: ExpressionError, column: int) -> ExpressionError:
        """``error`` (raised by a shape check) placed at ``column``."""
        return error.located(column=column)

    def _check_name(self, name: str, column: int) -> None:
        if name.startswith("_"):
            self.fail(f"names starting with '_' are not allowed: '{name}'", column)

    # -- dispatch

    def compile(self, node: ast.expr, depth: int) -> _Node:
        """Compile one node; the match is the whitelist, anything else is refused."""
        if depth > MAX_DEPTH:
            self.fail(f"expression is nested more than {MAX_DEPTH} levels deep", self.column(node))
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
                return self._bool_op(node, depth)
            case ast.UnaryOp():
                return self._unary(node, depth)
            case ast.BinOp():
                return self._binary(node, depth)
            case ast.Compare():
                return self._compare(node, depth)
            case ast.IfExp():
                return self._if(node, depth)
            case ast.Call():
                return self._call(node, depth)
            case ast.List() | ast.Tuple():
                return self._sequence(node, depth)
        what = _REFUSED.get(type(node), type(node).__name__)
        self.fail(f"{what} is not allowed", self.column(node))

    # -- handlers

    def _constant(self, node: ast.Constant) -> _Node:
        value = node.value
        if value is not None and not isinstance(value, str | int | float):
            kind = "'...'" if value is Ellipsis else f"a {type(value).__name__} literal"
            self.fail(f"{kind} is not allowed", self.column(node))
        return _Node(lambda scope: value, SCALAR, value)

    def _name(self, node: ast.Name) -> _Node:
        name = node.id
        if name in LITERAL_NAMES:
            value = LITERAL_NAMES[name]
            return _Node(lambda scope: value, SCALAR, value)
        column = self.column(node)
        self._check_name(name, column)
        shape = self._names.get(name)
        if shape is None:
            hint = did_you_mean(name, self._names, what="known names")
            if name in FUNCTIONS:
                hint = f"'{name}' is a function: call it, as in {name}(...); {hint}"
            self.fail(f"unknown name '{name}'", column, hint)
        self.used.add(name)
        return _Node(lambda scope: scope.get(name), shape)

    def get_attribute(self, node: ast.Attribute, depth: int) -> _Node:
        name = node.attr
        column = self._base + self._end(node) - len(name) + 1
        self._check_name(name, column)
        inner = self.compile(node.value, depth + 1)
        try:
            shape = inner.shape.attribute(name, where=self.where(node.value))
        except ExpressionError as exc:
            raise self.at(exc, column) from None
        run = inner.run
        return _Node(lambda scope: get_attribute(run(scope), name), shape)

    def _subscript(self, node: ast.Subscript, depth: int) -> _Node:
        key_node = node.slice
        if isinstance(key_node, ast.Tuple):
            self.fail("indexing with several keys is not allowed", self.column(key_node))
        inner = self.compile(node.value, depth + 1)
        key = self.compile(key_node, depth + 1)
        literal = key.literal
        if isinstance(literal, str) and literal.startswith("_"):
            self.fail(f"keys starting with '_' are not allowed: {literal!r}", self.column(key_node))
        shape_key = (
            literal if isinstance(literal, str | int) and not isinstance(literal, bool) else None
        )
        try:
            shape = inner.shape.item(shape_key, where=self.where(node.value))
        except ExpressionError as exc:
            raise self.at(exc, self.column(key_node)) from None
        run_value, run_key, column = inner.run, key.run, self.column(node)

        def run(scope: Scope) -> Any:
            container, index = run_value(scope), run_key(scope)
            try:
                return get_item(container, index)
            except OPERATION_ERRORS as exc:
                raise EvaluationError(f"cannot index: {exc}", column=column) from None

        return _Node(run, shape)

    def _bool_op(self, node: ast.BoolOp, depth: int) -> _Node:
        parts = tuple(self.compile(value, depth + 1) for value in node.values)
        runs = tuple(part.run for part in parts)
        shape = common_shape(part.shape for part in parts)
        if isinstance(node.op, ast.And):

            def run(scope: Scope) -> Any:
                value = None
                for part in runs:
                    value = part(scope)
                    if not value:
                        return value
                return value

        else:

            def run(scope: Scope) -> Any:
                value = None
                for part in runs:
                    value = part(scope)
                    if value:
                        return value
                return value

        return _Node(run, shape)

    def _unary(self, node: ast.UnaryOp, depth: int) -> _Node:
        if isinstance(node.op, ast.Not):
            operand = self.compile(node.operand, depth + 1).run
            return _Node(lambda scope: not operand(scope), SCALAR)
        if not isinstance(node.op, ast.USub):
            symbol = _OPERATOR_SYMBOLS[type(node.op)]
            self.fail(
                f"unary operator '{symbol}' is not allowed",
                self.column(node),
                "only unary - is supported",
            )
        inner = self.compile(node.operand, depth + 1)
        if isinstance(inner.literal, int | float) and not isinstance(inner.literal, bool):
            negated = -inner.literal
            return _Node(lambda scope: negated, SCALAR, negated)
        value_run, column = inner.run, self.column(node)

        def run(scope: Scope) -> Any:
            value = value_run(scope)
            try:
                return -value
            except OPERATION_ERRORS:
                raise EvaluationError(
                    f"cannot apply unary '-' to {type_name(value)}", column=column
                ) from None

        return _Node(run, SCALAR)

    def _binary(self, node: ast.BinOp, depth: int) -> _Node:
        adding = isinstance(node.op, ast.Add)
        if not adding and not isinstance(node.op, ast.Sub):
            symbol = _OPERATOR_SYMBOLS[type(node.op)]
            self.fail(
                f"operator '{symbol}' is not allowed",
                self._between(node.left, node.right, symbol),
                "filters are not supported: call a function instead, as in upper(x)"
                if symbol == "|"
                else "only + and - are supported",
            )
        left = self.compile(node.left, depth + 1)
        right = self.compile(node.right, depth + 1)
        self.builds = True
        symbol = "+" if adding else "-"
        column = self._between(node.left, node.right, symbol)
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
            except OPERATION_ERRORS:
                raise EvaluationError(
                    f"cannot apply '{symbol}' to {type_name(a)} and {type_name(b)}", column=column
                ) from None

        return _Node(run, shape)

    def _compare(self, node: ast.Compare, depth: int) -> _Node:
        left_node = self.compile(node.left, depth + 1)
        first = left_node.run
        steps: list[tuple[str, Callable[[Any, Any], Any], Run, int]] = []
        previous = node.left
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            symbol, function = _COMPARISONS[type(op)]
            column = self._between(previous, comparator, symbol.split()[0])
            if isinstance(op, ast.Is | ast.IsNot) and not _is_none(comparator):
                self.fail(
                    f"'{symbol}' is only allowed with none (x {symbol} none)",
                    column,
                    "use == or != to compare values",
                )
            steps.append((symbol, function, self.compile(comparator, depth + 1).run, column))
            previous = comparator
        chain = tuple(steps)
        if len(chain) == 1:
            return _Node(_single_comparison(left_node, chain[0]), SCALAR)

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

        return _Node(run, SCALAR)

    def _if(self, node: ast.IfExp, depth: int) -> _Node:
        test = self.compile(node.test, depth + 1).run
        body = self.compile(node.body, depth + 1)
        orelse = self.compile(node.orelse, depth + 1)
        run_body, run_else = body.run, orelse.run
        shape = body.shape if body.shape == orelse.shape else ANY
        return _Node(lambda scope: run_body(scope) if test(scope) else run_else(scope), shape)

    def _call(self, node: ast.Call, depth: int) -> _Node:
        func = node.func
        column = self.column(func)
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
                self.column(keyword),
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
        args = [self.compile(arg, depth + 1) for arg in node.args]
        try:
            shape = function.shape(
                [
                    Arg(a.shape, a.literal, self.where(n))
                    for a, n in zip(args, node.args, strict=True)
                ]
            )
        except ExpressionError as exc:
            raise self.at(exc, column) from None
        runs, call = tuple(arg.run for arg in args), function.call
        self.builds = True

        def run(scope: Scope) -> Any:
            values = [arg(scope) for arg in runs]
            try:
                result = call(*values)
            except EvaluationBudgetError:
                raise
            except CatalogError as exc:
                raise EvaluationError(f"{name}(): {exc.message}", column=column) from None
            except Exception as exc:
                raise EvaluationError(f"{name}(): {exc}", column=column) from None
            charge(1 + cost(result) + sum(map(cost, values)))
            return result

        return _Node(run, shape)

    def _sequence(self, node: ast.List | ast.Tuple, depth: int) -> _Node:
        items = [self.compile(item, depth + 1) for item in node.elts]
        runs = tuple(item.run for item in items)
        shape = SequenceShape(common_shape(item.shape for item in items))
        if isinstance(node, ast.Tuple):
            return _Node(lambda scope: tuple(item(scope) for item in runs), shape)
        return _Node(lambda scope: [item(scope) for item in runs], shape)


def _is_none(node: ast.expr) -> bool:
    """Whether ``node`` is the none literal (``None`` or ``none``)."""
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Name) and node.id == "none"
