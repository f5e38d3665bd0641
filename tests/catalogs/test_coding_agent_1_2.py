"""coding-agent 1.2.0 against spec 05, behaviour by behaviour, on trees and contexts of its own.

docs/catalogs/coding-agent.md maps each behaviour of the spec to the part
that holds it and to the test below that checks it.
"""

from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import AssembledPrompt, Catalog
from catalog.errors import BudgetError
from catalog.io.validate import check_catalog

BUNDLED = Path(catalog.__file__).parent / "parts" / "coding-agent" / "1.2.0"
FULL_ENV = {"cwd": "/work/app", "os": "Linux", "shell": "zsh", "date": "2026-03-07"}


@functools.cache
def cat() -> Catalog:
    return catalog.load("coding-agent", "==1.2.0")


def ids(prompt: AssembledPrompt) -> list[str]:
    return [p.id for p in prompt.parts]


def text_of(prompt: AssembledPrompt, part_id: str) -> str:
    (part,) = [p for p in prompt.parts if p.id == part_id]
    return prompt.text[part.start : part.end]


# ----------------------------------------------------------- 2. configuration


def test_custom_prompt_is_used_verbatim_without_assembly() -> None:
    custom = "You are a release bot.\nOnly talk about releases."
    prompt = cat().assemble({"custom_prompt": custom, "tools": ["Bash"], "append": "Extra."})
    assert prompt.text.startswith(custom)
    assert all(p.id.startswith("context:") for p in prompt.parts)


def test_preset_with_append_adds_the_text_after_everything_else() -> None:
    ctx = {
        "env": FULL_ENV,
        "output_style": {"name": "Terse", "prompt": "Answer in one line."},
        "project_files": [{"path": "/work/app/CLAUDE.md", "content": "Use tabs."}],
        "append": "Always sign off with 'Done.'",
    }
    prompt = cat().assemble(ctx)
    assert ids(prompt)[-3:] == ["claude-md-instructions", "output-style", "context:append"]
    assert prompt.text.endswith("\n\nAlways sign off with 'Done.'")


def test_without_a_custom_prompt_or_append_the_full_prompt_is_assembled() -> None:
    prompt = cat().assemble({"env": FULL_ENV})
    assert ids(prompt)[0] == "main-system-prompt"
    assert not any(p.id.startswith("context:") for p in prompt.parts)


# ---------------------------------------------------- 3.1 the twenty parts

# Spec 05's table 3.1: the part's name there -> (our part id, condition).
SPEC_PARTS = {
    "Main system prompt": ("main-system-prompt", "true"),
    "Accessing past sessions": ("accessing-past-sessions", '"sessions" in features'),
    "Agent memory instructions": ("memory-instructions", '"memory" in features'),
    "Censoring malicious activities": ("censoring-malicious-activities", "true"),
    "CLAUDE.md instructions": (
        "claude-md-instructions",
        'strip(join(pluck(project_files, "content"), "")) != ""',
    ),
    "Conversational style": ("conversational-style", "true"),
    "Custom slash commands info": ("custom-slash-commands", "len(commands) > 0"),
    "Do not litter output": ("do-not-litter-output", "true"),
    "Environment details": ("environment", "true"),
    "File read limits": ("file-read-limits", "true"),
    "Glob documentation": ("glob-usage", '"Glob" in tools'),
    "Grep documentation": ("grep-usage", '"Grep" in tools'),
    "Large file handling": ("large-file-handling", "true"),
    "MCP connected servers": ("mcp-servers", "len(mcp_servers) > 0"),
    "Proactive suggestions": ("proactive-suggestions", "true"),
    "Respecting conventions": ("respecting-conventions", "true"),
    "Search/replace blocks": ("search-replace-editing", '"Edit" in tools'),
    "Todo tool": ("todo-tool", '"TodoWrite" in tools'),
    "Tool use formatting": ("tool-use-formatting", "true"),
    "Use tools to verify": ("use-tools-to-verify", "true"),
}


