"""Groups of alternatives: of the parts sharing a ``group``, an assembly takes the first
(in prompt order) whose condition holds, and no other; checked when a catalog loads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog, load_dir
from catalog.engine.assemble import assemble, reminders
from catalog.engine.plan import plan_agents
from catalog.errors import ManifestError
from tests.conftest import write_catalog

_PROVIDER = [
    {"id": "intro", "body": "Intro."},
    {"id": "gpt", "group": "provider", "when": 'startswith(model, "gpt-")', "body": "GPT."},
    {"id": "claude", "group": "provider", "when": 'contains(model, "claude")', "body": "Claude."},
    {"id": "fallback", "group": "provider", "body": "Any model."},
    {"id": "outro", "body": "Bye {{ model }}."},
]


def _catalog(tmp_path: Path, parts: Sequence[Mapping[str, Any]], **kwargs: Any) -> Catalog:
    return load_dir(write_catalog(tmp_path / "catalogs", parts=parts, **kwargs))


def _reasons(prompt: Any) -> dict[str, tuple[str, str]]:
    return {left.id: (left.reason, left.why) for left in prompt.excluded}


@pytest.mark.parametrize(
    ("model", "text"),
    [
        ("gpt-5", "Intro.\n\nGPT.\n\nBye gpt-5."),
        ("claude-opus-4", "Intro.\n\nClaude.\n\nBye claude-opus-4."),
        ("gemini-2.5-pro", "Intro.\n\nAny model.\n\nBye gemini-2.5-pro."),
        ("", "Intro.\n\nAny model.\n\nBye ."),
    ],
)
def test_the_first_alternative_that_holds_is_taken(tmp_path: Path, model: str, text: str) -> None:
    cat = _catalog(tmp_path, _PROVIDER)
    assert cat.assemble({"model": model}).text == text


def test_explain_says_which_was_taken_and_why_the_others_were_not(tmp_path: Path) -> None:
    prompt = _catalog(tmp_path, _PROVIDER).assemble({"model": "claude-opus-4"})
    assert _reasons(prompt) == {
        "gpt": ("condition", "group provider: when 'startswith(model, \"gpt-\")' is false"),
        "fallback": ("group", "group provider: taken by claude"),
    }
    used = {part.id: part.why for part in prompt.parts}
    assert used["claude"] == "group provider: taken (when 'contains(model, \"claude\")' is true)"
    assert used["intro"] == "always"
    assert "  - fallback" in prompt.explain()
    assert "group provider: taken by claude" in prompt.explain()


def test_only_the_first_is_taken_when_several_hold(tmp_path: Path) -> None:
    parts = [
        {"id": "a", "group": "g", "when": "model", "body": "A."},
        {"id": "b", "group": "g", "when": "model", "body": "B."},
        {"id": "c", "group": "g", "when": '"Bash" in tools', "body": "C."},
    ]
    prompt = _catalog(tmp_path, parts).assemble({"model": "m", "tools": ["Bash"]})
    assert prompt.text == "A."
    assert _reasons(prompt) == {
        "b": ("group", "group g: taken by a"),
        "c": ("group", "group g: taken by a"),
    }


def test_prompt_order_not_manifest_order_decides(tmp_path: Path) -> None:
    parts = [
        {"id": "late", "group": "g", "order": 30, "body": "Late."},
        {"id": "early", "group": "g", "order": 20, "when": "model", "body": "Early."},
    ]
    cat = _catalog(tmp_path, parts)
    assert cat.assemble({"model": "x"}).text == "Early."
    assert cat.assemble({}).text == "Late."


def test_a_group_without_a_fallback_may_give_nothing(tmp_path: Path) -> None:
    parts = [
        {"id": "one", "group": "g", "when": 'model == "one"', "body": "1."},
        {"id": "two", "group": "g", "when": 'model == "two"', "body": "2."},
        {"id": "rest", "body": "Rest."},
    ]
    prompt = _catalog(tmp_path, parts).assemble({"model": "three"})
    assert prompt.text == "Rest."
    assert _reasons(prompt) == {
        "one": ("condition", "group g: when 'model == \"one\"' is false"),
        "two": ("condition", "group g: when 'model == \"two\"' is false"),
    }


def test_a_taken_part_that_renders_blank_still_takes_its_group(tmp_path: Path) -> None:
    parts = [
        {"id": "blank", "group": "g", "when": "model", "body": "{% if tools %}T{% endif %}"},
        {"id": "other", "group": "g", "body": "Other."},
    ]
    prompt = _catalog(tmp_path, parts).assemble({"model": "m"})
    assert prompt.text == ""
    assert _reasons(prompt) == {
        "blank": ("empty", "rendered blank"),
        "other": ("group", "group g: taken by blank"),
    }


def test_tool_descriptions_per_model(tmp_path: Path) -> None:
    parts = [
        {"id": "bash-gpt", "kind": "tool", "name": "Bash", "group": "bash", "when": "model"},
        {"id": "bash", "kind": "tool", "name": "Bash", "group": "bash", "body": "Runs."},
    ]
    cat = _catalog(tmp_path, parts)
    assert [(t.name, t.part_id) for t in cat.assemble({"model": "gpt-5"}).tools] == [
        ("Bash", "bash-gpt")
    ]
    assert [(t.name, t.part_id) for t in cat.assemble({}).tools] == [("Bash", "bash")]


def test_each_agent_has_its_own_alternatives(tmp_path: Path) -> None:
    parts: list[dict[str, Any]] = [
        {"id": "main-only", "group": "g", "body": "Main."},
        {"id": "for-all", "group": "g", "agents": ["*"], "body": "All."},
    ]
    cat = _catalog(tmp_path, parts, agents=[{"name": "explore"}])
    assert cat.assemble({}).text == "Main."
    assert cat.assemble({}, agent="explore").text == "All."


def test_groups_apply_to_reminders(tmp_path: Path) -> None:
    parts = [
        {"id": "r-gpt", "kind": "reminder", "group": "r", "when": "model", "body": "Short."},
        {"id": "r-any", "kind": "reminder", "group": "r", "body": "Long."},
    ]
    cat = _catalog(tmp_path, parts)
    assert [r.text for r in cat.reminders({"model": "gpt-5"})] == ["Short."]
    assert [r.text for r in cat.reminders({})] == ["Long."]


def test_overrides_and_custom_prompts_replace_alternatives_as_any_part(tmp_path: Path) -> None:
    parts = [
        {"id": "a", "group": "g", "slot": "persona", "when": "model", "body": "A."},
        {"id": "b", "group": "g", "slot": "persona", "body": "B."},
        {"id": "c", "body": "C."},
    ]
    cat = _catalog(tmp_path, parts)
    overridden = cat.assemble({"model": "m", "overrides": {"persona": "Mine."}})
    assert overridden.text == "Mine.\n\nC."
    assert {left.id: left.reason for left in overridden.excluded} == {
        "a": "overridden",
        "b": "overridden",
    }
    assert cat.assemble({"custom_prompt": "Own."}).text == "Own."


_CONTEXTS: list[dict[str, Any]] = [
    {},
    {"model": "gpt-5"},
    {"model": "claude-sonnet-4-5", "tools": ["Bash"]},
    {"model": "gpt-4o", "tools": ["Bash", "Read"], "overrides": {"persona": "X."}},
    {"model": "o3", "custom_prompt": "Own."},
    {"model": "gpt-5", "token_budget": 3},
]


def test_specialised_plans_give_what_plain_plans_give(tmp_path: Path) -> None:
    parts: list[dict[str, Any]] = [
        *_PROVIDER,
        {"id": "t-bash", "kind": "tool", "name": "Bash", "group": "bash",
         "when": '"Bash" in tools'},
        {"id": "t-read", "kind": "tool", "name": "Read", "when": '"Read" in tools'},
        {"id": "p-sub", "group": "who", "slot": "persona", "agents": ["*"],
         "when": "agent.is_subagent", "body": "Sub {{ agent.name }}."},
        {"id": "p-main", "group": "who", "slot": "persona", "agents": ["*"], "body": "Main."},
        {"id": "r-one", "kind": "reminder", "group": "r", "when": "model", "body": "R {{ model }}"},
        {"id": "r-two", "kind": "reminder", "group": "r", "body": "R."},
    ]  # fmt: skip
    cat = _catalog(tmp_path, parts, agents=[{"name": "explore", "tools": ["Read"]}])
    plain = plan_agents(cat.rules, [cat.agent_info(a) for a in cat.agents], cat.parts,
                        specialise=False)  # fmt: skip
    for agent in cat.agents:
        for context in _CONTEXTS:
            expected = assemble(plain[agent], context)
            for _ in range(3):  # noted, kept, then remembered
                got = assemble(cat.plan(agent), context)
                assert got.to_dict() == expected.to_dict(), (agent, context)
                assert got.explain() == expected.explain(), (agent, context)
                assert reminders(cat.plan(agent), context) == reminders(plain[agent], context)


def _load_error(tmp_path: Path, parts: Sequence[Mapping[str, Any]], **kwargs: Any) -> str:
    with pytest.raises(ManifestError) as caught:
        _catalog(tmp_path, parts, **kwargs)
    return str(caught.value)


def _line_of(tmp_path: Path, needle: str) -> int:
    text = (tmp_path / "catalogs" / "demo" / "1.0.0" / "catalog.toml").read_text()
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith(needle)]
    return lines[-1]


def test_a_part_after_the_fallback_is_refused_naming_its_line(tmp_path: Path) -> None:
    parts = [
        {"id": "a", "group": "g", "when": "model", "body": "A."},
        {"id": "any", "group": "g", "body": "Any."},
        {"id": "late", "group": "g", "when": "tools", "body": "Late."},
    ]
    message = _load_error(tmp_path, parts)
    assert "part 'late' of group 'g' can never be taken: 'any' comes before it" in message
    assert f"catalog.toml:{_line_of(tmp_path, 'group = ')}:" in message
    assert "part[2].group" in message
    assert "larger `order`" in message


def test_a_fallback_for_one_agent_leaves_the_others_alternatives(tmp_path: Path) -> None:
    parts: list[dict[str, Any]] = [
        {"id": "main", "group": "g", "when": "true", "body": "Main."},
        {"id": "all", "group": "g", "agents": ["*"], "body": "All."},
    ]
    cat = _catalog(tmp_path, parts, agents=[{"name": "explore"}])
    assert cat.assemble({}, agent="explore").text == "All."
    parts[1]["agents"] = ["main"]
    assert "can never be taken" in _load_error(tmp_path, parts, agents=[{"name": "explore"}])


@pytest.mark.parametrize(
    ("second", "problem"),
    [
        ({"kind": "reminder"}, "part 'b' is a reminder part, but 'a' of its group 'g' is a system"),
        ({"slot": "other"}, "part 'b' has slot 'other', but 'a' of its group 'g' has no slot"),
        (
            {"agents": ["explore"]},
            "part 'a' of group 'g' is given to main, which no other part of its group",
        ),
    ],
)
def test_alternatives_stand_in_one_place(
    tmp_path: Path, second: dict[str, Any], problem: str
) -> None:
    parts = [
        {"id": "a", "group": "g", "when": "model", "body": "A."},
        {"id": "b", "group": "g", "body": "B.", **second},
    ]
    message = _load_error(tmp_path, parts, agents=[{"name": "explore"}])
    assert problem in message
    assert "part[" in message and "].group" in message


def test_alternative_tool_parts_describe_one_tool(tmp_path: Path) -> None:
    parts = [
        {"id": "a", "kind": "tool", "name": "Bash", "group": "g", "when": "model"},
        {"id": "b", "kind": "tool", "name": "Shell", "group": "g"},
    ]
    message = _load_error(tmp_path, parts)
    assert "part 'b' describes tool 'Shell', but 'a' of its group 'g' describes tool 'Bash'" in (
        message
    )


def test_a_group_name_is_a_slug(tmp_path: Path) -> None:
    message = _load_error(tmp_path, [{"id": "a", "group": "Not A Slug"}])
    assert "part[0].group" in message


def test_a_manifest_without_groups_keeps_its_lock_hash(tmp_path: Path) -> None:
    from catalog.io.lockfile import manifest_sha256

    cat = _catalog(tmp_path, [{"id": "a", "body": "A."}])
    assert "group" not in cat.manifest.part[0].model_dump()
    grouped = _catalog(tmp_path / "g", [{"id": "a", "body": "A.", "group": "g"}])
    assert grouped.manifest.part[0].model_dump()["group"] == "g"
    assert manifest_sha256(cat.manifest) != manifest_sha256(grouped.manifest)
