"""The floor of assembling coding-agent's main prompt: the same text, by hand.

:func:`make_floor` returns a plain Python function that builds, from a
:class:`catalog.Context`, the text and the tool descriptions that
``catalog.load("coding-agent").assemble(context)`` gives for the main agent,
for the contexts ``scripts/bench.py`` uses (tools and ``env`` only: no
features, variables, output style, MCP servers, commands, project files,
overrides, budget or custom prompt). It is what a careful programmer would
write for that one prompt: the texts as constants, the conditions as ``if``,
the placeholders as f-strings. ``scripts/bench.py`` checks its result equals the engine's before
timing either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["make_floor"]

_TOOL_PARTS = (
    ("Edit", "search-replace-editing"),
    ("TodoWrite", "todo-tool"),
    ("Bash", "git-safety"),
)
_GUIDANCE = (
    "conversational-style",
    "proactive-suggestions",
    "respecting-conventions",
    "tool-use-formatting",
    "use-tools-to-verify",
    "do-not-litter-output",
    "large-file-handling",
    "file-read-limits",
)


def _between(text: str, start: str, end: str) -> str:
    """The text between the first ``start`` and the ``end`` after it."""
    return text.split(start, 1)[1].split(end, 1)[0]


def _environment(env: Any) -> str:
    """The environment section for ``env``, as the bundled body renders it."""
    system = "not known"
    if env.os:
        system = env.os + (f" {env.os_version}" if env.os_version else "")
        if env.platform and env.platform.lower() != env.os.lower():
            system += f" ({env.platform})"
    elif env.platform:
        system = env.platform
    lines = [
        "# Environment",
        "",
        f"- Working directory: {env.cwd or 'not known'}",
        f"- Operating system: {system}",
        f"- Shell: {env.shell or 'not known'}",
    ]
    if env.cwd:
        lines.append(f"- Git repository: {'yes' if env.is_git_repo else 'no'}")
    if env.is_git_repo and env.git_branch:
        lines.append(f"- Current branch: {env.git_branch}")
    if env.date:
        zone = f" ({env.timezone})" if env.timezone else ""
        lines.append(f"- Today's date: {env.date}{zone}")
    if env.model:
        lines.append(f"- Model: {env.model}")
    if not (env.cwd and (env.os or env.platform) and env.shell):
        lines += [
            "",
            "Where a fact above is not known and matters, find it out with your "
            "tools or ask the user.",
        ]
    resolve = "; resolve relative paths against the working directory above" if env.cwd else ""
    trust = "trust today's date above, and " if env.date else ""
    lines += [
        "",
        f"Use absolute paths in tool calls{resolve}. Your knowledge has a cut-off, so "
        f"{trust}check current versions and APIs in the project's files or documentation "
        "rather than relying on memory.",
    ]
    return "\n".join(lines)


def _tool_bash(tools: tuple[str, ...], head: str, file_work: str, tail: str) -> str:
    """The Bash tool's description for ``tools``, from its fixed pieces."""
    text = head
    if any(name in tools for name in ("Read", "Grep", "Glob", "Edit")):
        text += "\n\n" + file_work
    if "Read" in tools:
        text += "\n- reading files: Read, not `cat`, `head` or `tail`"
    if "Grep" in tools:
        text += "\n- searching contents: Grep, not `grep` or `rg`"
    if "Glob" in tools:
        text += "\n- finding files: Glob, not `find` or `ls -R`"
    if "Edit" in tools:
        text += "\n- changing files: Edit, not `sed` or `awk`"
    return text + "\n\n" + tail


def make_floor(cat: Any) -> Callable[[Any], tuple[str, list[tuple[str, str]]]]:
    """The hand-written builder for ``cat`` (coding-agent 1.2.0's bodies)."""
    body = {part.id: part.body.strip("\n").rstrip() for part in cat.parts}
    main = cat.part("main-system-prompt").body
    plain_opening = _between(main, "{% else %}\n", "\n{% endif %}")
    principles = _between(main, "{% endif %}\n", "\n{% if readme_url").rstrip("\n")
    glob_usage = body["glob-usage"].split("\n{% if", 1)[0]
    glob_task = _between(cat.part("glob-usage").body, '{% if "Task" in tools %}\n', "\n{% endif")
    bash_body = cat.part("tool-bash").body
    bash_head = bash_body.split("\n{% if", 1)[0]
    bash_file_work = _between(bash_body, "%}\n", "\n{% endif %}").strip("\n")
    bash_tail = bash_body.rsplit("{% endif %}\n", 1)[1].strip()
    tool_names = [part.decl.tool_name for part in cat.parts if part.decl.kind == "tool"]
    tool_texts = {
        part.decl.tool_name: body[part.id] for part in cat.parts if part.decl.kind == "tool"
    }
    separator = cat.separator

    def bash(tools: tuple[str, ...]) -> str:
        return _tool_bash(tools, bash_head, bash_file_work, bash_tail)

    def floor(context: Any) -> tuple[str, list[tuple[str, str]]]:
        tools = context.tools
        texts = [
            plain_opening + "\n" + principles,
            body["security-policy"],
            body["censoring-malicious-activities"],
            _environment(context.env),
        ]
        if "Glob" in tools:
            texts.append(glob_usage + ("\n" + glob_task if "Task" in tools else ""))
        if "Grep" in tools:
            texts.append(body["grep-usage"])
        texts += [body[part] for tool, part in _TOOL_PARTS if tool in tools]
        texts += [body[part] for part in _GUIDANCE]
        described = [
            (name, bash(tools) if name == "Bash" else tool_texts[name])
            for name in tool_names
            if name in tools
        ]
        return separator.join(texts), described

    return floor
