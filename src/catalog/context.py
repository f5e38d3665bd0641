"""The assembly context: everything a catalog's conditions and bodies may read.

A :class:`Context` is an immutable, validated record (see
:mod:`catalog.records`). Its fields are the names
conditions and templates see (``tools``, ``env.os``, ``project_files``...);
the expression compiler derives its name check from this model, so a field
added here becomes usable - and checked - in every catalog at once.

Values taken from the context are data: they are inserted into the prompt as
they are and never parsed again as template.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from catalog._textfile import parse_json, parse_toml, read_text, text_problem
from catalog.errors import ContextError, RecordError
from catalog.manifest.positions import key_lines
from catalog.records import Bounds, Check, Record, field

__all__ = [
    "CONTROL_FIELDS",
    "Command",
    "Context",
    "Environment",
    "Identity",
    "McpServer",
    "McpTool",
    "OutputStyle",
    "ProjectFile",
    "SessionInfo",
    "Skill",
    "ToolInfo",
    "UserProfile",
    "coerce_context",
    "load_context",
]


def _sorted(value: Mapping[str, Any]) -> Mapping[str, Any]:
    # A sorted plain dict keeps dumps deterministic whatever order the caller used.
    return dict(sorted(value.items()))


class Environment(Record):
    """Facts about the machine and session the agent runs in.

    :func:`catalog.gather` fills them from the runtime: ``date`` (``2025-01-31``),
    ``time`` (``14:05``), ``datetime`` (ISO 8601 with offset, seconds included),
    ``datetime_utc`` (the same moment in UTC with milliseconds, as JavaScript's
    ``toISOString`` writes it: ``2026-03-07T14:55:05.123Z``), ``weekday``,
    ``timezone`` (the zone's key, ``America/Chicago``, else its name) and
    ``tzname`` (its abbreviation at that moment, ``CST``) from one clock
    reading; ``git_status`` is ``git status --short``; ``home`` is the
    home folder ``~`` stood for while gathering.
    """

    cwd: str = ""
    home: str = ""
    os: str = ""
    os_version: str = ""
    arch: str = ""
    hostname: str = ""
    user: str = ""
    shell: str = ""
    platform: str = ""
    date: str = ""
    time: str = ""
    datetime: str = ""
    datetime_utc: str = ""
    weekday: str = ""
    timezone: str = ""
    tzname: str = ""
    is_git_repo: bool = False
    git_branch: str = ""
    git_status: str = ""
    model: str = ""
    provider: str = ""


class ProjectFile(Record):
    """An instruction file (CLAUDE.md, AGENTS.md...) with the path it came from.

    :func:`catalog.gather` also says which ``[sources]`` entry found it
    (``source``) and, for a file pulled in by an ``@path`` import, the chain
    of files that imported it, outermost first (``imported_by``).
    """

    path: str
    content: str
    scope: str = "project"
    source: str = ""
    imported_by: tuple[str, ...] = ()


class Skill(Record):
    """A skill the agent may load: its name, what it is for, where it lives."""

    name: str
    description: str = ""
    path: str = ""
    content: str = ""


class ToolInfo(Record):
    """What an agent knows about one tool beyond its name.

    ``snippet`` is a one-line summary for a tools list, ``parameters`` its JSON
    Schema (for providers without native tool calling), ``guidelines`` lines
    the tool (or the extension that adds it) wants in the prompt.
    """

    description: str = ""
    snippet: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    guidelines: tuple[str, ...] = ()


class Identity(Record):
    """Who the agent is, as an identity file's front matter says (IDENTITY.md)."""

    name: str = ""
    emoji: str = ""
    creature: str = ""
    vibe: str = ""
    content: str = ""


class UserProfile(Record):
    """Who the user is, as a profile file's front matter says (USER.md)."""

    name: str = ""
    timezone: str = ""
    location: str = ""
    content: str = ""


class SessionInfo(Record):
    """The session (conversation) an agent is attached to; sub-agents often have none."""

    id: str = ""
    dir: str = ""


class McpTool(Record):
    """One tool a connected MCP server offers."""

    name: str
    description: str = ""


class McpServer(Record):
    """A connected MCP server: its name, the instructions it ships and its tools."""

    name: str
    instructions: str = ""
    tools: tuple[McpTool, ...] = ()


class Command(Record):
    """A registered slash command."""

    name: str
    description: str = ""


class OutputStyle(Record):
    """An output style that changes how the agent presents itself."""

    name: str
    prompt: str = ""


class Context(Record):
    """What an assembly depends on, apart from the catalog and the agent.

    ``variables`` holds values for the variables a catalog declares; they are
    visible to conditions by their bare names. ``overrides``, ``custom_prompt``
    and ``append`` are the three override modes: replace a slot's parts, replace
    the whole prompt, or add text at the end. ``token_budget`` caps the prompt's
    tokens (replacing the catalog's own budget); optional parts are dropped to fit.
    ``touched_files`` are the files the agent has read or edited (relative to
    ``env.cwd`` or absolute): path-scoped rule files apply when one matches.
    """

    tools: tuple[str, ...] = ()
    touched_files: tuple[str, ...] = ()
    tool_info: Annotated[Mapping[str, ToolInfo], Check(_sorted)] = field(default_factory=dict)
    guidelines: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    env: Environment = Environment()  # frozen, every field a text or a flag: one will do
    project_files: tuple[ProjectFile, ...] = ()
    files: Annotated[Mapping[str, str], Check(_sorted)] = field(default_factory=dict)
    skills: tuple[Skill, ...] = ()
    mcp_servers: tuple[McpServer, ...] = ()
    commands: tuple[Command, ...] = ()
    output_style: OutputStyle | None = None
    identity: Identity | None = None
    user: UserProfile | None = None
    soul: str = ""
    session: SessionInfo | None = None
    variables: Annotated[Mapping[str, Any], Check(_sorted)] = field(default_factory=dict)
    overrides: Annotated[Mapping[str, str], Check(_sorted)] = field(default_factory=dict)
    custom_prompt: str | None = None
    append: str | None = None
    token_budget: Annotated[int, Bounds(gt=0)] | None = None


# Fields that steer assembly rather than being read by conditions.
CONTROL_FIELDS = ("variables", "overrides", "custom_prompt", "append", "token_budget")


def coerce_context(
    value: Context | Mapping[str, Any] | None, *, source: str = "context"
) -> Context:
    """Turn ``None``, a mapping or a :class:`Context` into a validated :class:`Context`;
    a text no UTF-8 writer can encode (a lone surrogate) is refused, naming its key."""
    if value is None:
        return Context()
    if isinstance(value, Context):
        return value
    problem = text_problem(value)
    if problem is not None:
        raise ContextError(problem.message, file=source, key=problem.where, hint=problem.hint)
    try:
        return Context.model_validate(value)
    except RecordError as exc:
        raise _context_error(exc, source) from None


def load_context(path: str | Path) -> Context:
    """Read a context from a ``.json`` file, or a TOML file (any other name)."""
    file = Path(path)
    text = read_text(file, ContextError, "the context file", "check the path given with --context")
    data: Any
    if file.suffix.lower() == ".json":
        data = parse_json(text, str(file), ContextError, "fix the JSON syntax")
    else:
        hint = "fix the TOML syntax"
        if file.suffix.lower() != ".toml":
            hint += "; a context file is read as TOML unless its name ends in .json"
        data = parse_toml(text, str(file), ContextError, hint)
    if not isinstance(data, dict):
        raise ContextError("the context must be a table/object at the top level", file=str(file))
    try:
        return Context.model_validate(data)
    except RecordError as exc:
        toml = text if file.suffix.lower() != ".json" else None
        raise _context_error(exc, str(file), toml) from None


def _context_error(exc: RecordError, source: str, toml: str | None = None) -> ContextError:
    """``exc`` as a context error naming ``source``; its line when the context is TOML text."""
    hint = "see `catalog schema context` for the fields a context may have"
    lines = key_lines(toml) if toml is not None else None
    return exc.as_error(ContextError, hint).located(file=source, lines=lines)
