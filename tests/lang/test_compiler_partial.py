"""Compiling with constants: the same values as evaluating with them in the scope.

``compile_expression(source, names, constants)`` substitutes the constants and
computes what they decide; ``compile_template`` does the same for bodies. The
reference is the expression or body compiled without constants and evaluated
with the constants in its scope: same value (or, for a condition, the same
truth), or the same error, whatever the rest of the scope holds.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from catalog.engine.plan import AgentInfo, PartInfo
from catalog.errors import EvaluationError, ExpressionError
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY, SCALAR, MappingShape, SequenceShape, shape_of
from catalog.lang.template import compile_template

NAMES = {
    "tools": SequenceShape(SCALAR),
    "part": shape_of(PartInfo),
    "agent": shape_of(AgentInfo),
    "x": ANY,
    "n": SCALAR,
}
PARTS = (PartInfo("tool-bash", "Bash", "tool"), PartInfo("notes", "notes", "system"))
AGENTS = (
    AgentInfo("main", False),
    AgentInfo("explore", True, "Searches", ("Read", "Bash"), ("pdf",), "Read only.", {"k": 1}),
)
LEAVES = (
    "tools",
    "part.name",
    "part.kind",
    "agent.is_subagent",
    "agent.tools",
    "agent.name",
    "agent.meta",
    "agent.critical_reminder",
    "x",
    "n",
    '"Bash"',
    '"Read"',
    "1",
    "0",
    "-2",
    "true",
    "false",
    "none",
    '""',
    "[]",
    '["Bash", "Read"]',
)


def _combine(parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(parts, parts)
    return st.one_of(
        two.map(lambda p: f"({p[0]} and {p[1]})"),
        two.map(lambda p: f"({p[0]} or {p[1]})"),
        parts.map(lambda p: f"(not {p})"),
        two.map(lambda p: f"({p[0]} in {p[1]})"),
        two.map(lambda p: f"({p[0]} == {p[1]})"),
        two.map(lambda p: f"({p[0]} < {p[1]})"),
        two.map(lambda p: f"({p[0]} + {p[1]})"),
        st.tuples(parts, parts, parts).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        parts.map(lambda p: f"len({p})"),
        parts.map(lambda p: f"lower({p})"),
        parts.map(lambda p: f"first({p})"),
        parts.map(lambda p: f"{p}[0]"),
        two.map(lambda p: f"[{p[0]}, {p[1]}]"),
        two.map(lambda p: f"intersect({p[0]}, {p[1]})"),
    )


EXPRESSIONS = st.recursive(st.sampled_from(LEAVES), _combine, max_leaves=8)
SCOPES = st.fixed_dictionaries(
    {
        "tools": st.sampled_from(((), ("Bash",), ("Read", "Bash", "Grep"))),
        "x": st.sampled_from((None, "Bash", 3, True, ("a",), {"k": 1}, "")),
        "n": st.sampled_from((0, 2, -1)),
    }
)


def _result(run: Any, scope: dict[str, Any], truth: bool) -> object:
    try:
        value = run(scope)
    except EvaluationError as exc:
        return ("error", str(exc))
    return bool(value) if truth else repr(value)


@settings(max_examples=600, deadline=None)
@given(
    source=EXPRESSIONS,
    part=st.sampled_from(PARTS),
    agent=st.sampled_from(AGENTS),
    scope=SCOPES,
    truth=st.booleans(),
)
def test_constants_substituted_give_what_the_scope_would(
    source: str, part: PartInfo, agent: AgentInfo, scope: dict[str, Any], truth: bool
) -> None:
    try:
        generic = compile_expression(source, NAMES)
    except ExpressionError:
        assume(False)
    constants = {"part": part, "agent": agent}
    specialised = compile_expression(source, NAMES, constants, condition=truth)
    assert "part" not in specialised.names and "agent" not in specialised.names
    assert specialised.names <= generic.names
    assert {path[0] for path in specialised.reads} == specialised.names
    expected = _result(generic.evaluate, {**scope, **constants}, truth)
    assert _result(specialised.evaluate, scope, truth) == expected


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("part.name in tools and (not agent.is_subagent or part.name in agent.tools)", {"tools"}),
        ("agent.is_subagent and len(agent.skills) > 0", set()),
        ('"Read" in tools and ("Read" in agent.tools or not agent.is_subagent)', {"tools"}),
        ("intersect(tools, agent.tools) if agent.is_subagent else tools", {"tools"}),
    ],
)
def test_what_the_main_agent_fixes_is_gone_from_its_conditions(
    source: str, names: set[str]
) -> None:
    constants = {"part": PARTS[0], "agent": AGENTS[0]}
    specialised = compile_expression(source, NAMES, constants, condition=True)
    assert specialised.names == names
    assert not specialised.builds  # no function is left to call


def test_a_condition_on_the_main_agent_becomes_one_membership_test() -> None:
    condition = "part.name in tools and (not agent.is_subagent or part.name in agent.tools)"
    constants = {"part": PARTS[0], "agent": AGENTS[0]}
    specialised = compile_expression(condition, NAMES, constants, condition=True)
    assert specialised.reads == {("tools",)} and not specialised.builds
    assert specialised.membership == ("Bash", "tools")  # a plan may test many at once
    assert specialised({"tools": ("Read", "Bash")}) is True
    assert specialised({"tools": ("Read",)}) is False
    assert specialised({"tools": None}) is False
    many = (*(f"T{i}" for i in range(100)), "Bash")  # past the short-tuple path
    assert specialised({"tools": many}) is True
    with pytest.raises(EvaluationError, match="cannot apply 'in' to text and number"):
        specialised({"tools": 5})


def test_the_checks_are_those_of_the_expression_as_written() -> None:
    # Whatever part and agent hold, the names and shapes are checked as written.
    constants = {"part": PARTS[0], "agent": AGENTS[0]}
    for source in ("part.nmae", "agent.tolos", "unknown and false", "len()"):
        with pytest.raises(ExpressionError) as generic:
            compile_expression(source, NAMES)
        with pytest.raises(ExpressionError) as specialised:
            compile_expression(source, NAMES, constants)
        assert str(specialised.value) == str(generic.value)
    # An error a constant would raise comes when evaluating, as written.
    failing = compile_expression("part.name < 5", NAMES, constants)
    assert failing.names == frozenset()
    with pytest.raises(EvaluationError, match="cannot apply '<' to text and number"):
        failing({})


def test_a_known_list_is_a_new_list_each_time() -> None:
    expression = compile_expression('["a", "b"]', NAMES)
    first = expression({})
    first.append("c")
    assert expression({}) == ["a", "b"]


BODIES = (
    "{% if agent.is_subagent %}sub {{ agent.name }}{% else %}main{% endif %}: {{ part.name }}",
    "{% for agent in agent.tools %}- {{ agent }} {{ loop.index }}\n{% endfor %}{{ agent.name }}",
    "{% for t in tools %}{% if t in agent.tools or not agent.is_subagent %}{{ t }}"
    "{% endif %}{% endfor %}",
    '{% if "Read" in tools and ("Read" in agent.tools or not agent.is_subagent) %}'
    "read{% elif x %}{{ x }}{% elif agent.critical_reminder %}!{% else %}none{% endif %}",
    "{{ part.name < 5 if agent.is_subagent else n }} {{ agent.meta }}",
    "{% if agent.is_subagent %}{{ 1 < x }}{% endif %}{{ len(tools) }}",
)


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_a_body_compiled_with_constants_renders_as_with_them_in_scope(
    body: str, agent: AgentInfo
) -> None:
    constants = {"part": PARTS[0], "agent": agent}
    generic = compile_template(body, NAMES)
    specialised = compile_template(body, NAMES, None, constants)
    assert not {"part", "agent", "loop", "t"} & specialised.names
    assert {path[0] for path in specialised.reads} == specialised.names
    for tools in ((), ("Read", "Bash")):
        for x in (None, "note", 3):
            scope = {"tools": tools, "x": x, "n": 2}
            expected = _result(generic.render, {**scope, **constants}, False)
            assert _result(specialised.render, scope, False) == expected


def test_a_body_that_constants_decide_becomes_text() -> None:
    body = "{% if agent.is_subagent %}{{ agent.critical_reminder }}{% else %}main{% endif %}"
    specialised = compile_template(body, NAMES, None, {"agent": AGENTS[1]})
    assert specialised.names == frozenset() and specialised.render({}) == "Read only."
    assert compile_template(body, NAMES).names == {"agent"}


def test_a_body_reads_exactly_the_paths_of_the_branches_it_keeps() -> None:
    body = (
        "{% if agent.is_subagent %}{{ env.os }}{% else %}{{ env.cwd }}{% endif %}"
        "{% for s in skills %}{{ s.name }}{{ tools }}{% endfor %}"
    )
    names = {**NAMES, "env": ANY, "skills": SequenceShape(ANY)}
    main = compile_template(body, names, None, {"agent": AGENTS[0]})
    assert main.reads == {("env", "cwd"), ("skills",), ("tools",)}
    sub = compile_template(body, names, None, {"agent": AGENTS[1]})
    assert sub.reads == {("env", "os"), ("skills",), ("tools",)}


@pytest.mark.parametrize(
    ("source", "holds"),
    [
        ("len(tools) > 0", [False, True, False]),
        ("len(tools) != 0", [False, True, False]),
        ("len(tools) >= 1", [False, True, False]),
        ("len(tools) == 0", [True, False, True]),
        ("len(tools) < 1", [True, False, True]),
        ("len(intersect(['Read'], tools)) > 0", [False, True, False]),
    ],
)
def test_where_only_truth_matters_a_length_is_not_counted(source: str, holds: list[bool]) -> None:
    names = {"tools": SequenceShape(SCALAR)}
    condition = compile_expression(source, names, condition=True)
    values: tuple[list[str] | None, ...] = ([], ["Read"], None)
    assert [bool(condition({"tools": v})) for v in values] == holds
    assert [bool(compile_expression(source, names)({"tools": v})) for v in values] == holds
    # len() is not called: it adds no work of its own, and a plain read needs no budget.
    assert condition.builds == ("intersect" in source)
    assert compile_expression(source, names).builds


_OPERATORS = ("<", "<=", ">", ">=", "==", "!=")
_LENGTH_TESTS = [
    source
    for op in _OPERATORS
    for n in (0, 1, 2)
    for source in (f"len(tools) {op} {n}", f"{n} {op} len(tools)")
]


@pytest.mark.parametrize("source", _LENGTH_TESTS)
def test_every_length_test_holds_as_python_says(source: str) -> None:
    """Each comparison of a length with 0, 1 or 2, either side, against lists and
    mappings of 0 to 3 items: Python's own evaluator is the oracle, so a shortcut that
    reads one of them as a test of emptiness shows."""
    names = {"tools": SequenceShape(SCALAR), "table": MappingShape(SCALAR)}
    lists = [[], ["Read"], ["Read", "Bash"], ["Read", "Bash", "Grep"]]
    expected = [eval(source, {"len": len}, {"tools": v}) for v in lists]
    for condition in (True, False):
        compiled = compile_expression(source, names, condition=condition)
        assert [bool(compiled({"tools": v})) for v in lists] == expected, condition
        on_table = compile_expression(source.replace("tools", "table"), names, condition=condition)
        tables = [dict.fromkeys(v, 1) for v in lists]
        assert [bool(on_table({"table": t})) for t in tables] == expected, condition
    # none has no items: its length is 0
    nothing = compile_expression(source, names, condition=True)({"tools": None})
    assert bool(nothing) == expected[0]


@pytest.mark.parametrize(
    "source",
    ["len(tools) > 1", "len(name) > 0", "len(tools) > 0.0", "len(tools) > 0 > -1"],
)
def test_other_lengths_are_counted_as_written(source: str) -> None:
    names = {"tools": SequenceShape(SCALAR), "name": SCALAR}
    assert compile_expression(source, names, condition=True).builds
    # A text's length is counted: len(5) is an error where the truth of 5 is not.
    if source == "len(name) > 0":
        with pytest.raises(EvaluationError, match="len"):
            compile_expression(source, names, condition=True)({"name": 5})


def test_a_written_length_test_still_writes_true_or_false() -> None:
    body = "{{ len(tools) > 0 }}/{% if len(tools) > 0 %}some{% else %}none{% endif %}"
    template = compile_template(body, {"tools": SequenceShape(SCALAR)})
    assert template.render({"tools": ["Read"]}) == "true/some"
    assert template.render({"tools": []}) == "false/none"
