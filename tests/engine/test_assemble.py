"""Assembly: selection, order, rendering, joining, sub-agents, overrides, reminders.

And every step that turns a part's body into the prompt's text: leading blank lines and
trailing whitespace go, blank bodies leave the part out, CRLF becomes LF, parts are
joined by the separator; alike for a body known when the catalog loads, one rendered
for each context, a tool's description, a reminder, a slot override and the texts the
context supplies."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from catalog import (
    AssembledPrompt,
    BudgetError,
    Catalog,
    ContextError,
    NotFoundError,
    load_dir,
)
from catalog.engine.plan import AgentPlan
from catalog.errors import EvaluationError
from catalog.lang.values import one_budget, spent


@pytest.fixture
def demo(make_catalog: Callable[..., Path]) -> Catalog:
    folder = make_catalog(
        parts=[
            {"id": "identity", "order": 10, "slot": "identity", "body": "You are Demo.\n"},
            {"id": "policy", "order": 20, "agents": ["*"], "body": "Be careful."},
            {"id": "grep-docs", "order": 30, "when": '"Grep" in tools', "body": "Use Grep."},
            {
                "id": "project",
                "order": 40,
                "stability": "session",
                "when": "len(project_files) > 0",
                "body": (
                    "{% for f in project_files %}## {{ f.path }}\n{{ f.content }}\n{% endfor %}"
                ),
            },
            {"id": "maybe-empty", "order": 50, "body": "{% if plan_mode %}Plan first.{% endif %}"},
            {
                "id": "env",
                "order": 90,
                "stability": "session",
                "agents": ["main", "explore"],
                "body": "cwd: {{ env.cwd }}",
            },
            {
                "id": "explore-self",
                "kind": "agent",
                "order": 5,
                "agents": ["explore"],
                "body": "You are {{ agent.name }}, a read-only searcher.",
            },
            {
                "id": "bash-tool",
                "kind": "tool",
                "name": "Bash",
                "order": 100,
                "agents": ["*"],
                "when": '"Bash" in tools',
                "body": "Runs a shell command.",
            },
            {
                "id": "todo-empty",
                "kind": "reminder",
                "order": 200,
                "stability": "turn",
                "when": "todo_empty",
                "body": "<system-reminder>The todo list is empty.</system-reminder>",
            },
        ],
        variables=[
            {"name": "plan_mode", "type": "bool", "default": False},
            {"name": "todo_empty", "type": "bool"},
        ],
        agents=[{"name": "explore", "description": "searches"}],
    )
    return load_dir(folder)


def test_parts_are_selected_ordered_and_joined(demo: Catalog) -> None:
    prompt = demo.assemble({"tools": ["Grep"], "env": {"cwd": "/src"}})
    assert prompt.text == "You are Demo.\n\nBe careful.\n\nUse Grep.\n\ncwd: /src"
    assert [p.id for p in prompt.parts] == ["identity", "policy", "grep-docs", "env"]


def test_every_part_is_used_or_excluded_with_a_reason(demo: Catalog) -> None:
    prompt = demo.assemble({})
    reasons = {p.id: p.reason for p in prompt.excluded}
    assert reasons == {
        "grep-docs": "condition",
        "project": "condition",
        "maybe-empty": "empty",
        "explore-self": "agent",
        "bash-tool": "condition",
        "todo-empty": "channel",
    }
    assert {p.id for p in prompt.parts} | set(reasons) == {p.id for p in demo.parts}
    why = {p.id: p.why for p in prompt.excluded}
    assert '"Grep" in tools' in why["grep-docs"]


def test_each_agent_is_told_which_parts_it_is_not_given(demo: Catalog) -> None:
    # The plans of all agents share one step per part: each agent's reasons stay its own.
    main = {p.id: (p.reason, p.why) for p in demo.assemble({}).excluded}
    explore = {p.id: (p.reason, p.why) for p in demo.assemble({}, agent="explore").excluded}
    assert main["explore-self"] == ("agent", "not given to agent main (explore)")
    assert explore["identity"] == ("agent", "not given to agent explore (main)")
    assert explore["grep-docs"] == ("agent", "not given to agent explore (main)")
    assert main["todo-empty"] == explore["todo-empty"] == ("channel", "a reminder: see reminders()")
    assert "explore-self" not in explore and "env" not in explore
    assert "identity" not in main and "policy" not in main
    # A reminder given to main only is served to main only.
    assert demo.reminders({"variables": {"todo_empty": True}}, agent="explore") == ()


def test_each_agent_has_one_plan_made_once(demo: Catalog) -> None:
    assert list(demo.plans) == list(demo.agents) == ["main", "explore"]
    assert len(demo.plans) == 2 and "explore" in demo.plans and "exploer" not in demo.plans
    first = demo.plan("explore")
    assert demo.plan("explore") is first and demo.plans["explore"] is first
    assert first.agent.name == "explore" and demo.plan("main").agent.name == "main"
    with pytest.raises(KeyError):
        demo.plans["exploer"]


def test_threads_asking_for_a_plan_at_once_get_the_same_one(
    make_catalog: Callable[..., Path],
) -> None:
    folder = make_catalog(
        parts=[{"id": "identity", "order": 10, "body": "You are Demo.\n"}],
        agents=[{"name": f"helper-{n}", "description": "helps"} for n in range(8)],
    )
    catalog = load_dir(folder)
    start = threading.Barrier(8)

    def ask(name: str) -> AgentPlan:
        start.wait()
        return catalog.plan(name)

    with ThreadPoolExecutor(8) as pool:
        plans = list(pool.map(ask, ["helper-3"] * 8))
    assert all(plan is catalog.plan("helper-3") for plan in plans)


def test_blank_part_leaves_no_doubled_separator(demo: Catalog) -> None:
    prompt = demo.assemble({"variables": {"plan_mode": False}})
    assert "\n\n\n" not in prompt.text
    assert demo.assemble({"variables": {"plan_mode": True}}).text.count("Plan first.") == 1


def test_context_values_are_data_never_template(demo: Catalog) -> None:
    content = "Use {{ env.cwd }} and {% if true %}x{% endif %} literally."
    prompt = demo.assemble({"project_files": [{"path": "/p/CLAUDE.md", "content": content}]})
    assert f"## /p/CLAUDE.md\n{content}" in prompt.text


def test_tools_go_to_the_tools_array_not_the_text(demo: Catalog) -> None:
    prompt = demo.assemble({"tools": ["Bash"]})
    assert [(t.name, t.description) for t in prompt.tools] == [("Bash", "Runs a shell command.")]
    assert "Runs a shell command." not in prompt.text
    assert demo.assemble({"tools": []}).tools == ()


def test_subagent_gets_its_own_part_and_what_is_given_to_it(demo: Catalog) -> None:
    prompt = demo.assemble(
        {"env": {"cwd": "/w"}, "project_files": [{"path": "CLAUDE.md", "content": "secret rules"}]},
        agent="explore",
    )
    assert prompt.text == "You are explore, a read-only searcher.\n\nBe careful.\n\ncwd: /w"
    assert "secret rules" not in prompt.text
    assert prompt.agent == "explore"


def test_unknown_agent_lists_the_agents(demo: Catalog) -> None:
    with pytest.raises(NotFoundError, match=re.escape("mean 'explore'? agents: explore, main")):
        demo.assemble({}, agent="exploer")


def test_slot_override_replaces_the_slot_in_place(demo: Catalog) -> None:
    prompt = demo.assemble({"overrides": {"identity": "You are Custom {{ not a template }}."}})
    assert prompt.text.startswith("You are Custom {{ not a template }}.\n\nBe careful.")
    assert "You are Demo." not in prompt.text
    assert ("identity", "overridden") in {(p.id, p.reason) for p in prompt.excluded}


def test_unknown_slot_is_an_error(demo: Catalog) -> None:
    with pytest.raises(ContextError, match="no slot 'identiy'"):
        demo.assemble({"overrides": {"identiy": "x"}})


def test_custom_prompt_replaces_everything_but_tools(demo: Catalog) -> None:
    prompt = demo.assemble({"custom_prompt": "Only this.", "tools": ["Bash"]})
    assert prompt.text == "Only this."
    assert [t.name for t in prompt.tools] == ["Bash"]
    assert all(
        p.reason in ("custom-prompt", "agent", "channel", "condition") for p in prompt.excluded
    )


def test_preset_plus_append(demo: Catalog) -> None:
    prompt = demo.assemble({"append": "Extra rules."})
    assert prompt.text.endswith("cwd:\n\nExtra rules.")
    assert prompt.text.startswith("You are Demo.")
    assert prompt.parts[-1].id == "context:append"


def test_reminders_are_served_separately(demo: Catalog) -> None:
    assert demo.reminders({}) == ()
    found = demo.reminders({"variables": {"todo_empty": True}})
    assert [(r.id, r.text) for r in found] == [
        ("todo-empty", "<system-reminder>The todo list is empty.</system-reminder>")
    ]


def test_unknown_or_mistyped_variable_is_an_error(demo: Catalog) -> None:
    with pytest.raises(ContextError, match="unknown variable 'plan_mod'"):
        demo.assemble({"variables": {"plan_mod": True}})
    with pytest.raises(ContextError, match="type bool"):
        demo.assemble({"variables": {"plan_mode": "yes"}})


def test_static_prefix_covers_leading_static_parts(demo: Catalog) -> None:
    prompt = demo.assemble({"tools": ["Grep"], "env": {"cwd": "/x"}})
    assert prompt.static_prefix == "You are Demo.\n\nBe careful.\n\nUse Grep."


def test_fingerprint_is_sha256_of_text(demo: Catalog) -> None:
    import hashlib

    prompt = demo.assemble({})
    assert prompt.fingerprint == hashlib.sha256(prompt.text.encode()).hexdigest()


def test_part_spans_point_into_the_text(demo: Catalog) -> None:
    prompt = demo.assemble({"tools": ["Grep"], "env": {"cwd": "/w"}})
    pieces = [prompt.text[used.start : used.end] for used in prompt.parts]
    assert pieces == ["You are Demo.", "Be careful.", "Use Grep.", "cwd: /w"]


def test_result_is_immutable(demo: Catalog) -> None:
    prompt = demo.assemble({})
    with pytest.raises(AttributeError):
        prompt.text = "x"  # type: ignore[misc]


def test_json_has_the_documented_keys(demo: Catalog) -> None:
    data = demo.assemble({"tools": ["Bash"]}).to_dict()
    assert set(data) == {
        "catalog",
        "version",
        "agent",
        "fingerprint",
        "counter",
        "tokens",
        "budget",
        "static_prefix_length",
        "text",
        "parts",
        "excluded",
        "tools",
        "notes",
    }
    assert set(data["parts"][0]) == {
        "id",
        "kind",
        "order",
        "stability",
        "tokens",
        "why",
        "start",
        "end",
    }


def test_tie_break_is_by_id(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        parts=[
            {"id": "zeta", "order": 10, "body": "Z"},
            {"id": "alpha", "order": 10, "body": "A"},
        ]
    )
    assert load_dir(folder).assemble({}).text == "A\n\nZ"


def test_explain_names_every_part(demo: Catalog) -> None:
    table = demo.assemble({"tools": ["Grep"]}).explain()
    ids = [part.id for part in demo.parts]
    assert sorted(ids) == sorted(
        ["identity", "policy", "grep-docs", "project", "maybe-empty", "env", "explore-self",
         "bash-tool", "todo-empty"]
    )  # fmt: skip
    for part_id in ids:
        assert part_id in table


def test_explain_keeps_its_columns_whatever_the_length_of_an_id(
    make_catalog: Callable[..., Path],
) -> None:
    long_id = "a-part-whose-id-is-longer-than-the-usual-column"
    folder = make_catalog(
        parts=[
            {"id": "short", "order": 10, "body": "Short."},
            {"id": long_id, "order": 20, "body": "Long."},
            {"id": "never", "order": 30, "body": "No.", "when": '"Bash" in tools'},
        ]
    )
    rows = load_dir(folder).assemble({}).explain().splitlines()[1:]
    assert [row.split()[1] for row in rows] == ["short", long_id, "never"]
    reason = len("  + ") + len(long_id) + len(" ") + 6 + len("  ")  # where the why begins
    for row in rows:
        assert row[reason - 2 : reason] == "  " and row[reason] != " ", row


_SCRIPT = """
import hashlib, sys
import catalog
context = {
    "tools": ["Grep", "Bash", "Read", "Edit", "Glob", "TodoWrite", "read", "bash", "shell"],
    "tool_info": {"Bash": {"snippet": "run", "guidelines": ["b", "a"]}, "Read": {}},
    "guidelines": ["z", "y"],
    "features": ["sessions", "memory", "b", "a"],
    "env": {"cwd": "/w", "os": "Linux", "shell": "bash", "date": "2025-01-31"},
    "project_files": [{"path": "/w/CLAUDE.md", "content": "x {{ y }}"}],
    "files": {"b.md": "B", "a.md": "A"},
    "skills": [{"name": "s2", "description": "two"}, {"name": "s1", "description": "one"}],
    "mcp_servers": [{"name": "db", "instructions": "query"}, {"name": "docs"}],
    "commands": [{"name": "review"}],
    "output_style": {"name": "terse", "prompt": "Be brief."},
    "identity": {"name": "Ada"},
    "session": {"id": "c1"},
}
digest = hashlib.sha256()
catalogs = [catalog.load_dir(sys.argv[1])]
catalogs += [catalog.load(name) for name in catalog.CatalogPath().names()]
for cat in catalogs:
    for agent in cat.agents:
        digest.update(cat.assemble(context, agent, counter="chars").to_json().encode())
        digest.update(repr(cat.reminders(context, agent)).encode())
