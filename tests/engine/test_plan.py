"""Specialised plans give what the unspecialised ones give, on every bundled catalog.

Each agent's plan substitutes what is fixed for it, settles constant conditions
and bodies, leaves out parts it never uses and remembers bodies by what they
read (``catalog.engine.plan``). The reference here is the same catalog's plans
made with ``specialise=False``: conditions and bodies evaluated as written,
nothing computed in advance, nothing remembered. Every bundled catalog, every
version, every agent, under a spread of contexts (budgets, overrides, custom
prompts, appended text, sub-agents, reminders, MCP servers, skills, variables,
touched files) must give the same text, fingerprint, explain rows, excluded
reasons, tools, token figures and reminders, or the same error.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog import Catalog, CatalogPath, Context
from catalog.engine.assemble import assemble, reminders
from catalog.engine.plan import AgentPlan, plan_agents
from catalog.errors import CatalogError

_STORE = CatalogPath([], use_env=False, use_entry_points=False)


@functools.cache
def _catalogs() -> tuple[Catalog, ...]:
    return tuple(
        _STORE.load(name, f"=={ref.version}")
        for name in _STORE.names()
        for ref in _STORE.versions(name)
    )


@functools.cache
def _reference(cat: Catalog) -> Mapping[str, AgentPlan]:
    """The plans of ``cat`` with nothing specialised."""
    agents = [cat.agent_info(name) for name in cat.agents]
    return plan_agents(cat.rules, agents, cat.parts, specialise=False)


def _outcome(plan: AgentPlan, context: Context) -> object:
    """Everything an assembly and the reminders show, or the error they raise."""
    shown: object
    try:
        prompt = assemble(plan, context)
        shown = (
            prompt.to_dict(),
            prompt.explain(),
            prompt.token_report(),
            [block.text for block in prompt.cache_blocks()],
        )
    except CatalogError as exc:
        shown = (type(exc).__name__, str(exc))
    try:
        found: object = reminders(plan, context)
    except CatalogError as exc:
        found = (type(exc).__name__, str(exc))
    return shown, found


def _check(cat: Catalog, context: Context) -> None:
    reference = _reference(cat)
    for agent in cat.agents:
        expected = _outcome(reference[agent], context)
        specialised = cat.plan(agent)
        # Three times: the values are noted, then kept, then the remembered bodies answer.
        for _ in range(3):
            assert _outcome(specialised, context) == expected, (cat.name, cat.version, agent)


_VALUES: Mapping[str, tuple[Any, ...]] = {
    "bool": (True, False),
    "int": (0, 1, 12, 95),
    "float": (0.0, -0.0, 2.5),
    "str": ("", "x", "/tmp/place", "  "),
    "list": ((), ("a.py", "src/b.py"), ("one",)),
    "map": ({}, {"src/x": "Use tabs.", "lib": "  "}),
}
_ENVIRONMENTS: tuple[dict[str, Any], ...] = (
    {},
    {"cwd": "/home/dev/project", "os": "Linux", "shell": "bash", "date": "2025-01-31"},
    {
        "cwd": "/w",
        "os": "Darwin",
        "os_version": "14.1",
        "platform": "darwin",
        "arch": "arm64",
        "is_git_repo": True,
        "git_branch": "main",
        "git_status": " M a.py",
        "timezone": "Europe/Paris",
        "tzname": "CET",
        "datetime": "2025-01-31T10:00:00+01:00",
        "model": "m-1",
        "home": "/home/dev",
    },
    {"platform": "linux", "os": "", "date": "2024-02-29", "weekday": "Thursday"},
)
_OPTIONAL: Mapping[str, tuple[Any, ...]] = {
    "features": ((), ("sessions", "memory"), ("todo",)),
    "guidelines": ((), ("Be brief.", "Be brief.", "  ")),
    "touched_files": ((), ("src/a.py", "docs/b.md")),
    "project_files": (
        (),
        ({"path": "CLAUDE.md", "content": "Use tabs.", "scope": "project"},),
        ({"path": "AGENTS.md", "content": "   "}, {"path": "/u/CLAUDE.md", "content": "Hi"}),
    ),
    "skills": ((), ({"name": "pdf", "description": "Read PDFs", "path": "/s/pdf"},)),
    "mcp_servers": (
        (),
        (
            {
                "name": "docs",
                "instructions": " Search first. ",
                "tools": [{"name": "search", "description": "find  things\n"}],
            },
            {"name": "bare"},
        ),
    ),
    "commands": ((), ({"name": "/deploy", "description": "Ship it"},)),
    "output_style": (None, {"name": "Explanatory", "prompt": "Explain your choices."}),
    "identity": (None, {"name": "Molt", "emoji": "*", "vibe": "calm", "content": "I am."}),
    "user": (None, {"name": "Ada", "timezone": "UTC", "location": "Paris"}),
    "soul": ("", "Be kind."),
    "session": (None, {"id": "abc", "dir": "/sessions/abc"}),
    "tool_info": (
        {},
        {"grep": {"snippet": "search files", "guidelines": ["Prefer grep."]}},
    ),
    "files": ({}, {"AGENTS.md": "Use tabs.", "notes.txt": ""}),
    "custom_prompt": (None, "You are a custom agent.", "  "),
    "append": (None, "Also: be brief.", ""),
    "token_budget": (None, 1, 400, 3000, 100_000),
}


@st.composite
def _contexts(draw: st.DrawFn, cat: Catalog) -> Context:
    """A context for ``cat``: its tools and variables, slots to override, and any
    of the other fields."""
    tools = [*sorted(cat.tool_names), "NoSuchTool"]
    data: dict[str, Any] = {
        "tools": draw(st.lists(st.sampled_from(tools), max_size=12, unique=True)),
        "env": draw(st.sampled_from(_ENVIRONMENTS)),
    }
    for name in draw(st.lists(st.sampled_from(sorted(_OPTIONAL)), max_size=6, unique=True)):
        data[name] = draw(st.sampled_from(_OPTIONAL[name]))
    declared = sorted(cat.variable_types.items())
    if declared:
        chosen = draw(st.lists(st.sampled_from(declared), max_size=6, unique=True))
        data["variables"] = {name: draw(st.sampled_from(_VALUES[kind])) for name, kind in chosen}
    override: bool = draw(st.booleans())
    if cat.slots and override:
        slot = draw(st.sampled_from(cat.slots))
        data["overrides"] = {slot: draw(st.sampled_from(("Replaced.", "  ")))}
    return Context.model_validate(data)


@pytest.mark.parametrize("index", range(len(_catalogs())))
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_specialised_plan_gives_what_the_unspecialised_one_gives(
    index: int, data: st.DataObject
) -> None:
    cat = _catalogs()[index]
    _check(cat, data.draw(_contexts(cat)))


def _spread(cat: Catalog) -> list[Context]:
    """One context for each value of each optional field, with every tool enabled,
    then every variable set to each of its values."""
    base = {"tools": sorted(cat.tool_names), "env": _ENVIRONMENTS[2]}
    found = [Context.model_validate({"env": env}) for env in _ENVIRONMENTS]
    for name, values in _OPTIONAL.items():
        found += [Context.model_validate({**base, name: value}) for value in values]
    for name, kind in cat.variable_types.items():
        found += [
            Context.model_validate({**base, "variables": {name: value}}) for value in _VALUES[kind]
        ]
    for slot in cat.slots:
        found.append(Context.model_validate({**base, "overrides": {slot: "Replaced."}}))
    # More tools than a membership test searches without charging for them.
    many = [*sorted(cat.tool_names), *(f"Extra{index}" for index in range(70))]
    found.append(Context.model_validate({**base, "tools": many}))
    return found


@pytest.mark.parametrize("index", range(len(_catalogs())))
def test_every_field_and_variable_of_every_catalog_gives_the_same_prompt(index: int) -> None:
    cat = _catalogs()[index]
    for context in _spread(cat):
        _check(cat, context)


def test_the_bundled_catalogs_are_all_there() -> None:
    names = {(cat.name, str(cat.version)) for cat in _catalogs()}
    assert {"coding-agent", "pi", "opal", "dispatch", "moltis"} <= {n for n, _ in names}
    assert len(names) >= 10


# -- what the specialisation does, on a catalog written for it


def _demo(make_catalog: Any) -> Catalog:
    """Parts whose conditions and bodies read ``part`` and ``agent``, definitions that
    read only ``agent`` (constant for a plan) or the context too, a lines list, a
    slot whose part a sub-agent's plan drops, and parts that fail when assembled."""
    from catalog import load_dir

    parts = [
        {"id": "intro", "slot": "identity", "body": "I am {{ who }}."},
        {
            "id": "sub-only",
            "slot": "identity",
            "when": "agent.is_subagent",
            "agents": ["*"],
            "body": "Sub {{ agent.name }}.",
        },
        {
            "id": "tool-read",
            "kind": "tool",
            "name": "Read",
            "agents": ["*"],
            "when": "part.name in tools and (not agent.is_subagent or part.name in agent.tools)",
            "body": "Reads. {% if agent.is_subagent %}For {{ agent.name }}.{% endif %}",
        },
        {
            "id": "shells",
            "agents": ["*"],
            "when": "len(my_tools) > 0",
            "body": "{% for tool in my_tools %}- {{ tool }} ({{ part.id }})\n{% endfor %}",
        },
        {"id": "notes", "agents": ["*"], "body": "{{ join(notes, ' / ') }}"},
        {"id": "loop", "agents": ["*"], "body": "{% for agent in tools %}{{ agent }};{% endfor %}"},
        {"id": "broken", "agents": ["explore"], "when": "part.name < 5", "body": "x"},
    ]
    extra = {
        "definitions": {
            "who": '"a helper" if agent.is_subagent else "the main agent"',
            "my_tools": "intersect(tools, agent.tools) if agent.is_subagent else tools",
            "bad": "agent.name < 5 if agent.name == 'explore' else 0",
        },
        "lines": {
            "notes": [
                {"when": "agent.is_subagent", "text": "Stay read-only."},
                {"when": '"Read" in tools', "text": "Read first."},
            ]
        },
    }
    folder = make_catalog(
        "spec",
        "1.0.0",
        parts,
        agents=[
            {"name": "explore", "tools": ["Read", "Grep"]},
            {"name": "fixer", "tools": ["Edit"]},
        ],
        extra=extra,
    )
    return load_dir(folder)


