"""Self-written data in the format of Piebald-AI/claude-code-system-prompts.

Three releases of a small, made-up prompt collection: 2.1.36 and 2.1.37 hold
the same text, 2.1.38 adds a part, removes one and changes one, and its
CHANGELOG section says so with the README token counts (+105). The helpers
write a checkout, a git history (one commit per release) and imported
catalogs, for the importer's tests and for tests of features built on
imported catalogs (diff, lock).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import zlib
from collections.abc import Mapping
from pathlib import Path

from catalog.importers.piebald.read import read_checkout
from catalog.importers.piebald.write import import_releases

NAME = "claude-code"

MAIN = """\
<!--
name: 'System Prompt: Main system prompt'
description: Core identity of the agent
ccVersion: 2.1.30
variables:
  - PRODUCT_NAME
  - ISSUES_EXPLAINER
-->
You are ${PRODUCT_NAME}, an interactive CLI tool.
- To give feedback, users should ${{ISSUES_EXPLAINER:"report the issue"}.ISSUES_EXPLAINER}
"""

TONE = """\
<!--
name: 'System Prompt: Tone and style'
description: Guidelines for communication tone
ccVersion: 2.1.20
-->
Be concise. Use {{ braces }} and {% tags %} only as text.
"""

EXPLORE = """\
<!--
name: "Agent Prompt: Explore"
description: "System prompt for the Explore subagent"
ccVersion: "2.0.56"
variables:
  - "GLOB_TOOL_NAME"
agentMetadata:
  agentType: "Explore"
  model: "haiku"
  whenToUse: "Use it to find files (\\"quick\\" or \\"very thorough\\")"
  tools:
    - Glob
    - Grep
-->
You are a file search specialist. Use ${GLOB_TOOL_NAME} to find files.
"""

BASH_OLD = """\
<!--
name: 'Tool Description: Bash'
description: Runs shell commands
ccVersion: 2.1.30
variables:
  - TIMEOUT_MS
-->
Executes a bash command with an optional timeout of ${TIMEOUT_MS}ms.
"""

BASH_NEW = """\
<!--
name: 'Tool Description: Bash'
description: Runs shell commands
ccVersion: 2.1.38
variables:
  - TIMEOUT_MS
  - IS_SANDBOXED
-->
Executes a bash command with an optional timeout of ${TIMEOUT_MS}ms.${IS_SANDBOXED?`
Commands run in a sandbox.`:""}
"""

COMPUTER_ACTION = """\
<!--
name: 'Tool Parameter: Computer action'
description: Action parameter options for the computer tool
ccVersion: 2.0.71
-->
The action to perform: `left_click` or `type`.
"""

WORKFLOW = """\
<!--
name: 'Data: GitHub Actions workflow'
description: Workflow template for @claude mentions
ccVersion: 2.0.58
-->
steps:
  - uses: anthropics/claude-code-action@v1
    with:
      anthropic_api_key: \\${{ secrets.ANTHROPIC_API_KEY }}
"""

DEBUGGING = """\
<!--
name: 'Skill: Debugging'
description: Instructions for debugging a session
ccVersion: 2.1.30
variables:
  - DEBUG_LOG_PATH
-->
# Debug Skill

Read ${DEBUG_LOG_PATH} first.
"""

PLAN_MODE = """\
<!--
name: 'System Reminder: Plan mode is active'
description: Reminder that plan mode is on
ccVersion: 2.1.33
variables:
  - IS_BASH_ENV