print(len(catalogs), digest.hexdigest())
"""


@pytest.mark.slow
def test_deterministic_across_processes_and_hash_seeds(demo: Catalog) -> None:
    # Every agent of the demo and of every bundled catalog, under a context with
    # mappings and unordered-looking lists: the whole JSON of each prompt
    # (text, parts, reasons, tools) and the reminders must be byte-identical.
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-c", _SCRIPT, demo.location],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1
    count, _ = outputs.pop().split()
    assert int(count) >= 6


def test_assembled_prompt_type(demo: Catalog) -> None:
    assert isinstance(demo.assemble(), AssembledPrompt)


def test_context_texts_never_share_an_id_with_a_part(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        parts=[
            {"id": "append", "order": 10, "body": "A part named append."},
            {"id": "custom-prompt", "order": 20, "body": "A part named custom-prompt."},
        ]
    )
    cat = load_dir(folder)
    ids = [p.id for p in cat.assemble({"append": "From the context."}).parts]
    assert ids == ["append", "custom-prompt", "context:append"]
    custom = cat.assemble({"custom_prompt": "Only this."})
    assert [p.id for p in custom.parts] == ["context:custom-prompt"]


# (body as written, text the prompt uses); expected values written by hand.
TRIMMED = [
    ("Hello.", "Hello."),
    ("\nHello.", "Hello."),
    ("\n\n\nHello.", "Hello."),
    ("Hello.\n", "Hello."),
    ("Hello.\n\n\n", "Hello."),
    ("Hello. \t \n", "Hello."),
    ("\n\nHello.\n\n", "Hello."),
    ("  Indented.", "  Indented."),  # a first line's indentation is the author's
    ("\n\n  Indented.", "  Indented."),
    ("\tTabbed.", "\tTabbed."),
    ("One.\n\n\nTwo.", "One.\n\n\nTwo."),  # inside a body nothing moves
    ("One.  \nTwo.", "One.  \nTwo."),
    ("One.\r\nTwo.\r\n", "One.\nTwo."),  # CRLF read as LF
    ("\ufeffHello.", "\ufeffHello."),  # a body's byte order mark is its text
]
BLANK = ["", "\n", "\n\n\n", "   ", " \t \n \n", "\r\n\r\n"]


def _one_part(make: Callable[..., Path], spec: dict[str, Any], **more: Any) -> Catalog:
    """A catalog whose part ``p`` is ``spec``, between parts ``a`` and ``z``."""
    parts = [
        {"id": "a", "order": 10, "body": "A."},
        {"id": "p", "order": 20, **spec},
        {"id": "z", "order": 30, "body": "Z."},
    ]
    return load_dir(make(parts=parts, **more))


# The same body reached in each way a part's text is made.
WAYS: dict[str, Callable[[str], tuple[dict[str, Any], dict[str, Any]]]] = {
    "static": lambda body: ({"body": body}, {}),
    "conditional": lambda body: ({"when": '"Grep" in tools', "body": body}, {"tools": ["Grep"]}),
    "rendered": lambda body: (
        {"body": "{{ lead }}" + body},
        {"variables": {"lead": ""}},
    ),
    "rendered-condition": lambda body: (
        {"when": "len(tools) > 0", "body": "{% if tools %}" + body + "{% endif %}"},
        {"tools": ["Read"]},
    ),
}
VARIABLES = [{"name": "lead", "type": "str"}]


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize(("body", "expected"), TRIMMED)
def test_a_body_is_trimmed_the_same_however_it_is_made(
    make_catalog: Callable[..., Path], way: str, body: str, expected: str
) -> None:
    spec, context = WAYS[way](body)
    prompt = _one_part(make_catalog, spec, variables=VARIABLES).assemble(context)
    assert prompt.text == f"A.\n\n{expected}\n\nZ."
    spans = [(p.id, prompt.text[p.start : p.end]) for p in prompt.parts]
    assert spans == [("a", "A."), ("p", expected), ("z", "Z.")]


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("body", BLANK)
def test_a_blank_body_leaves_the_part_out_and_no_separator(
    make_catalog: Callable[..., Path], way: str, body: str
) -> None:
    spec, context = WAYS[way](body)
    prompt = _one_part(make_catalog, spec, variables=VARIABLES).assemble(context)
    assert prompt.text == "A.\n\nZ."
    assert [p.id for p in prompt.parts] == ["a", "z"]
    assert ("p", "empty") in {(e.id, e.reason) for e in prompt.excluded}


@pytest.mark.parametrize(("body", "expected"), TRIMMED)
def test_a_tools_description_is_trimmed(
    make_catalog: Callable[..., Path], body: str, expected: str
) -> None:
    spec = {"kind": "tool", "name": "Bash", "when": '"Bash" in tools', "body": body}
    prompt = _one_part(make_catalog, spec).assemble({"tools": ["Bash"]})
    assert [(t.name, t.description) for t in prompt.tools] == [("Bash", expected)]
    assert prompt.text == "A.\n\nZ."


@pytest.mark.parametrize(("body", "expected"), TRIMMED)
def test_a_reminder_is_trimmed(make_catalog: Callable[..., Path], body: str, expected: str) -> None:
    spec = {"kind": "reminder", "stability": "turn", "body": body}
    catalog = _one_part(make_catalog, spec)
    assert [(r.id, r.text) for r in catalog.reminders({})] == [("p", expected)]
    assert catalog.assemble({}).text == "A.\n\nZ."


@pytest.mark.parametrize(("text", "expected"), TRIMMED[:-2])
def test_texts_the_context_supplies_are_trimmed(
    make_catalog: Callable[..., Path], text: str, expected: str
) -> None:
    catalog = _one_part(make_catalog, {"slot": "middle", "body": "P."})
    assert catalog.assemble({"overrides": {"middle": text}}).text == f"A.\n\n{expected}\n\nZ."
    assert catalog.assemble({"append": text}).text == f"A.\n\nP.\n\nZ.\n\n{expected}"
    assert catalog.assemble({"custom_prompt": text}).text == expected


@pytest.mark.parametrize("text", BLANK[1:])
def test_blank_texts_from_the_context_add_nothing(
    make_catalog: Callable[..., Path], text: str
) -> None:
    catalog = _one_part(make_catalog, {"slot": "middle", "body": "P."})
    assert catalog.assemble({"overrides": {"middle": text}}).text == "A.\n\nZ."
    assert catalog.assemble({"append": text}).text == "A.\n\nP.\n\nZ."
    assert [p.id for p in catalog.assemble({"append": text}).parts] == ["a", "p", "z"]


@pytest.mark.parametrize("separator", ["\n\n", "\n", "\n---\n", ""])
def test_parts_are_joined_by_the_catalogs_separator(
    make_catalog: Callable[..., Path], separator: str
) -> None:
    catalog = _one_part(make_catalog, {"body": "\nP.\n"}, catalog={"separator": separator})
    prompt = catalog.assemble({"append": "E."})
    assert prompt.text == separator.join(["A.", "P.", "Z.", "E."])
    spans = [prompt.text[p.start : p.end] for p in prompt.parts]
    assert spans == ["A.", "P.", "Z.", "E."]


# ------------------------------------------------------------ what the prompt records


def _words(text: str) -> int:
    """A token counter whose figures are easy to work out by hand: one per word."""
    return len(text.split())


def test_the_prompt_names_its_catalog_version_agent_and_counter(demo: Catalog) -> None:
    prompt = demo.assemble({}, agent="explore")
    assert (prompt.catalog, prompt.version, prompt.agent) == ("demo", "1.0.0", "explore")
    # The catalog's tokenizer (cl100k_base by default) counts unless one is asked for.
    assert prompt.counter == "cl100k_base"
    assert demo.assemble({}, counter="chars").counter == "chars/4"
    # A function's name names the counter, and it counts every figure: the used parts
    # ("You are explore, a read-only searcher." is 6 words, "Be careful." 2, "cwd:"
    # 1) and the separators between them (blank: no words).
    counted = demo.assemble({}, agent="explore", counter=_words)
    assert counted.counter == "_words"
    assert [(p.id, p.tokens) for p in counted.parts] == [
        ("explore-self", 6),
        ("policy", 2),
        ("env", 1),
    ]
    assert counted.tokens == 9


def test_a_catalog_asks_for_its_tokenizer(make_catalog: Callable[..., Path]) -> None:
    chars = _one_part(make_catalog, {"body": "P."}, catalog={"tokenizer": "chars"})
    assert chars.assemble({}).counter == "chars/4"
    claude = _one_part(
        make_catalog, {"body": "P."}, name="estimated", catalog={"tokenizer": "claude"}
    )
    assert claude.assemble({}).counter == "claude"


def test_an_unknown_tool_is_noted_on_the_prompt(demo: Catalog) -> None:
    prompt = demo.assemble({"tools": ["Bash", "Bsh"]})
    assert len(prompt.notes) == 1
    assert prompt.notes[0].startswith("tool 'Bsh' matches no part and no agent's tools of demo")
    assert demo.assemble({"tools": ["Bash"]}).notes == ()


# ------------------------------------------------------------ token budgets


def test_the_contexts_budget_applies_without_one_in_the_catalog(
    make_catalog: Callable[..., Path],
) -> None:
    # Counted in characters: "A." "P." "Z." are 2 each, each "\n\n" 2: 10 in all.
    # Over a budget of 9 the part placed latest goes first.
    catalog = _one_part(make_catalog, {"body": "P."})
    prompt = catalog.assemble({"token_budget": 9}, counter=len)
    assert prompt.text == "A.\n\nP."
    assert prompt.budget == 9
    assert [(e.id, e.reason) for e in prompt.excluded] == [("z", "budget")]
    assert catalog.assemble({}, counter=len).budget is None


def test_the_catalogs_budget_applies_unless_the_context_gives_one(
    make_catalog: Callable[..., Path],
) -> None:
    catalog = _one_part(make_catalog, {"body": "P."}, catalog={"token_budget": 6})
    prompt = catalog.assemble({}, counter=len)
    assert (prompt.text, prompt.budget) == ("A.\n\nP.", 6)
    wider = catalog.assemble({"token_budget": 100}, counter=len)
    assert (wider.text, wider.budget) == ("A.\n\nP.\n\nZ.", 100)
    assert wider.excluded == ()


def test_a_budget_from_the_context_that_required_parts_exceed_names_the_context(
    make_catalog: Callable[..., Path],
) -> None:
    catalog = _one_part(make_catalog, {"body": "P.", "required": True})
    with pytest.raises(BudgetError) as caught:
        catalog.assemble({"token_budget": 1}, counter=len)
    assert (caught.value.file, caught.value.key) == (None, "token_budget")


# ------------------------------------------------------------ the context's own texts


def test_a_slot_override_is_listed_in_the_slots_place(demo: Catalog) -> None:
    prompt = demo.assemble({"overrides": {"identity": "You are Custom."}})
    first = prompt.parts[0]
    # The kind and order of the slot's first part; the context supplies it per session.
    assert (first.id, first.kind, first.order, first.stability, first.why) == (
        "override:identity",
        "system",
        10,
        "session",
        "slot 'identity' replaced by the context",
    )
    assert prompt.static_prefix == ""


def test_an_override_replaces_its_slot_and_no_other(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        parts=[
            {"id": "who", "order": 10, "slot": "identity", "body": "Demo."},
            {"id": "rules", "order": 20, "slot": "rules", "body": "Rules."},
            {"id": "more-rules", "order": 30, "slot": "rules", "body": "More rules."},
            {"id": "end", "order": 40, "body": "End."},
        ]
    )
    catalog = load_dir(folder)
    prompt = catalog.assemble({"overrides": {"rules": "Mine."}})
    assert prompt.text == "Demo.\n\nMine.\n\nEnd."
    assert [p.id for p in prompt.parts] == ["who", "override:rules", "end"]
    assert [(e.id, e.reason, e.why) for e in prompt.excluded] == [
        ("rules", "overridden", "slot 'rules' overridden"),
        ("more-rules", "overridden", "slot 'rules' overridden"),
    ]
    both = catalog.assemble({"overrides": {"rules": "Mine.", "identity": "Me."}})
    assert both.text == "Me.\n\nMine.\n\nEnd."


def test_a_custom_prompt_and_an_appended_text_are_listed_as_the_contexts(
    demo: Catalog,
) -> None:
    custom = demo.assemble({"custom_prompt": "Only this."}).parts
    assert [(p.id, p.kind, p.order, p.stability, p.why) for p in custom] == [
        ("context:custom-prompt", "system", 0, "session", "custom prompt from the context")
    ]
    appended = demo.assemble({"append": "Extra."}).parts[-1]
    assert (appended.id, appended.kind, appended.order, appended.stability, appended.why) == (
        "context:append",
        "system",
        2**31,
        "session",
        "appended by the context",
    )
    both = demo.assemble({"custom_prompt": "Only this.", "append": "Extra."})
    assert both.text == "Only this.\n\nExtra."
    assert both.static_prefix == ""


def test_an_unknown_slot_names_the_key_and_the_slots(make_catalog: Callable[..., Path]) -> None:
    two = load_dir(
        make_catalog(
            parts=[
                {"id": "a", "slot": "identity", "body": "A."},
                {"id": "b", "slot": "middle", "body": "B."},
            ]
        )
    )
    with pytest.raises(ContextError) as caught:
        two.assemble({"overrides": {"identiy": "x"}})
    assert caught.value.message == "catalog demo has no slot 'identiy'"
    assert caught.value.key == "overrides.identiy"
    assert caught.value.hint == "slots of this catalog: identity, middle"
    none = load_dir(make_catalog("plain", parts=[{"id": "a", "body": "A."}]))
    with pytest.raises(ContextError) as caught:
        none.assemble({"overrides": {"identity": "x"}})
    assert caught.value.hint == "slots of this catalog: none"


# ------------------------------------------------------------ variables and bindings


def test_an_unknown_variable_names_the_key_and_the_declared_ones(demo: Catalog) -> None:
    with pytest.raises(ContextError) as caught:
        demo.assemble({"variables": {"plan_mod": True}})
    assert caught.value.message == "unknown variable 'plan_mod' for catalog demo"
    assert caught.value.key == "variables.plan_mod"
    # Every declared variable, those without a default too.
    assert caught.value.hint == "declared variables: plan_mode, todo_empty"
    with pytest.raises(ContextError) as caught:
        demo.assemble({"variables": {"plan_mode": "yes"}})
    assert caught.value.message == "variable 'plan_mode' must be of type bool, got 'yes'"
    assert caught.value.key == "variables.plan_mode"


def test_a_catalog_without_variables_says_so(make_catalog: Callable[..., Path]) -> None:
    catalog = _one_part(make_catalog, {"body": "P."})
    with pytest.raises(ContextError) as caught:
        catalog.assemble({"variables": {"plan_mode": True}})
    assert caught.value.hint == "declared variables: none"


def test_a_list_variable_is_a_list_like_the_contexts(make_catalog: Callable[..., Path]) -> None:
    catalog = _one_part(
        make_catalog,
        {"when": "allowed == tools", "body": "Only the allowed tools."},
        variables=[{"name": "allowed", "type": "list", "default": []}],
    )
    context = {"tools": ["Read", "Grep"], "variables": {"allowed": ["Read", "Grep"]}}
    assert catalog.assemble(context).text == "A.\n\nOnly the allowed tools.\n\nZ."
    context["variables"] = {"allowed": ["Read"]}
    assert catalog.assemble(context).text == "A.\n\nZ."


def test_a_list_variable_is_searched_as_freely_as_the_contexts_lists(
    make_catalog: Callable[..., Path],
) -> None:
    # A short known text looked for in a short context list is read directly, charging
    # nothing (docs/expressions.md); a list variable is held as the context's lists are.
    names = ["Read", "Grep", "Glob", "Edit", "Write"] * 4
    units = []
    for when in ('"Task" in allowed', '"Task" in tools'):
        catalog = load_dir(
            make_catalog(
                parts=[{"id": "p", "when": when, "body": "Tasks."}, {"id": "z", "body": "Z."}],
                variables=[{"name": "allowed", "type": "list", "default": []}],
            )
        )
        context = {"tools": names, "variables": {"allowed": names}}
        prompt, spent_units = _spent(functools.partial(catalog.assemble, context))
        assert prompt.text == "Z."
        units.append(spent_units)
    assert units[0] == units[1]


def test_bodies_read_the_bindings(make_catalog: Callable[..., Path]) -> None:
    catalog = _one_part(
        make_catalog,
        {"body": 'Work in {{ bindings["prompt:cwd"] }}; {{ brackets("[prompt:cwd]", bindings) }}'},
        extra={"binding": [{"name": "prompt:cwd", "value": "env.cwd"}]},
    )
    prompt = catalog.assemble({"env": {"cwd": "/w"}})
    assert prompt.text == "A.\n\nWork in /w; /w\n\nZ."


# ------------------------------------------------------------ errors name the part


def _failing(make: Callable[..., Path]) -> tuple[Catalog, Path]:
    """A catalog whose conditions and bodies fail at run time (``int()`` of a text that
    is no number) when ``env.cwd`` is not a number, and work when it is."""
    folder = make(
        parts=[
            {"id": "a", "body": "A."},
            {"id": "check", "when": "int(env.cwd) > 0", "body": "Checked."},
            {"id": "show", "body": "Number {{ int(env.cwd) }}."},
            {"id": "nag", "kind": "reminder", "when": "int(env.cwd) > 1", "body": "Nag."},
            {"id": "say", "kind": "reminder", "body": "Say {{ int(env.cwd) + 1 }}."},
        ]
    )
    return load_dir(folder), folder


def test_a_failing_condition_or_body_names_the_part_and_its_file(
    make_catalog: Callable[..., Path],
) -> None:
    catalog, folder = _failing(make_catalog)
    good = {"env": {"cwd": "7"}}
    assert catalog.assemble(good).text == "A.\n\nChecked.\n\nNumber 7."
    assert [(r.id, r.text) for r in catalog.reminders(good)] == [("nag", "Nag."), ("say", "Say 8.")]
    bad = {"env": {"cwd": "/w"}}
    with pytest.raises(EvaluationError) as caught:
        catalog.assemble(bad)
    assert (caught.value.file, caught.value.key) == (str(folder / "check.md"), "part 'check' when")
    assert caught.value.message.startswith("int(): ")
    with pytest.raises(EvaluationError) as caught:
        catalog.reminders(bad)
    assert (caught.value.file, caught.value.key) == (str(folder / "nag.md"), "part 'nag' when")


def test_a_failing_body_names_the_part_and_its_file(make_catalog: Callable[..., Path]) -> None:
    catalog, _ = _failing(make_catalog)
    # "0" passes int() but not the conditions: only the bodies run.
    zero = {"env": {"cwd": "0"}}
    assert catalog.assemble(zero).text == "A.\n\nNumber 0."
    assert [(r.id, r.text) for r in catalog.reminders(zero)] == [("say", "Say 1.")]
    no_number = {"env": {"cwd": "-"}}
    without_check = load_dir(
        make_catalog(
            "bodies",
            parts=[
                {"id": "show", "body": "Number {{ int(env.cwd) }}."},
                {"id": "say", "kind": "reminder", "body": "Say {{ int(env.cwd) }}."},
            ],
        )
    )
    with pytest.raises(EvaluationError) as caught:
        without_check.assemble(no_number)
    assert caught.value.file == str(Path(without_check.location) / "show.md")
    assert caught.value.key == "part 'show'"
    with pytest.raises(EvaluationError) as caught:
        without_check.reminders(no_number)
    assert caught.value.file == str(Path(without_check.location) / "say.md")
    assert caught.value.key == "part 'say'"


# ------------------------------------------------------------ what an assembly spends


def _spent(run: Callable[[], Any]) -> tuple[Any, int]:
    """What ``run`` gives and the evaluation budget units it spends (``spent()``)."""

    def measured() -> tuple[Any, int]:
        return run(), spent()

    return one_budget(measured)


SHORT = ("Bash", "Grep", "Read")
# MCP tools have long names: past the 16 characters a single condition reads freely.
LONG = ("mcp__github__create_issue", "mcp__github__list_issues", "mcp__github__get_issue")


def _tool_parts(make: Callable[..., Path], names: tuple[str, ...]) -> Catalog:
    """Tool parts ``tool-0``... whose conditions each look for their tool in ``tools``,
    with the main agent's plan made (outside what a test measures)."""
    parts = [
        {"id": f"tool-{n}", "kind": "tool", "name": name, "when": f'"{name}" in tools',
         "body": f"Tool {n}."}
        for n, name in enumerate(names)
    ]  # fmt: skip
    catalog = load_dir(make(parts=parts))
    catalog.plan("main")
    return catalog