def test_the_twenty_parts_of_table_3_1_with_their_conditions() -> None:
    parts = {p.id: p.decl for p in cat().parts}
    for name, (part_id, when) in SPEC_PARTS.items():
        assert parts[part_id].when == when, name
        assert parts[part_id].kind == "system", name
        assert "main" in parts[part_id].agents, name


def test_no_part_of_the_system_prompt_may_be_dropped() -> None:
    """Section 8: Validate drops nothing. Every system and agent part is required."""
    prompt_parts = [p.decl for p in cat().parts if p.decl.kind in ("system", "agent")]
    assert len(prompt_parts) > 40
    assert all(decl.required for decl in prompt_parts)


@pytest.mark.parametrize("tools", [(), ("Bash",), ("Read", "Glob", "Grep", "Edit", "TodoWrite")])
def test_always_parts_are_present_whatever_tools_are_enabled(tools: tuple[str, ...]) -> None:
    used = set(ids(cat().assemble({"tools": tools})))
    always = {part_id for part_id, when in SPEC_PARTS.values() if when == "true"}
    assert always <= used


def test_environment_is_present_even_when_nothing_is_known() -> None:
    section = text_of(cat().assemble({}), "environment")
    assert "- Working directory: not known" in section
    assert "- Operating system: not known" in section
    assert "- Shell: not known" in section


def test_environment_gives_os_shell_and_cwd() -> None:
    section = text_of(cat().assemble({"env": FULL_ENV}), "environment")
    for line in ("- Working directory: /work/app", "- Operating system: Linux", "- Shell: zsh"):
        assert line in section


@pytest.mark.parametrize(
    ("part_id", "switch"),
    [
        ("accessing-past-sessions", {"features": ["sessions"]}),
        ("memory-instructions", {"features": ["memory"]}),
        ("glob-usage", {"tools": ["Glob"]}),
        ("grep-usage", {"tools": ["Grep"]}),
        ("search-replace-editing", {"tools": ["Edit"]}),
        ("todo-tool", {"tools": ["TodoWrite"]}),
        ("mcp-servers", {"mcp_servers": [{"name": "db"}]}),
        ("custom-slash-commands", {"commands": [{"name": "deploy"}]}),
        ("claude-md-instructions", {"project_files": [{"path": "CLAUDE.md", "content": "x"}]}),
        ("output-style", {"output_style": {"name": "Terse"}}),
    ],
)
def test_each_conditional_part_follows_its_condition(part_id: str, switch: dict[str, Any]) -> None:
    assert part_id not in ids(cat().assemble({}))
    assert part_id in ids(cat().assemble(switch))


# ------------------------------------------------ 3.2 tool descriptions

SPEC_TOOLS = (
    *("Bash", "Read", "Write", "Edit", "Glob", "Grep", "Task", "WebSearch", "WebFetch"),
    *("TodoWrite", "NotebookEdit", "AskUserQuestion", "ListMcpResources", "ReadMcpResource"),
    "Config",
)


def test_tool_descriptions_go_to_the_tools_array_only_for_enabled_tools() -> None:
    everything = cat().assemble({"tools": SPEC_TOOLS})
    assert [t.name for t in everything.tools] == [
        *SPEC_TOOLS[:6],
        "NotebookEdit",
        "Task",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "AskUserQuestion",
        "ListMcpResources",
        "ReadMcpResource",
        "Config",
    ]
    for tool in everything.tools:
        assert tool.description not in everything.text
    assert [t.name for t in cat().assemble({"tools": ["Grep"]}).tools] == ["Grep"]


# --------------------------------------------------------- 3.3 sub-agents

