"""The assembly context: everything a catalog's conditions and bodies may read.

A :class:`Context` is an immutable, validated model (see
:mod:`catalog.schema`). Its fields are the names
conditions and templates see (``tools``, ``env.os``, ``project_files``...);
the expression compiler derives its name check from this model, so a field
added here becomes usable - and checked - in every catalog at once.

Values taken from the context are data: they are inserted into the prompt as
they are and never parsed again as template.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from catalog.errors import ContextError, RecordError
from catalog.schema._base import Items, SchemaModel, sorted_table, validate
from catalog.schema.text import text_problem

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
    "context_error",
]


class Environment(SchemaModel):
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


class ProjectFile(SchemaModel):
    """An instruction file (CLAUDE.md, AGENTS.md...) with the path it came from.

    :func:`catalog.gather` also says which ``[sources]`` entry found it
    (``source``) and, for a file pulled in by an ``@path`` import, the chain
    of files that imported it, outermost first (``imported_by``).
    """

    path: str
    content: str
    scope: str = "project"
    source: str = ""
    imported_by: Items[str] = ()


class Skill(SchemaModel):
    """A skill the agent may load: its name, what it is for, where it lives."""

    name: str
    description: str = ""
    path: str = ""
    content: str = ""


class ToolInfo(SchemaModel):
    """What an agent knows about one tool beyond its name.

    ``snippet`` is a one-line summary for a tools list, ``parameters`` its JSON
    Schema (for providers without native tool calling), ``guidelines`` lines
    the tool (or the extension that adds it) wants in the prompt.
    """

    description: str = ""
    snippet: str = ""
    parameters: Mapping[str, Any] = Field(default_factory=dict)
    guidelines: Items[str] = ()


class Identity(SchemaModel):
    """Who the agent is, as an identity file's front matter says (IDENTITY.md)."""

    name: str = ""
    emoji: str = ""
    creature: str = ""
    vibe: str = ""
    content: str = ""


class UserProfile(SchemaModel):
    """Who the user is, as a profile file's front matter says (USER.md)."""

    name: str = ""
    timezone: str = ""
    location: str = ""
    content: str = ""


class SessionInfo(SchemaModel):
    """The session (conversation) an agent is attached to; sub-agents often have none."""

    id: str = ""
    dir: str = ""


class McpTool(SchemaModel):
    """One tool a connected MCP server offers."""

    name: str
    description: str = ""


class McpServer(SchemaModel):
    """A connected MCP server: its name, the instructions it ships and its tools."""

    name: str
    instructions: str = ""
    tools: Items[McpTool] = ()


class Command(SchemaModel):
    """A registered slash command."""

    name: str
    description: str = ""


class OutputStyle(SchemaModel):
    """An output style that changes how the agent presents itself."""

    name: str
    prompt: str = ""


class Context(SchemaModel):
    """What an assembly depends on, apart from the catalog and the agent.

    ``variables`` holds values for the variables a catalog declares; they are
    visible to conditions by their bare names. ``overrides``, ``custom_prompt``
    and ``append`` are the three override modes: replace a slot's parts, replace
    the whole prompt, or add text at the end. ``token_budget`` caps the prompt's
    tokens (replacing the catalog's own budget); optional parts are dropped to fit.
    ``touched_files`` are the files the agent has read or edited (relative to
    ``env.cwd`` or absolute): path-scoped rule files apply when one matches.
    ``model`` is the id of the model the prompt is for (``gpt-5``,
    ``claude-sonnet-4-5``): agents pick prompts by it, so conditions read it.
    """

    model: str = ""
    tools: Items[str] = ()
    touched_files: Items[str] = ()
    tool_info: Annotated[Mapping[str, ToolInfo], AfterValidator(sorted_table)] = Field(
        default_factory=dict
    )
    guidelines: Items[str] = ()
    features: Items[str] = ()
    env: Environment = Field(default_factory=Environment)
    project_files: Items[ProjectFile] = ()
    files: Annotated[Mapping[str, str], AfterValidator(sorted_table)] = Field(default_factory=dict)
    skills: Items[Skill] = ()
    mcp_servers: Items[McpServer] = ()
    commands: Items[Command] = ()
    output_style: OutputStyle | None = None
    identity: Identity | None = None
    user: UserProfile | None = None
    soul: str = ""
    session: SessionInfo | None = None
    variables: Annotated[Mapping[str, Any], AfterValidator(sorted_table)] = Field(
        default_factory=dict
    )
    overrides: Annotated[Mapping[str, str], AfterValidator(sorted_table)] = Field(
        default_factory=dict
    )
    custom_prompt: str | None = None
    append: str | None = None
    token_budget: Annotated[int, Field(gt=0)] | None = None


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
        return validate(Context, value)
    except RecordError as exc:
        raise context_error(exc, source) from None


def context_error(
    exc: RecordError, source: str, lines: Callable[[Sequence[str | int]], int | None] | None = None
) -> ContextError:
    """``exc`` as a context error naming ``source``, at the line ``lines`` finds for its key
    (a reader of TOML text gives it)."""
    hint = "see `catalog schema context` for the fields a context may have"
    return exc.as_error(ContextError, hint).located(file=source, lines=lines)