def _tools(names: tuple[str, ...], count: int) -> dict[str, Any]:
    """A context enabling the first two of ``names`` among ``count`` tools."""
    return {"tools": [names[0], names[1], *(f"T{n}" for n in range(count - 2))]}


@pytest.mark.parametrize("names", [SHORT, LONG])
@pytest.mark.parametrize("count", [2, 64, 65, 200])
def test_tool_parts_are_looked_up_in_any_number_of_tools(
    make_catalog: Callable[..., Path], names: tuple[str, ...], count: int
) -> None:
    prompt = _tool_parts(make_catalog, names).assemble(_tools(names, count))
    assert [(t.name, t.description) for t in prompt.tools] == [
        (names[0], "Tool 0."),
        (names[1], "Tool 1."),
    ]
    assert [(e.id, e.reason, e.why) for e in prompt.excluded] == [
        ("tool-2", "condition", f"when '\"{names[2]}\" in tools' is false")
    ]


# A run of tool parts looks each known name up in a tuple of at most SEARCHED_FREELY
# (64) tools directly, charging nothing, however long the name; past that, each search
# costs what `in` charges: 16 units an item and, for each, the 4 characters of "Bash",
# "Grep" or "Read" compared.
@pytest.mark.parametrize(
    ("names", "count", "units"),
    [(SHORT, 2, 0), (SHORT, 64, 0), (LONG, 64, 0), (SHORT, 65, 3 * (16 * 65 + 4 * 65))],
)
def test_looking_tool_parts_up_in_up_to_64_tools_spends_nothing(
    make_catalog: Callable[..., Path], names: tuple[str, ...], count: int, units: int
) -> None:
    catalog = _tool_parts(make_catalog, names)
    assert _spent(lambda: catalog.assemble(_tools(names, count)))[1] == units