-->
Plan mode is active.${IS_BASH_ENV?`
Do not run commands that change files.`:""}
"""

OLD_HELPER = """\
<!--
name: 'Agent Prompt: Old helper'
description: A helper prompt removed in 2.1.38
ccVersion: 2.1.10
-->
You help with old things.
"""

COMPACTION = """\
<!--
name: 'System Prompt: Context compaction summary'
description: Prompt used for context compaction summary
ccVersion: 2.1.38
-->
Summarise the conversation so far.
"""

_COMMON = {
    "system-prompt-main-system-prompt.md": MAIN,
    "system-prompt-tone-and-style.md": TONE,
    "agent-prompt-explore.md": EXPLORE,
    "tool-parameter-computer-action.md": COMPUTER_ACTION,
    "data-github-actions-workflow.md": WORKFLOW,
    "skill-debugging.md": DEBUGGING,
    "system-reminder-plan-mode-is-active.md": PLAN_MODE,
}
_BEFORE = {
    **_COMMON,
    "tool-description-bash.md": BASH_OLD,
    "agent-prompt-old-helper.md": OLD_HELPER,
}
_AFTER = {
    **_COMMON,
    "tool-description-bash.md": BASH_NEW,
    "system-prompt-context-compaction-summary.md": COMPACTION,
}

FILES: Mapping[str, Mapping[str, str]] = {"2.1.36": _BEFORE, "2.1.37": _BEFORE, "2.1.38": _AFTER}

# Upstream (Anthropic API) token counts as the README gives them.
_TOKENS_BEFORE = {
    "system-prompt-main-system-prompt.md": 40,
    "system-prompt-tone-and-style.md": 18,
    "agent-prompt-explore.md": 516,
    "tool-parameter-computer-action.md": 20,
    "data-github-actions-workflow.md": 35,
    "skill-debugging.md": 22,
    "system-reminder-plan-mode-is-active.md": 25,
    "tool-description-bash.md": 120,
    "agent-prompt-old-helper.md": 213,
}
_TOKENS_AFTER = {
    **{k: v for k, v in _TOKENS_BEFORE.items() if k != "agent-prompt-old-helper.md"},
    "tool-description-bash.md": 160,
    "system-prompt-context-compaction-summary.md": 278,
}
README_TOKENS: Mapping[str, Mapping[str, int]] = {
    "2.1.36": _TOKENS_BEFORE,
    "2.1.37": _TOKENS_BEFORE,
    "2.1.38": _TOKENS_AFTER,
}

CHANGELOG_2_1_38 = """\
# [2.1.38](https://github.com/Piebald-AI/claude-code-system-prompts/commit/abc1234)

_+105 tokens_

- **NEW:** System Prompt: Context compaction summary - Added a prompt used for context \
compaction summary (278 tks).
- **REMOVED:** Agent Prompt: Old helper - Removed the helper prompt (213 tks).
- Tool Description: Bash - Added a conditional note about the sandbox (120 → 160 tks).
"""

_CHANGELOG_TAIL = """\
#### [2.1.37](https://github.com/Piebald-AI/claude-code-system-prompts/commit/e687bd6)

<sub>_No changes to the system prompts in v2.1.37._</sub>

#### [2.1.36](https://github.com/Piebald-AI/claude-code-system-prompts/commit/933e339)

<sub>_No changes to the system prompts in v2.1.36._</sub>

# [2.1.33](https://github.com/Piebald-AI/claude-code-system-prompts/commit/38ebc6b)

_-1,086 tokens_