# Spec 05's table 3.3: the agent's name there -> (our sub-agent, when it is used).
SPEC_AGENTS = {
    "Explore": ("explore", "/explore command"),
    "Plan mode (enhanced)": ("plan", "plan permission mode"),
    "Task tool": ("task", "The Task (Agent) tool spawns a sub-agent"),
    "WebFetch summarizer": ("webfetch-summarizer", "The WebFetch tool processes a fetched page"),
    "Agent creation architect": ("agent-architect", "/agent-create command"),
    "CLAUDE.md creation": ("claudemd-creation", "/init command"),
    "Status line setup": ("status-line", "Status line configuration"),
    "Remember skill": ("remember", "/remember command"),
    "Session Search Assistant": ("session-search", "Session search"),
    "Session memory update": ("session-memory", "Memory updates"),
    "Session title/branch": ("session-title", "Automatic session title and branch name"),
    "Update Magic Docs": ("magic-docs", "Magic docs refresh"),
    "User sentiment analysis": ("sentiment", "Sentiment monitoring"),
    "/pr-comments": ("pr-comments", "/pr-comments command"),
    "/review-pr": ("pr-review", "/review-pr command"),
    "/security-review": ("security-review", "/security-review command"),
    "Agent Summary Generation": ("agent-summary", "Agent summary"),
}


def test_the_seventeen_sub_agents_each_with_its_trigger_and_its_own_prompt() -> None:
    entries = {a.name: a for a in cat().manifest.agent}
    assert len(SPEC_AGENTS) == 17
    for spec_name, (agent, trigger) in SPEC_AGENTS.items():
        assert entries[agent].meta["trigger"] == trigger, spec_name
        prompt = cat().assemble({"env": FULL_ENV}, agent=agent)
        own = [p for p in prompt.parts if p.kind == "agent" and p.order == 10]
        assert len(own) == 1 and own[0].id.startswith("agent-"), spec_name
    # Every declared sub-agent says when it is used, the catalog's own addition too.
    assert all(entry.meta.get("trigger") for entry in entries.values())


# ------------------------------------------------------ 3.4 system reminders

# One trigger per reminder: the variables (and context) that make it, and only it, fire.
REMINDER_TRIGGERS: dict[str, dict[str, Any]] = {
    "reminder-session-resumed": {"session_resumed": True},
    "reminder-plan-mode": {"plan_mode": True},
    "reminder-context-nearly-full": {"context_used_percent": 90},
    "reminder-file-modified": {"modified_files": ["a.py"]},
    "reminder-file-truncated": {"truncated_file": "big.log"},
    "reminder-ide-file-opened": {"ide_open_file": "a.py"},
    "reminder-ide-lines-selected": {"ide_selection_file": "a.py", "ide_selection_start": 3},
    "reminder-hook-blocked": {"hook_blocked_tool": "Bash"},
    "reminder-tool-denied": {"denied_tool": "Write"},
    "reminder-response-truncated": {"response_truncated": True},
    "reminder-todo-list-empty": {"todo_list_empty": True},
    "reminder-new-diagnostics": {"diagnostics": ["a.py:1: error"]},
    "reminder-file-empty": {"empty_file": "empty.txt"},
    "reminder-file-shorter-than-offset": {"short_file": "VERSION", "short_file_lines": 1},
    "reminder-read-before-summary": {"files_read_before_summary": ["a.py"]},
    "reminder-malware-check": {"read_file": "a.py"},
    "reminder-hook-context": {"hook_context": "Formatted a.py."},
    "reminder-hook-success": {"hook_succeeded": True},
    "reminder-hook-stopped": {"hook_stopped": True},
    "reminder-agent-mentioned": {"mentioned_agent": "explore"},
    "reminder-skills-invoked": {"invoked_skills": ["pdf"]},
    "reminder-nested-instructions": {"nested_instructions": {"api/CLAUDE.md": "JSON only."}},
    "reminder-mcp-resource-empty": {"empty_mcp_resource": "db://x"},
    "reminder-output-style-active": {},
    "reminder-plan-file": {"plan_file": "plan.md"},
    "reminder-plan-mode-reentered": {"plan_mode_reentered": True},
    "reminder-plan-mode-exited": {"plan_mode_exited": True},
    "reminder-todo-list-changed": {"todo_list_changed": True, "todos": ["[pending] Test"]},
    "reminder-todo-nudge": {"turns_since_todo_update": 10},
    "reminder-token-usage": {"tokens_used": 1000, "token_limit": 200000},
    "reminder-usd-budget": {"usd_spent": 0.5, "usd_budget": 2.0},
    "reminder-background-output": {"background_output": ["bash-1: make watch"]},
    "reminder-queued-messages": {"queued_messages": ["And the docs."]},
    "reminder-agents-finished": {"finished_agents": ["explore: callers"]},
    "reminder-verify-plan": {"plan_implemented": True},
    "reminder-date-changed": {"date_changed": True},
    "reminder-mcp-servers-connected": {"new_mcp_servers": ["db"]},
    "reminder-permission-mode": {"permission_mode": "acceptEdits"},
    "reminder-conversation-compacted": {"conversation_compacted": True},
    "reminder-files-mentioned": {"mentioned_files": ["a.py"]},
}