def test_a_body_known_when_the_plan_is_made_is_not_rendered_again(
    make_catalog: Callable[..., Path],
) -> None:
    # The loop reads nothing from the context: the plan renders it once; each assembly
    # copies the text (rendering it would spend the loop's units).
    loop = "{% for n in [1, 2, 3] %}{{ n }}{% endfor %}"
    catalog = _one_part(make_catalog, {"body": loop, "when": "len(tools) > 0"})
    reminding = _one_part(make_catalog, {"body": loop, "kind": "reminder"})
    catalog.plan("main")
    reminding.plan("main")
    prompt, units = _spent(lambda: catalog.assemble({"tools": ["Bash"]}))
    assert (prompt.text, units) == ("A.\n\n123\n\nZ.", 0)
    found, units = _spent(lambda: reminding.reminders({}))
    assert ([(r.id, r.text) for r in found], units) == ([("p", "123")], 0)


def test_reminders_render_in_order_with_their_order(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        parts=[
            {"id": "a", "order": 10, "body": "A."},
            {"id": "late", "kind": "reminder", "order": 300, "body": "Late."},
            {"id": "cwd", "kind": "reminder", "order": 200, "body": "In {{ env.cwd }}."},
        ]
    )
    found = load_dir(folder).reminders({"env": {"cwd": "/w"}})
    assert [(r.id, r.text, r.order) for r in found] == [
        ("cwd", "In /w.", 200),
        ("late", "Late.", 300),
    ]
