"""Named assembly contexts for the bundled ``coding-agent`` catalog.

The snapshot matrix and the spec-05 checklist tests share these contexts. All
values are fixed made-up data (no machine paths, no clock), so every assembly
gives the same bytes on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "ALL_TOOLS",
    "CONTEXTS",
    "EARLY_RELEASES",
    "ENV",
    "OUTPUT_STYLE",
    "PROJECT_FILES",
    "RELEASES",
    "SESSION",
    "TRIGGER_EVERY_REMINDER",
    "context",
]

# Every release, for the snapshot matrix; spec 05's checklist for the first two is in
# test_coding_agent.py, for 1.2.0 (which follows the spec behaviour for behaviour) in
# test_coding_agent_1_2.py.
RELEASES = ("1.0.0", "1.1.0", "1.2.0")
EARLY_RELEASES = ("1.0.0", "1.1.0")

ALL_TOOLS = (
    *("Bash", "Read", "Write", "Edit", "Glob", "Grep", "NotebookEdit", "Task", "TodoWrite"),
    *("WebFetch", "WebSearch", "AskUserQuestion", "ListMcpResources", "ReadMcpResource", "Config"),
)
DEFAULT_TOOLS = ("Bash", "Read", "Write", "Edit", "Glob", "Grep", "Task", "TodoWrite")
READ_ONLY_TOOLS = ("Read", "Glob", "Grep")

ENV: Mapping[str, Any] = {
    "cwd": "/srv/acme/shop",
    "os": "Linux",
    "os_version": "6.8.0",
    "shell": "bash",
    "platform": "linux",
    "date": "2025-03-14",
    "is_git_repo": True,
    "git_branch": "feature/cart-totals",
}

PROJECT_FILES = (
    {
        "path": "/home/dev/.claude/CLAUDE.md",
        "scope": "user",
        "content": "Answer in British English.\nNever run `npm publish`.\n",
    },
    {
        "path": "/srv/acme/shop/CLAUDE.md",
        "scope": "project",
        "content": (
            "# Shop\n\n- Run the tests with `make test`.\n"
            "- Money is stored in integer cents; never use floats for prices.\n"
            "- Templates use `{{ price }}` placeholders: edit them as plain text.\n"
        ),
    },
    {
        "path": "/srv/acme/shop/api/CLAUDE.local.md",
        "scope": "local",
        "content": "\nThe staging database is at localhost:5433.\n\n",
    },
)

SKILLS = (
    {
        "name": "secure-code-review",
        "description": "A checklist for reviewing web code for injection and access-control flaws.",
        "path": "/home/dev/.claude/skills/secure-code-review/SKILL.md",
        "content": (
            "1. Trace every request parameter to where it is used.\n"
            "2. Check each query, shell call and template for injection.\n"
            "3. Check that every handler enforces the caller's permissions.\n"
        ),
    },
    {
        "name": "release-notes",
        "description": "How this team writes release notes.",
        "path": "/home/dev/.claude/skills/release-notes/SKILL.md",
        "content": "Group changes by user impact; link every pull request.",
    },
)

MCP_SERVERS = (
    {
        "name": "issues",
        "instructions": (
            "Use `search_issues` before creating an issue, to avoid duplicates.\n"
            "Issue numbers look like SHOP-123.\n"
        ),
    },
    {"name": "metrics", "instructions": "\n"},
)

COMMANDS = (
    {"name": "review-pr", "description": "Review the open pull request for this branch"},
    {"name": "/release", "description": "Prepare a release: changelog, version bump, tag"},
)

OUTPUT_STYLE = {
    "name": "Explanatory",
    "prompt": (
        "Explain the reasoning behind each change as you make it, and after a task add a short "
        "'Insights' section with two or three things worth learning from this codebase."
    ),
}

# A main-agent session with everything switched on: what sub-agents are assembled under.
SESSION: Mapping[str, Any] = {
    "tools": ALL_TOOLS,
    "features": ("sessions", "memory"),
    "env": ENV,
    "project_files": PROJECT_FILES,
    "skills": SKILLS,
    "mcp_servers": MCP_SERVERS,
    "commands": COMMANDS,
    "output_style": OUTPUT_STYLE,
    "variables": {
        "sessions_dir": "/home/dev/.agent/sessions",
        "memory_dir": "/home/dev/.agent/memory",
    },
}

CONTEXTS: Mapping[str, Mapping[str, Any]] = {
    "no-tools": {"env": ENV},
    "default-tools": {"tools": DEFAULT_TOOLS, "env": ENV},
    "all-tools": {"tools": ALL_TOOLS, "env": ENV},
    "read-only-tools": {"tools": READ_ONLY_TOOLS, "env": ENV},
    "memory-and-sessions": {
        "tools": DEFAULT_TOOLS,
        "env": ENV,
        "features": ("sessions", "memory"),
        "variables": SESSION["variables"],
    },
    "mcp-servers": {
        "tools": (*DEFAULT_TOOLS, "ListMcpResources", "ReadMcpResource"),
        "env": ENV,
        "mcp_servers": MCP_SERVERS,
    },
    "slash-commands": {"tools": DEFAULT_TOOLS, "env": ENV, "commands": COMMANDS},
    "output-style": {"tools": DEFAULT_TOOLS, "env": ENV, "output_style": OUTPUT_STYLE},
    "claude-md": {"tools": DEFAULT_TOOLS, "env": ENV, "project_files": PROJECT_FILES},
    "custom-prompt": {
        "tools": ("Bash", "Read"),
        "env": ENV,
        "project_files": PROJECT_FILES,
        "custom_prompt": "You are ShopBot, the release assistant of Acme's shop.\n"
        "Only answer questions about releases.",
    },
    "preset-append": {
        "tools": DEFAULT_TOOLS,
        "env": ENV,
        "append": "Always run `make lint` before you say a change is done.",
    },
    "identity-override": {
        "tools": DEFAULT_TOOLS,
        "env": ENV,
        "overrides": {"identity": "You are ShopBot, a coding agent for Acme's shop."},
    },
    "unknown-environment": {"tools": DEFAULT_TOOLS},
    "everything": SESSION,
}

# Variables that make every reminder of a release fire at once.
TRIGGER_EVERY_REMINDER: Mapping[str, Any] = {
    "session_resumed": True,
    "plan_mode": True,
    "todo_list_empty": True,
    "modified_files": ["/srv/acme/shop/cart.py", "/srv/acme/shop/tests/test_cart.py"],
    "context_used_percent": 85,
    "ide_open_file": "/srv/acme/shop/README.md",
    "ide_selection_file": "/srv/acme/shop/cart.py",
    "ide_selection_start": 10,
    "ide_selection_end": 12,
    "ide_selection_text": "    def total(self):\n        return sum(i.price for i in self.items)\n",
    "hook_blocked_tool": "Bash",
    "hook_block_reason": "rm -rf is not allowed in this repository.\n",
    "denied_tool": "Write",
    "response_truncated": True,
    "truncated_file": "/srv/acme/shop/orders.csv",
    "truncated_file_lines": 2000,
    "diagnostics": ['cart.py:11: error: Unsupported operand types for + ("int" and "str")'],
    # 1.2.0
    "empty_file": "/srv/acme/shop/.env.example",
    "short_file": "/srv/acme/shop/VERSION",
    "short_file_lines": 1,
    "files_read_before_summary": ["/srv/acme/shop/cart.py"],
    "read_file": "/srv/acme/shop/cart.py",
    "hook_name": "PostToolUse",
    "hook_context": "Formatted cart.py with black.\n",
    "hook_succeeded": True,
    "hook_output": "1 file reformatted\n",
    "hook_stopped": True,
    "hook_stop_reason": "The nightly freeze has started.",
    "mentioned_agent": "pr-review",
    "invoked_skills": ["release-notes"],
    "nested_instructions": {"/srv/acme/shop/api/CLAUDE.md": "API handlers return JSON only.\n"},
    "empty_mcp_resource": "issues://SHOP-123/attachments",
    "plan_file": "/home/dev/.claude/plans/cart-totals.md",
    "plan_mode_reentered": True,
    "plan_mode_exited": True,
    "todo_list_changed": True,
    "todos": ["[done] Read cart.py", "[in progress] Fix the totals", "[pending] Run the tests"],
    "turns_since_todo_update": 12,
    "tokens_used": 150000,
    "token_limit": 200000,
    "usd_spent": 1.25,
    "usd_budget": 5.0,
    "background_output": ["bash-2: npm run dev"],
    "queued_messages": ["Also update the changelog, please.\n"],
    "finished_agents": ["explore: find every caller of cart.total()"],
    "plan_implemented": True,
    "date_changed": True,
    "new_mcp_servers": ["metrics"],
    "permission_mode": "acceptEdits",
    "conversation_compacted": True,
    "mentioned_files": ["/srv/acme/shop/cart.py"],
}


def context(name: str, **changes: Any) -> dict[str, Any]:
    """A copy of the named context with ``changes`` applied on top."""
    return {**CONTEXTS[name], **changes}
