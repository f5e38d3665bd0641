"""The compiler's exact answers: whole messages and columns, the nesting limit at every
kind of operand, what a compiled expression records (names, paths read, shape, nodes,
whether it builds) and the budget units its operations charge.

The tables in ``test_compiler.py`` check that a message *holds* a phrase; here each
message is written out whole, by hand, from the language as docs/expressions.md
describes it, and each budget figure from its rule (a character read or built is one
unit, a list item 16). Budgets are counted in units (``spent()``), never in time.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from catalog.errors import EvaluationBudgetError, EvaluationError, ExpressionError
from catalog.lang.compiler import ExpressionCache, compile_expression
from catalog.lang.shapes import ANY, SCALAR, RecordShape, SequenceShape
from catalog.lang.values import one_budget, spent

NAMES = {
    "leaf": ANY,
    "x": ANY,
    "y": ANY,
    "n": SCALAR,
    "tools": SequenceShape(SCALAR),
    "env": RecordShape({"os": SCALAR, "shell": SCALAR}, "Env"),
}


# -- the nesting limit holds at every kind of operand

# Each wrap puts ``{}`` one level below its own node; wrapped 31 times around ``leaf``
# the deepest operands sit 32 levels deep (the limit), wrapped 32 times one level too
# deep. The number is where, in the innermost wrap, the first operand compiled starts:
# the node the error names.
WRAPS = [
    ("{}.a", 0),  # an attribute's value
    ("{}[0]", 0),  # what is indexed
    ("x[{}]", 0),  # the key (the indexed x is compiled first)
    ("({} and x)", 1),
    ("(x or y or {})", 1),
    ("not {}", 4),
    ("-{}", 1),
    ("({} + x)", 1),
    ("(x - {})", 1),
    ("({} == x)", 1),
    ("(x < y < {})", 1),
    ("({} if x else y)", 9),  # the test is compiled first
    ("(x if {} else y)", 6),
    ("(x if y else {})", 6),
    ("str({})", 4),
    ("join(x, {})", 5),
    ("replace(x, y, {})", 8),
    ("[x, {}]", 1),
    ("({}, x)", 1),
]


def _nest(wrap: str, times: int) -> str:
    source = "leaf"
    for _ in range(times):
        source = wrap.format(source)
    return source


@pytest.mark.parametrize(("wrap", "first"), WRAPS)
@pytest.mark.parametrize("condition", [False, True])
def test_the_depth_limit_counts_one_level_per_operand(
    wrap: str, first: int, condition: bool
) -> None:
    compile_expression(_nest(wrap, 31), NAMES, condition=condition)
    too_deep = _nest(wrap, 32)
    with pytest.raises(ExpressionError) as caught:
        compile_expression(too_deep, NAMES, condition=condition)
    assert caught.value.message == "expression is nested more than 32 levels deep"
    assert caught.value.column == too_deep.index(wrap.format("leaf")) + first + 1


@pytest.mark.parametrize("measured", ["{}", "[{}]"])
def test_the_depth_limit_holds_where_a_length_test_is_read_as_truth(measured: str) -> None:
    # len(...) > 0 as a condition is compiled again as the truth of what len() measures:
    # at the same depth as written, so the limit falls at the same place.
    def source(times: int) -> str:
        return "len(" + measured.format("-" * times + "leaf") + ") > 0"

    ok = source(29 - measured.count("["))
    compile_expression(ok, NAMES, condition=True)
    too_deep = source(30 - measured.count("["))
    with pytest.raises(ExpressionError) as caught:
        compile_expression(too_deep, NAMES, condition=True)
    assert caught.value.message == "expression is nested more than 32 levels deep"
    assert caught.value.column == too_deep.index("leaf") + 1


# -- attributes: a declared field is read the same on every evaluation


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int


@pytest.mark.parametrize(
    ("source", "expected", "from_mappings"),
    [
        ("v.p.x", 1, 5),  # a path of two steps: read from what the first gives
        ("first(v.ps).y", 2, 6),  # read from what a call gives
        ("v.p", Point(1, 2), {"x": 5}),
        ("p.y", 2, 6),  # a name's attribute, in one step
    ],
)
def test_a_declared_field_reads_alike_on_every_evaluation(
    source: str, expected: Any, from_mappings: Any
) -> None:
    # The first read finds the class declares the field; later reads take it directly.
    expression = compile_expression(source, {"v": ANY, "p": ANY})
    scope = {"v": {"p": Point(1, 2), "ps": [Point(1, 2)]}, "p": Point(1, 2)}
    assert [expression(scope) for _ in range(3)] == [expected] * 3
    # The same expression then meets mappings: their keys are read.
    assert expression({"v": {"p": {"x": 5}, "ps": [{"y": 6}]}, "p": {"y": 6}}) == from_mappings


# -- what a compiled expression records


@pytest.mark.parametrize(
    ("source", "condition", "reads", "builds"),
    [
        ("env.os", False, {("env", "os")}, False),
        ("x.a.b", False, {("x", "a", "b")}, False),  # a path of three steps, read whole
        ("x.a.b == y", False, {("x", "a", "b"), ("y",)}, False),
        ("x[0].a", False, {("x",)}, False),  # indexed: the name is read whole
        ("first(x).a", False, {("x",)}, True),
        ("len(tools) > 0", False, {("tools",)}, True),
        ("len(tools) > 0", True, {("tools",)}, False),  # only its truth: no length counted
        ("1 if len(tools) > 0 else 2", False, {("tools",)}, False),  # the test: only truth
        ("x if len(tools) > 0 else str(y)", False, {("tools",), ("x",), ("y",)}, True),
        ("x + 1 if y else 2", False, {("x",), ("y",)}, True),
        ("x if y else x + 1", False, {("x",), ("y",)}, True),
        ("x + 1 if y else x", False, {("x",), ("y",)}, True),
        ("str(1) if true else x", False, set(), False),  # decided: computed once, now
        ("lower(1)", False, set(), True),  # known, but fails: called at each evaluation
        ('[["a"]] + [["b"]]', False, set(), True),  # known, joined afresh each time
        ('[["a"]] + [["b"]] or x', False, set(), True),
        ('["a"] + ["b"]', False, set(), False),  # known and flat: copied
        ('[split("a b"), ["c"]]', False, set(), False),
        ("('a' - 1) if x else 2", False, {("x",)}, True),
        ("x if false else y.a", False, {("y", "a")}, False),
        ("(x.a if true else y).b", False, {("x", "a", "b")}, False),  # still a path
        ("(x if false else y.a).b", False, {("y", "a", "b")}, False),
        ("str(x) if true else y", False, {("x",)}, True),
        ("x if false else y + 1", False, {("y",)}, True),
        ("x if y else len(tools) > 0", True, {("x",), ("y",), ("tools",)}, False),
        ("len(tools) > 0 if y else x", True, {("x",), ("y",), ("tools",)}, False),
        ("x if y else len(tools) > 0", False, {("x",), ("y",), ("tools",)}, True),
        ("len(tools) > 0 if true else x", True, {("tools",)}, False),
        ("x if false else len(tools) > 0", True, {("tools",)}, False),
        ("not len(tools) > 0", False, {("tools",)}, False),
        ("x if str(y) else 1", False, {("x",), ("y",)}, True),
        ("x and str(y)", False, {("x",), ("y",)}, True),
        ("true and str(x)", False, {("x",)}, True),  # one operand left to run
        ("false or x + 1", False, {("x",)}, True),
        ("len(tools) > 0 and x", True, {("tools",), ("x",)}, False),
        ("x or len(tools) > 0", True, {("tools",), ("x",)}, False),
        ("x or len(tools) > 0", False, {("tools",), ("x",)}, True),
        ("x or y + 1", False, {("x",), ("y",)}, True),
        ("-x", False, {("x",)}, False),
        ("[x, y.a]", False, {("x",), ("y", "a")}, False),
        ("(x, 1)", False, {("x",)}, False),
        ("x[y]", False, {("x",), ("y",)}, False),
        ("x - 1", False, {("x",)}, True),  # arithmetic builds: it may join texts
    ],
)
def test_an_expression_records_what_it_reads_and_whether_it_builds(
    source: str, condition: bool, reads: set[tuple[str, ...]], builds: bool
) -> None:
    expression = compile_expression(source, NAMES, condition=condition)
    assert expression.reads == reads
    assert expression.names == {path[0] for path in reads}
    assert expression.builds is builds


@pytest.mark.parametrize(
    ("source", "shape"),
    [
        ("env if x else env", RecordShape({"os": SCALAR, "shell": SCALAR}, "Env")),
        ("env if true else env", RecordShape({"os": SCALAR, "shell": SCALAR}, "Env")),
        ("tools if x else env", ANY),
        ("tools if true else env", ANY),  # the shape of what is written, whatever runs
    ],
)
def test_a_conditional_has_the_shape_its_two_sides_share(source: str, shape: object) -> None:
    assert compile_expression(source, NAMES).shape == shape


# -- refusals: the whole message, its column and its hint

KNOWN = "known names: env, leaf, n, tools, x, y"
CALLABLE = "only these functions can be called: all, any, basename, bool, brackets, "
OS = "did you mean 'os'? attributes of Env: os, shell"
IS = "use == or != to compare values"
LEN = "len(x): number of items or characters; 0 for none"
JOIN = 'join(seq, sep=""): the items rendered, joined by sep'
REPLACE = "replace(s, old, new): every old in s replaced"
RECORD = "loop over one of its list attributes instead"

REFUSALS: list[tuple[str, str, int, str | None]] = [
    ("x[1, 2]", "indexing with several keys is not allowed", 3, None),
    ("x['_k']", "keys starting with '_' are not allowed: '_k'", 3, None),
    ("tools['a']", "'tools' is a list and cannot be indexed with the key 'a'", 7, None),
    ("(tools)['a']", "'tools' is a list and cannot be indexed with the key 'a'", 9, None),
    ("env[1]", "'env' (Env) cannot be indexed with a number", 5, None),
    ("x._y", "names starting with '_' are not allowed: '_y'", 3, None),
    ("  x . _y", "names starting with '_' are not allowed: '_y'", 7, None),
    ("_y", "names starting with '_' are not allowed: '_y'", 1, None),
    ("env.oss", "'env' (Env) has no attribute 'oss'", 5, OS),
    ("  env.oss", "'env' (Env) has no attribute 'oss'", 7, OS),
    (
        "tools.name",
        "'tools' is a list and has no attribute 'name'",
        7,
        "index it (tools[0]), loop over it, or use pluck(tools, 'name')",
    ),
    ("tols", "unknown name 'tols'", 1, f"did you mean 'tools'? {KNOWN}"),
    (
        "len",
        "unknown name 'len'",
        1,
        f"'len' is a function: call it, as in len(...); did you mean 'env'? {KNOWN}",
    ),
    ("~x", "unary operator '~' is not allowed", 1, "only unary - is supported"),
    ("n + +x", "unary operator '+' is not allowed", 5, "only unary - is supported"),
    ("env[-1]", "'env' (Env) cannot be indexed with a number", 5, None),  # -1 is a literal
    ("x * 2", "operator '*' is not allowed", 3, "only + and - are supported"),
    (
        "x | lower",
        "operator '|' is not allowed",
        3,
        "filters are not supported: call a function instead, as in upper(x)",
    ),
    ("x is 1", "'is' is only allowed with none (x is none)", 3, IS),
    ("x is not y", "'is not' is only allowed with none (x is not none)", 3, IS),
    ("x == y is 1", "'is' is only allowed with none (x is none)", 8, IS),
    ("len(y=x)", "len() takes no keyword arguments", 5, "pass arguments by position"),
    ("len()", "len() takes 1 argument, 0 given", 1, LEN),
    ("x + len(x, y)", "len() takes 1 argument, 2 given", 5, LEN),
    ("join(x, y, 1)", "join() takes 1 to 2 arguments, 3 given", 1, JOIN),
    ("replace(x, y)", "replace() takes 3 arguments, 2 given", 1, REPLACE),
    ("_f(x)", "names starting with '_' are not allowed: '_f'", 1, None),
    ("first(env)", "'env' (Env) is a record and cannot be iterated", 1, RECORD),
    ("n + first(env)", "'env' (Env) is a record and cannot be iterated", 5, RECORD),
    ("b'x'", "a bytes literal is not allowed", 1, None),
    ("n + ...", "'...' is not allowed", 5, None),
    ("lambda: 1", "lambda is not allowed", 1, None),
    ("x + [y for y in x]", "a list comprehension is not allowed", 5, None),
]  # fmt: skip


@pytest.mark.parametrize(("source", "message", "column", "hint"), REFUSALS)
def test_a_refusal_says_what_where_and_what_to_do(
    source: str, message: str, column: int, hint: str | None
) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(source, NAMES)
    assert (caught.value.message, caught.value.column, caught.value.hint) == (message, column, hint)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("lenn(x)", "unknown function 'lenn'"),
        ("x.upper()", "calling methods is not allowed"),
        ("len(x)(1)", "calling the result of an expression is not allowed"),
    ],
)
def test_a_wrong_call_names_the_functions(source: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(source, NAMES)
    assert (caught.value.message, caught.value.column) == (message, 1)
    assert caught.value.hint is not None
    if source.startswith("lenn"):
        assert caught.value.hint.startswith("did you mean 'len'? functions: all, any, basename, ")
    else:
        assert caught.value.hint.startswith(CALLABLE)
    assert caught.value.hint.endswith(", unique, upper, values")


def test_a_true_or_false_key_is_no_number_to_a_record() -> None:
    # Only a number is refused as a record's key: true is true/false, not a number.
    assert compile_expression("env[true]", NAMES)({"env": {"os": "linux"}}) is None
    with pytest.raises(EvaluationError) as caught:
        compile_expression("tools[true]", NAMES)({"tools": ["Read"]})
    assert caught.value.message == "cannot index: a list is indexed by number, not true/false"
    assert caught.value.column == 1


@pytest.mark.parametrize(
    ("source", "message", "column"),
    [
        ("n + y[0]", "cannot index: number cannot be indexed", 5),
        ("  n + (y)[0]", "cannot index: number cannot be indexed", 7),
        ("n + -x", "cannot apply unary '-' to text", 5),
        ("n + (x - 1)", "cannot apply '-' to text and number", 8),
        ("n - (1 + x)", "cannot apply '+' to number and text", 8),
        ("n + (x < 1)", "cannot apply '<' to text and number", 8),
        ("n + (1 < 2 < x)", "cannot apply '<' to number and text", 12),
        ("n + lower(n)", "lower(): expected text, got number", 5),
        ("n + replace(n, x, x)", "replace(): expected text, got number", 5),
    ],
)
def test_an_evaluation_error_says_what_and_where(source: str, message: str, column: int) -> None:
    expression = compile_expression(source, NAMES)
    with pytest.raises(EvaluationError) as caught:
        expression({"x": "text", "y": 5, "n": 1})
    assert (caught.value.message, caught.value.column) == (message, column)


@pytest.mark.parametrize(
    "source", ["len(tools) > 0", "len(tools) == 0", "not len(tools) > 0", "len(x) > 0"]
)
@pytest.mark.parametrize("condition", [False, True])
def test_a_length_test_is_a_plain_value_however_compiled(source: str, condition: bool) -> None:
    assert compile_expression(source, NAMES, condition=condition).shape == SCALAR


# -- the budget: what '+' and a call charge, in units


def _spent(source: str, scope: dict[str, Any]) -> tuple[Any, int]:
    """The value of ``source`` against ``scope`` and the budget units it spent."""
    expression = compile_expression(source, NAMES)

    def run() -> tuple[Any, int]:
        return expression(scope), spent()

    return one_budget(run)


@pytest.mark.parametrize(
    ("source", "scope", "value", "units"),
    [
        # '+' of texts or lists charges what it joins: a character 1, an item 16
        ("x + y", {"x": "abc", "y": "de"}, "abcde", 5),
        ("x + y", {"x": [1, 2], "y": (3,)}, [1, 2, 3], 3 * 16),
        ("x + y", {"x": (1,), "y": ()}, [1], 16),
        ("x + y", {"x": 2, "y": 3}, 5, 0),  # numbers: nothing read
        ("x - y", {"x": 2, "y": 3}, -1, 0),
        ("[x, 'a'] + [y]", {"x": 1, "y": 2}, [1, "a", 2], 3 * 16),
        # a call charges one, its result and its arguments
        ("lower(x)", {"x": "AB"}, "ab", 1 + 2 + 2),
        ("len(x)", {"x": [1, 2, 3]}, 3, 1 + 1 + 3 * 16),
        ("startswith(x, y)", {"x": "abc", "y": "ab"}, True, 1 + 1 + 3 + 2),
        ("join(x, y)", {"x": ["a", "b"], "y": "--"}, "a--b", 1 + 4 + 2 * 16 + 2),
        ("replace(x, y, y)", {"x": "abc", "y": "b"}, "abc", 1 + 3 + 3 + 1 + 1),
        ("lower(x + y)", {"x": "AB", "y": "C"}, "abc", 3 + (1 + 3 + 3)),
        # what the expression writes whole is computed once, when compiling
        ("'ab' + 'c'", {}, "abc", 0),
        ("lower('AB')", {}, "ab", 0),
        ("replace('abc', 'b', 'x')", {}, "axc", 0),
        ("len([1, 2]) + len(x)", {"x": "ab"}, 4, 1 + 1 + 2),
    ],
)
def test_an_operation_charges_what_it_reads_and_builds(
    source: str, scope: dict[str, Any], value: Any, units: int
) -> None:
    assert _spent(source, scope) == (value, units)


def test_a_spent_budget_names_the_expression() -> None:
    # Each x + x builds a list of a million items: 16 million units, three fit in 50.
    source = "len(x + x) + len(x + x) + len(x + x) + len(x + x)"
    with pytest.raises(EvaluationBudgetError) as caught:
        compile_expression(source, NAMES)({"x": [0] * 500_000})
    assert caught.value.message == (
        "more work than the evaluation budget of 50000000 units "
        f"(a character of text is one, a list item 16), in `{source}`"
    )
    assert caught.value.expression == f"`{source}`"


@pytest.mark.parametrize(
    ("source", "condition", "membership"),
    [
        ('"Bash" in tools', True, ("Bash", "tools")),
        ('"Bash" in tools', False, None),  # a value, not a condition: no shortcut
        ("3 in x", True, (3, "x")),
        ('"Bash" not in tools', True, None),
        ('"Bash" == tools', True, None),
        ('"Bash" in x.tools', True, None),  # an attribute, not a name
        ('"Bash" in [x]', True, None),
        ("y in tools", True, None),  # the value looked for is not known
        ('"Bash" in tools in x', True, None),  # a chain
        ('"Bash" in tools and n', True, None),
        ('n and "Bash" in tools', True, None),
        ('true and "Bash" in tools', True, ("Bash", "tools")),  # what decides its truth
        ('["a"] and "Bash" in tools', True, ("Bash", "tools")),
        ('[["a"]] and "Bash" in tools', True, ("Bash", "tools")),
        ('[] or "Bash" in tools', True, ("Bash", "tools")),
    ],
)
def test_a_condition_that_is_one_membership_test_says_so(
    source: str, condition: bool, membership: tuple[object, str] | None
) -> None:
    assert compile_expression(source, NAMES, condition=condition).membership == membership


# -- what is computed while compiling


@pytest.mark.parametrize(
    "source",
    [
        '["a", "b"]',
        '[["a"], ["b"]]',
        'split("a b")',
        '[split("a b"), ["c"]]',
        "[[]]",
        '["a"] or x',  # decided by a known operand: that operand's value, afresh
        '[["a"]] or x',
        'true and ["a"]',
        'False or [["a"], split("b c")]',
        '["a"] if True else x',
        '[["a"]] if x else [["a"]]',
    ],
)
def test_a_known_list_is_new_at_every_evaluation(source: str) -> None:
    expression = compile_expression(source, NAMES)
    first = expression({})
    # Python's own reading of the expression is the reference.
    expected = eval(source, {"split": str.split, "true": True, "x": None})
    assert first == expected
    first.append("changed")
    for item in first:
        if isinstance(item, list):
            item.append("changed")
    assert expression({}) == expected


@pytest.mark.parametrize(
    ("source", "message", "column"),
    [
        ("lower(1)", "lower(): expected text, got number", 1),
        ("n + ('a' - 1)", "cannot apply '-' to text and number", 10),
        ("n + -'a'", "cannot apply unary '-' to text", 5),
        ("n + [1][x]", "cannot index: a list is indexed by number, not none", 5),
    ],
)
def test_a_constant_that_fails_fails_when_evaluated(source: str, message: str, column: int) -> None:
    # Known operands that fail to combine are not refused when compiling: evaluating
    # fails, as it would with the values in the scope, each time.
    expression = compile_expression(source, NAMES)
    for _ in range(2):
        with pytest.raises(EvaluationError) as caught:
            expression({"n": 1})
        assert (caught.value.message, caught.value.column) == (message, column)


@pytest.mark.parametrize(
    ("source", "shape"),
    [
        ("tools + tools", SequenceShape(SCALAR)),
        ("tools + x", ANY),
        ("x + tools", ANY),
        ("n + n", SCALAR),
        ("n - x", ANY),
        ("x - x", ANY),
        ("n == n", SCALAR),
        ("x < y < n", SCALAR),
        ("x == y == tools", SCALAR),
        ("(n, 1)", SequenceShape(SCALAR)),
        ("(n, x)", SequenceShape(ANY)),
        ("[n, 'a']", SequenceShape(SCALAR)),
        ("()", SequenceShape(ANY)),
    ],
)
def test_an_operation_has_the_shape_of_its_result(source: str, shape: object) -> None:
    assert compile_expression(source, NAMES).shape == shape


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        ("ab", {"k": 1}, "cannot apply '+' to text and mapping"),
        ({"k": 1}, "ab", "cannot apply '+' to mapping and text"),
        ((1, 2), {1, 2}, "cannot apply '+' to list and set"),
        ("ab", 1, "cannot apply '+' to text and number"),
        (1, [1], "cannot apply '+' to number and list"),
    ],
)
def test_adding_what_cannot_be_added_fails_before_charging(x: Any, y: Any, message: str) -> None:
    expression = compile_expression("x + y", NAMES)

    def run() -> int:
        with pytest.raises(EvaluationError) as caught:
            expression({"x": x, "y": y})
        assert (caught.value.message, caught.value.column) == (message, 3)
        return spent()

    assert one_budget(run) == 0


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        (
            "a" * 5_000_001,
            "b" * 5_000_000,
            "the result of '+' would be 10000001 long, more than the limit of 10000000",
        ),
        (
            [0] * 500_001,
            (0,) * 500_000,
            "the result of '+' would have 1000001 items, more than the limit of 1000000",
        ),
    ],
)
def test_adding_past_a_limit_says_which(x: Any, y: Any, message: str) -> None:
    with pytest.raises(EvaluationError) as caught:
        compile_expression("n + (x + y)", NAMES)({"x": x, "y": y})
    assert (caught.value.message, caught.value.column) == (message, 8)


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        ([1], "ab", "cannot apply '+' to list and text"),
        ("ab", (1,), "cannot apply '+' to text and list"),
    ],
)
def test_a_list_and_a_text_do_not_join(x: Any, y: Any, message: str) -> None:
    with pytest.raises(EvaluationError) as caught:
        compile_expression("x + y", NAMES)({"x": x, "y": y})
    assert (caught.value.message, caught.value.column) == (message, 3)


# -- calls: their failures and what they charge


SEPARATOR = "expected a text separator, got number"
TEXT = "expected text, got number"
DIRECTIVES = (
    "known directives: %a %A %b %B %d %e %j %m %y %Y %H %I %M %S %p %u %z %:z %Z %F %T %%; "
    "a '-' (as in %-d) drops a number's padding"
)


@pytest.mark.parametrize(
    ("source", "scope", "message", "column", "hint"),
    [
        ("n + lower(x)", {"x": 1}, "lower(): expected text, got number", 5, None),
        ("n + join(x, y)", {"x": ["a"], "y": 1}, f"join(): {SEPARATOR}", 5, None),
        ("n + replace(x, y, y)", {"x": 1, "y": "a"}, f"replace(): {TEXT}", 5, None),
        (
            "n + strftime(x, y)",
            {"x": "2026-03-07", "y": "%Q"},
            "strftime(): strftime format '%Q': unknown directive '%Q'",
            5,
            DIRECTIVES,
        ),
    ],
)  # fmt: skip
def test_a_failed_call_names_the_function_where_it_is_called(
    source: str, scope: dict[str, Any], message: str, column: int, hint: str | None
) -> None:
    expression = compile_expression(source, NAMES)
    with pytest.raises(EvaluationError) as caught:
        expression({"n": 1, **scope})
    assert type(caught.value) is EvaluationError
    assert (caught.value.message, caught.value.column, caught.value.hint) == (message, column, hint)


def test_a_call_that_spends_the_budget_says_so_unchanged() -> None:
    # sorted() charges what it compares before sorting: 16 units per item, and each
    # item again for every halving of the list; a million items spend far more than 50
    # million units, so the call fails before sorting anything.
    with pytest.raises(EvaluationBudgetError) as caught:
        compile_expression("n + len(sorted(x))", NAMES)({"x": [0] * 1_000_000, "n": 1})
    assert caught.value.message == (
        "more work than the evaluation budget of 50000000 units "
        "(a character of text is one, a list item 16), in `n + len(sorted(x))`"
    )
    assert caught.value.column is None


@pytest.mark.parametrize(
    ("source", "scope", "value", "units"),
    [
        ("(x, 1)", {"x": 5}, (5, 1), 0),
        ("[x, y]", {"x": 5, "y": "a"}, [5, "a"], 0),
        ("replace(x, y, 'c')", {"x": "abab", "y": "b"}, "acac", 1 + 4 + 4 + 1 + 1),
        ("truncate(x, 3, y)", {"x": "abcdef", "y": "."}, "ab.", 1 + 3 + 6 + 1 + 1),
    ],
)
def test_what_a_sequence_or_a_call_of_three_gives_and_charges(
    source: str, scope: dict[str, Any], value: Any, units: int
) -> None:
    assert _spent(source, scope) == (value, units)


@pytest.mark.parametrize(
    ("source", "nodes"),
    [
        ("n", 1),
        ("n + 1", 3),
        ("-1", 2),
        ("x.a[0]", 4),
        ("[n, 1, 'a']", 4),
        ("len(tools) > 0", 4),
        ("x if y else not n", 5),
        ("x and y or n", 5),
    ],
)
def test_an_expression_counts_the_nodes_it_compiled(source: str, nodes: int) -> None:
    assert compile_expression(source, NAMES).nodes == nodes


# -- the cache of compiled expressions


def test_the_cache_gives_back_what_it_compiled_for_the_same_arguments() -> None:
    cache = ExpressionCache()
    names = dict(NAMES)
    constants = {"n": 2}
    first = cache.compile("len(tools) > n", names, constants)
    assert cache.compile("len(tools) > n", names, constants) is first
    assert first({"tools": [1, 2, 3]}) is True and first.names == {"tools"}
    # Another source, names mapping, constants mapping or use: compiled again.
    assert cache.compile("len(tools) < n", names, constants) is not first
    assert cache.compile("len(tools) > n", dict(names), constants) is not first
    other = cache.compile("len(tools) > n", names, {"n": 5})
    assert other is not first and other({"tools": [1, 2, 3]}) is False
    assert cache.compile("len(tools) > 0", names).builds is True
    condition = cache.compile("len(tools) > 0", names, condition=True)
    assert condition.builds is False
    assert cache.compile("len(tools) > 0", names, condition=True) is condition
    # No constants and empty constants are the same.
    assert cache.compile("n", names, {}) is cache.compile("n", names)
    assert cache.compile("n", names, None) is cache.compile("n", names)
    assert cache.compile("n", names)({"n": 7}) == 7


def test_the_cache_keeps_no_failure() -> None:
    cache = ExpressionCache()
    for _ in range(2):
        with pytest.raises(ExpressionError) as caught:
            cache.compile("nn", NAMES)
        assert (caught.value.message, caught.value.column) == ("unknown name 'nn'", 1)