def _reminder_context(reminder: str, trigger: dict[str, Any]) -> dict[str, Any]:
    # The todo reminders concern the TodoWrite tool; output-style-active needs a style.
    ctx: dict[str, Any] = {"tools": ["TodoWrite"], "variables": trigger}
    if reminder == "reminder-output-style-active":
        ctx["output_style"] = {"name": "Terse"}
    return ctx


def test_about_forty_reminders_each_with_a_trigger_and_a_description() -> None:
    reminders = [p.decl for p in cat().parts if p.decl.kind == "reminder"]
    assert {r.id for r in reminders} == REMINDER_TRIGGERS.keys()
    assert len(reminders) == 40
    for decl in reminders:
        assert decl.when != "true" and decl.description, decl.id
        assert decl.stability == "turn", decl.id


@pytest.mark.parametrize("reminder", sorted(REMINDER_TRIGGERS))
def test_each_reminder_fires_on_its_own_trigger_only(reminder: str) -> None:
    assert cat().reminders({"tools": ["TodoWrite"]}) == ()
    found = cat().reminders(_reminder_context(reminder, REMINDER_TRIGGERS[reminder]))
    assert [r.id for r in found] == [reminder]
    assert found[0].text.startswith("<system-reminder>\n")
    assert found[0].text.endswith("\n</system-reminder>")


def test_reminders_are_never_part_of_the_system_prompt() -> None:
    variables = {k: v for trigger in REMINDER_TRIGGERS.values() for k, v in trigger.items()}
    ctx = {"tools": ["TodoWrite"], "output_style": {"name": "Terse"}, "variables": variables}
    prompt = cat().assemble(ctx)
    found = cat().reminders(ctx)
    assert len(found) == 39  # all but "file opened", which yields to the IDE selection
    assert not [r.id for r in found if r.text in prompt.text]
    assert {e.reason for e in prompt.excluded if e.kind == "reminder"} == {"channel"}


# ------------------------------------------------------ 4. assembly order

EVERYTHING: dict[str, Any] = {
    "tools": ["Bash", "Read", "Edit", "Glob", "Grep", "TodoWrite"],
    "features": ["sessions", "memory"],
    "env": FULL_ENV,
    "mcp_servers": [{"name": "db"}],
    "commands": [{"name": "deploy"}],
    "project_files": [{"path": "/work/app/CLAUDE.md", "content": "Use tabs."}],
    "output_style": {"name": "Terse", "prompt": "One line."},
    "append": "Appended.",
}