def test_the_demo_catalog_gives_what_its_unspecialised_plans_give(make_catalog: Any) -> None:
    cat = _demo(make_catalog)
    for tools in ((), ("Read",), ("Read", "Grep", "Edit")):
        for extra in ({}, {"overrides": {"identity": "Mine."}}, {"custom_prompt": "C."}):
            for budget in (None, 3, 20):
                data = {"tools": tools, "token_budget": budget, **extra}
                _check(cat, Context.model_validate(data))


def test_what_is_fixed_for_an_agent_is_settled_in_its_plan(make_catalog: Any) -> None:
    cat = _demo(make_catalog)
    main, fixer = cat.plan("main"), cat.plan("fixer")
    # Definitions that read only agent are constants of the plan.
    assert main.constants["who"] == "the main agent" and fixer.constants["who"] == "a helper"
    assert "who" not in [d.name for d in main.definitions]
    assert [d.name for d in main.definitions] == ["my_tools", "notes"]
    # One that fails is left to fail when assembling.
    assert [d.name for d in cat.plan("explore").definitions] == ["my_tools", "bad", "notes"]
    # The sub-agent's slot part is dropped from the main agent's usual walk, not its
    # full one (an override of the slot takes its place there).
    assert "sub-only" not in [s.part.id for s in main.usual.steps]
    assert "sub-only" in [s.part.id for s in main.steps.steps]
    # The tool's condition reads the tools only; the intro's body is text.
    read = next(s for s in main.usual.steps if s.part.id == "tool-read")
    assert read.reads == {"tools"} and read.known
    intro = next(s for s in main.usual.steps if s.part.id == "intro")
    assert intro.known and intro.condition is None
    assert cat.assemble({"tools": ["Read"]}).text.startswith("I am the main agent.")
    # What the context alone decides is read from it: only those fields are copied.
    assert set(main.prompt_reads.fields) == {"tools"}