- **NEW:** Tool Description: TeamDelete - Tool description for deleting team resources
- System Reminder: Plan mode is active \u2014 Restructured; from 909 to 797 tokens
"""

LICENSE = "MIT License\n\nCopyright (c) Piebald LLC (made-up fixture text)\n"


def _name(text: str) -> str:
    line = next(line for line in text.splitlines() if line.startswith("name: "))
    return line.removeprefix("name: ").strip("'\"")


def readme(version: str) -> str:
    """The README of a release: the version line and one line per part."""
    lines = [
        "# Claude Code System Prompts",
        "",
        "This repository contains an up-to-date list of all Claude Code's various system "
        f"prompts as of **[Claude Code v{version}](https://www.npmjs.com/package/"
        f"@anthropic-ai/claude-code/v/{version}) (February 9th, 2026).**",
        "",
        "### Prompts",
        "",
    ]
    for file, text in sorted(FILES[version].items()):
        tokens = README_TOKENS[version][file]
        lines.append(
            f"- [{_name(text)}](./system-prompts/{file}) (**{tokens}** tks) - Made-up {file}."
        )
    return "\n".join(lines) + "\n"


def changelog(version: str) -> str:
    """The CHANGELOG as it stood at a release (2.1.38's section comes with 2.1.38)."""
    head = "# Changelog\n\n"
    return head + (CHANGELOG_2_1_38 + "\n" if version == "2.1.38" else "") + _CHANGELOG_TAIL


def write_checkout(folder: Path, version: str) -> Path:
    """Write a checkout of ``version`` into ``folder`` (replacing its part files)."""
    prompts = folder / "system-prompts"
    prompts.mkdir(parents=True, exist_ok=True)
    for old in prompts.glob("*.md"):
        old.unlink()
    for file, text in FILES[version].items():
        (prompts / file).write_text(text, encoding="utf-8")
    (folder / "README.md").write_text(readme(version), encoding="utf-8")
    (folder / "CHANGELOG.md").write_text(changelog(version), encoding="utf-8")
    (folder / "LICENSE").write_text(LICENSE, encoding="utf-8")
    return folder


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity and no user or system configuration."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Fixture",
        "GIT_AUTHOR_EMAIL": "fixture@example.com",
        "GIT_COMMITTER_NAME": "Fixture",
        "GIT_COMMITTER_EMAIL": "fixture@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def make_history(repo: Path) -> Path:
    """A clone-like repository: a release commit per version, plus commits that are not."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# Claude Code System Prompts\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Initial commit")
    for version, subject in (
        ("2.1.36", "v2.1.36 (+0 tokens)"),
        ("2.1.37", "v2.1.37 (+0 tokens)"),
        ("2.1.38", "v2.1.38 (+105 tokens)"),
    ):
        write_checkout(repo, version)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", subject)
    with (repo / "README.md").open("a", encoding="utf-8") as stream:
        stream.write("\nStar this repository.\n")
    git(repo, "commit", "-q", "-am", "Update README")
    return repo


def import_pair(tmp_path: Path, versions: tuple[str, ...] = ("2.1.37", "2.1.38")) -> Path:
    """Import releases (2.1.37 and 2.1.38 by default) as catalog ``claude-code``; returns
    the catalogs root, for ``--path`` or ``catalog.load(..., paths=[root])``."""
    root = tmp_path / "catalogs"
    for version in versions:
        source = write_checkout(tmp_path / f"checkout-{version}", version)
        import_releases([read_checkout(source)], name=NAME, out=root)
    return root


def write_object(repo: Path, kind: str, content: bytes) -> str:
    """Write a loose object into ``repo`` as git stores one, without any of git's
    checks (a tree with names git refuses, say); its id."""
    raw = f"{kind} {len(content)}\0".encode() + content
    oid = hashlib.sha1(raw).hexdigest()
    path = repo / ".git" / "objects" / oid[:2] / oid[2:]
    path.parent.mkdir(exist_ok=True)
    if not path.exists():
        path.write_bytes(zlib.compress(raw))
    return oid


def raw_tree(entries: list[tuple[str, bytes, str]]) -> bytes:
    """A tree object's content: ``(mode, name, id)`` entries, written in the order
    given, whatever they are named."""
    return b"".join(
        mode.encode() + b" " + name + b"\0" + bytes.fromhex(oid) for mode, name, oid in entries
    )


def commit_hostile_release(
    repo: Path, extra: list[tuple[bytes, str]], subject: str = "v2.1.39 (+0 tokens)"
) -> str:
    """Commit on ``repo``'s HEAD a release whose ``system-prompts/`` tree is HEAD's plus
    ``extra`` entries (a raw name and the text of its file), written as a tree object
    whatever the names are (git would refuse to make it); the new commit's id."""
    listing = git(repo, "ls-tree", "-z", "HEAD:system-prompts").split("\0")
    entries: list[tuple[str, bytes, str]] = []
    for line in filter(None, listing):
        info, name = line.split("\t", 1)
        mode, _, oid = info.split()
        entries.append((mode, name.encode(), oid))
    for raw_name, text in extra:
        entries.append(("100644", raw_name, write_object(repo, "blob", text.encode())))
    prompts = write_object(repo, "tree", raw_tree(entries))
    top: list[tuple[str, bytes, str]] = []
    for line in filter(None, git(repo, "ls-tree", "-z", "HEAD").split("\0")):
        info, name = line.split("\t", 1)
        mode, _, oid = info.split()
        top.append((mode, name.encode(), prompts if name == "system-prompts" else oid))
    tree = write_object(repo, "tree", raw_tree(top))
    commit = git(repo, "commit-tree", tree, "-p", "HEAD", "-m", subject).strip()
    git(repo, "update-ref", "HEAD", commit)
    return commit