SPEC_ORDER = [
    # 1. identity; 2. security and censoring; 3. environment
    *("main-system-prompt", "security-policy", "censoring-malicious-activities", "environment"),
    # 4. sessions and memory; 5. tool documentation (git-safety is the catalog's own)
    *("accessing-past-sessions", "memory-instructions"),
    *("glob-usage", "grep-usage", "search-replace-editing", "todo-tool", "git-safety"),
    # 6. MCP; 7. slash commands
    *("mcp-servers", "custom-slash-commands"),
    # 8. behavioural parts, in the algorithm's order
    *("conversational-style", "proactive-suggestions", "respecting-conventions"),
    *("tool-use-formatting", "use-tools-to-verify", "do-not-litter-output"),
    *("large-file-handling", "file-read-limits"),
    # 9. CLAUDE.md; 10. output style; 11. append
    *("claude-md-instructions", "output-style", "context:append"),
]


def test_assembly_follows_the_algorithm_of_section_4() -> None:
    assert ids(cat().assemble(EVERYTHING)) == SPEC_ORDER


def test_parts_are_joined_with_a_blank_line() -> None:
    prompt = cat().assemble(EVERYTHING)
    pieces = [prompt.text[p.start : p.end] for p in prompt.parts]
    assert prompt.text == "\n\n".join(pieces)


def test_the_order_keeps_a_static_prefix_up_to_the_environment() -> None:
    prompt = cat().assemble(EVERYTHING)
    assert prompt.static_prefix_length == prompt.parts[2].end
    assert not [p for p in check_catalog(cat(), count_tokens=False) if p.severity == "error"]


# ---------------------------------------------------------- 5. interpolation


def test_main_prompt_opening_follows_the_output_style() -> None:
    plain = text_of(cat().assemble({}), "main-system-prompt")
    styled = text_of(cat().assemble({"output_style": {"name": "Terse"}}), "main-system-prompt")
    assert "software engineering" in plain and "output style" not in plain
    assert "output style" in styled
    for text in (plain, styled):
        assert "Do not invent links" in text


PROMPT_VARS = {
    "version": "2.1.37",
    "build_time": "2026-02-01",
    "package_url": "@acme/agent",
    "readme_url": "https://docs.example/agent",
    "issues_explainer": "report the issue at https://example.com/issues",
    "feedback_channel": "#agent-feedback",
}


def test_every_prompt_variable_of_section_5_is_interpolated() -> None:
    text = text_of(cat().assemble({"variables": PROMPT_VARS}), "main-system-prompt")
    assert "- Documentation: https://docs.example/agent." in text
    assert "- To give feedback, they should report the issue at https://example.com/issues." in text
    assert text.endswith("You are version 2.1.37 of @acme/agent, built 2026-02-01.")
    # Without an issues explainer the feedback channel is named instead.
    only_channel = {"feedback_channel": "#agent-feedback"}
    text = text_of(cat().assemble({"variables": only_channel}), "main-system-prompt")
    assert text.endswith(
        "If the user asks for help or wants to give feedback:\n- Feedback goes to #agent-feedback."
    )


def test_without_prompt_variables_nothing_of_them_shows() -> None:
    text = text_of(cat().assemble({}), "main-system-prompt")
    assert "feedback" not in text and "You are version" not in text


# -------------------------------------------------------- 6. CLAUDE.md


def _gathered(tmp_path: Path, files: dict[str, str]) -> catalog.Context:
    home, top = tmp_path / "home", tmp_path / "top"
    cwd = top / "mid" / "app"
    for folder in (home, cwd / ".claude"):
        folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return catalog.gather(cat(), cwd, home=home, root=top, git=False)