def test_the_prompt_and_the_reminders_each_copy_only_what_they_read(make_catalog: Any) -> None:
    from catalog import load_dir

    folder = make_catalog(
        parts=[
            {"id": "intro", "body": "Mode {{ mode }}."},
            {"id": "nudge", "kind": "reminder", "when": "plan_mode", "body": "Plan {{ where }}."},
        ],
        variables=[
            {"name": "mode", "type": "str", "default": "fast"},
            {"name": "plan_mode", "type": "bool", "default": False},
            {"name": "where", "type": "str", "default": "here"},
        ],
    )
    cat = load_dir(folder)
    main = cat.plan("main")
    assert dict(main.prompt_reads.defaults) == {"mode": "fast"}
    assert dict(main.reminder_reads.defaults) == {"plan_mode": False, "where": "here"}
    assert cat.assemble({"variables": {"where": "there"}}).text == "Mode fast."
    given = cat.reminders({"variables": {"plan_mode": True}})
    assert [(r.id, r.text) for r in given] == [("nudge", "Plan here.")]
    assert cat.reminders({}) == ()


def test_an_error_comes_when_assembling_where_it_always_came(make_catalog: Any) -> None:
    cat = _demo(make_catalog)
    for plan in (cat.plan("explore"), _reference(cat)["explore"]):
        with pytest.raises(CatalogError) as caught:
            assemble(plan, {"tools": ["Read"]})
        assert "definitions.bad" in str(caught.value)
        assert "cannot apply '<' to text and number" in str(caught.value)


def test_parts_whose_conditions_test_one_name_are_walked_as_one_step(make_catalog: Any) -> None:
    from catalog import load_dir

    parts = [
        {"id": "intro", "body": "Hi."},
        {"id": "grep", "when": '"Grep" in tools', "body": "Use Grep."},
        {"id": "edit", "when": '"Edit" in tools and true', "body": "Use Edit."},
        {"id": "bash", "when": '"Bash" in tools', "body": "Use Bash."},
    ]
    cat = load_dir(make_catalog(parts=parts))
    steps = cat.plan("main").usual.steps
    batch = next(step for step in steps if step.members)
    assert [(member.value, member.step.part.id) for member in batch.members] == [
        ("Grep", "grep"),
        ("Edit", "edit"),
        ("Bash", "bash"),
    ]
    prompt = cat.assemble({"tools": ["Bash", "Grep"]})
    assert prompt.text == "Hi.\n\nUse Grep.\n\nUse Bash."
    assert [(e.id, e.reason) for e in prompt.excluded] == [("edit", "condition")]