def test_claude_md_files_are_gathered_in_the_order_of_their_priority(tmp_path: Path) -> None:
    """Sections 6 and 10: the files of section 6, joined in priority order, local >
    project > parent: the working directory's CLAUDE.local.md, CLAUDE.md and
    .claude/CLAUDE.md, then each parent folder's CLAUDE.local.md (Claude Code reads it in
    every folder of its walk) and CLAUDE.md, nearest first; the user's own file last."""
    gathered = _gathered(
        tmp_path,
        {
            "top/mid/app/CLAUDE.md": "app",
            "top/mid/app/.claude/CLAUDE.md": "app dot-claude",
            "top/mid/app/CLAUDE.local.md": "app local",
            "top/mid/CLAUDE.md": "mid",
            "top/mid/CLAUDE.local.md": "mid local",
            "top/mid/.claude/CLAUDE.md": "mid dot-claude, not read",
            "top/CLAUDE.md": "top",
            "home/.claude/CLAUDE.md": "user",
        },
    )
    assert [(f.content, f.scope) for f in gathered.project_files] == [
        ("app local", "local"),
        ("app", "project"),
        ("app dot-claude", "project"),
        ("mid local", "parent"),
        ("mid", "parent"),
        ("top", "parent"),
        ("user", "user"),
    ]


def test_claude_md_priority_is_local_then_project_then_parent_and_is_the_join_order(
    tmp_path: Path,
) -> None:
    """Section 10: local > project > parent, stated in the part, and the files come in
    that order, so "the one that comes first wins" is the same rule."""
    gathered = _gathered(
        tmp_path,
        {
            "top/mid/app/CLAUDE.md": "Use tabs.\n",
            "top/mid/app/CLAUDE.local.md": "\nUse two spaces.\n\n",
            "top/CLAUDE.md": "Use four spaces.\n",
        },
    )
    section = text_of(cat().assemble(gathered), "claude-md-instructions")
    # Section 6's join, each file's blank lines trimmed, in the order gathered.
    assert section.endswith("Use two spaces.\n\n---\n\nUse tabs.\n\n---\n\nUse four spaces.")
    assert "Where two files disagree, the one that comes first wins" in section
    local, project, parent = (
        section.index("CLAUDE.local.md wins"),
        section.index("project's files win"),
        section.index("those of parent folders"),
    )
    assert local < project < parent


def test_claude_md_part_is_dropped_when_every_file_is_blank() -> None:
    files = [{"path": "CLAUDE.md", "content": "  \n"}, {"path": "CLAUDE.local.md", "content": ""}]
    prompt = cat().assemble({"project_files": files})
    assert "claude-md-instructions" not in ids(prompt)


# ------------------------------------------------------------ 7. sub-agents

SKILLS = [
    {"name": "alpha", "description": "A.", "content": "Alpha steps."},
    {"name": "beta", "description": "B.", "content": "Beta steps."},
]


def _with_skills(tmp_path: Path, skills: list[str]) -> Catalog:
    """A copy of coding-agent 1.2.0 whose security-review entry preloads ``skills``."""
    folder = tmp_path / "coding-agent" / "1.2.0"
    shutil.copytree(BUNDLED, folder)
    manifest = folder / "catalog.toml"
    text = manifest.read_text(encoding="utf-8")
    assert text.count('skills = ["secure-code-review"]') == 1
    manifest.write_text(text.replace('["secure-code-review"]', repr(skills).replace("'", '"')))
    return catalog.load_dir(folder)


def test_sub_agent_prompt_is_prompt_reminder_skills_environment(tmp_path: Path) -> None:
    ctx = {"env": FULL_ENV, "skills": SKILLS, "tools": ["Bash", "Read"]}
    sub = _with_skills(tmp_path, ["beta", "alpha", "missing"])
    prompt = sub.assemble(ctx, agent="security-review")
    assert ids(prompt) == [
        "agent-security-review",
        "critical-reminder",
        "preloaded-skills",
        "subagent-environment",
    ]
    (entry,) = [a for a in sub.manifest.agent if a.name == "security-review"]
    assert text_of(prompt, "critical-reminder") == f"CRITICAL REMINDER: {entry.critical_reminder}"
    # The entry's order; a skill that cannot be found is skipped.
    assert text_of(prompt, "preloaded-skills") == "Beta steps.\n\nAlpha steps."
    env = text_of(prompt, "subagent-environment")
    for line in ("- Working directory: /work/app", "- Operating system: Linux", "- Shell: zsh"):
        assert line in env


def test_sub_agent_without_a_critical_reminder_or_skills_gets_neither() -> None:
    prompt = cat().assemble({"env": FULL_ENV, "skills": SKILLS}, agent="task")
    assert ids(prompt) == ["agent-task", "subagent-environment"]


def test_sub_agents_do_not_get_claude_md_unless_specified() -> None:
    ctx = {"env": FULL_ENV, "project_files": [{"path": "CLAUDE.md", "content": "Tabs."}]}
    for agent in cat().agents:
        used = ids(cat().assemble(ctx, agent=agent))
        assert ("claude-md-instructions" in used) == (agent in ("main", "plan")), agent
    # The plan agent gets them after its own four parts.
    assert ids(cat().assemble(ctx, agent="plan"))[-1] == "claude-md-instructions"


# -------------------------------------------------------------- 8. budget


@pytest.mark.parametrize("agent", ["main", "plan", "security-review"])
def test_a_prompt_over_budget_is_an_error_naming_its_total_and_the_budget(agent: str) -> None:
    """Section 8: `system prompt N tokens exceeds budget M`, and nothing dropped."""
    full = cat().assemble(EVERYTHING, agent=agent)
    with pytest.raises(BudgetError) as info:
        cat().assemble({**EVERYTHING, "token_budget": full.tokens - 1}, agent=agent)
    message = info.value.message
    assert message == (
        f"catalog coding-agent 1.2.0, agent {agent}: the system prompt is {full.tokens} "
        f"chars/4 tokens, 1 over the budget of {full.tokens - 1}; none of its parts may "
        "be dropped"
    )
    assert info.value.key == "token_budget"


def test_a_prompt_within_budget_is_the_whole_prompt() -> None:
    full = cat().assemble(EVERYTHING)
    fitted = cat().assemble({**EVERYTHING, "token_budget": full.tokens})
    assert fitted.text == full.text
    assert not [e for e in fitted.excluded if e.reason == "budget"]


def test_token_estimates_are_four_characters_a_token() -> None:
    """Section 8's EstimateTokens: the catalog counts with chars/4 (rounded up)."""
    prompt = cat().assemble(EVERYTHING)
    assert prompt.counter == "chars/4"
    for part in prompt.parts:
        assert part.tokens == -(-(part.end - part.start) // 4), part.id
    assert all(p.decl.tokens == -(-len(p.body) // 4) for p in cat().parts)


# ---------------------------------------------------------------- MCP


def test_mcp_part_lists_each_servers_tools_and_instructions() -> None:
    servers = [
        {
            "name": "db",
            "instructions": "Read-only replica.",
            "tools": [{"name": "query", "description": "Run a\n  SELECT"}, {"name": "schema"}],
        },
        {"name": "empty"},
    ]
    section = text_of(cat().assemble({"mcp_servers": servers}), "mcp-servers")
    assert '<mcp-server name="db">\nTools:\n- `mcp__db__query`: Run a SELECT\n' in section
    assert "- `mcp__db__schema`\n\nRead-only replica.\n</mcp-server>" in section
    assert '<mcp-server name="empty">\nTools: none listed.' in section


def test_catalog_changelog_names_every_changed_part() -> None:
    log = (BUNDLED.parent / "CHANGELOG.md").read_text(encoding="utf-8")
    section = log.split("## [1.2.0]")[1].split("## [1.1.0]")[0]
    named = set(re.findall(r"`([a-z0-9-]+)`", section))
    old = {p.id: p.decl for p in catalog.load("coding-agent", "==1.1.0").parts}
    new = {p.id: p.decl for p in cat().parts}
    touched = (old.keys() ^ new.keys()) | {
        i
        for i in old.keys() & new.keys()
        if (old[i].sha256, old[i].when, old[i].order) != (new[i].sha256, new[i].when, new[i].order)
    }
    assert touched <= named
