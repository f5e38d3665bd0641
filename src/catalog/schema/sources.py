"""The ``[sources]`` table of a manifest: how a catalog's context is gathered.

Agents differ in where they look for instruction files, skills and persona
files. A catalog says it as data, and :func:`catalog.gather` (the
:mod:`catalog.gathering` package) does it for any catalog::

    [sources]
    skills = [".pi/skills", "~/.pi/agent/skills"]
    identity = "~/.moltis/IDENTITY.md"

    [[sources.files]]                 # instruction files -> project_files
    scope = "project"
    names = ["AGENTS.md", "CLAUDE.md"]
    first_wins = true                 # per folder, the first name found only

    [[sources.text]]                  # one file's text -> a slot, a variable...
    names = [".pi/SYSTEM.md", "~/.pi/agent/SYSTEM.md"]
    target = "slot:base"

Paths starting with ``~`` are under the user's home (which callers and tests
can replace); other relative paths are relative to the working directory.

A name or folder (in ``files``, ``text`` and ``skills``) may hold one
``{VARIABLE}``, a catalog variable of type ``str`` or ``list``: the caller's
value (else the default) is put in its place when gathering, a list giving
one entry per item, in its order. So a setting the caller gives decides
where to look::

    [[variable]]
    name = "context_filenames"
    type = "list"
    default = ["AGENTS.md", "OPAL.md"]

    [[sources.files]]
    names = ["{context_filenames}", ".agents/{context_filenames}"]
    # AGENTS.md, OPAL.md, .agents/AGENTS.md, .agents/OPAL.md
"""

import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from catalog.schema._base import Items, SchemaModel
from catalog.text.globs import Glob, GlobError

__all__ = ["FileGroup", "Sources", "TextSource", "expand_placeholders", "placeholders"]

_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")

_TARGET = re.compile(
    r"^(slot:[a-z0-9][a-z0-9._-]*|variable:[A-Za-z][A-Za-z0-9_]*|custom_prompt|append)$"
)


def _some(value: tuple[str, ...]) -> tuple[str, ...]:
    if not value or any(not name.strip() for name in value):
        raise ValueError("needs at least one non-empty name")
    return value


def _globs_compile(value: tuple[str, ...]) -> tuple[str, ...]:
    for name in value:
        try:
            Glob(name)
        except GlobError as exc:
            raise ValueError(f"{name[:40]!r}: {exc}") from None
    return value


def _known_target(value: str) -> str:
    if not _TARGET.match(value):
        raise ValueError("must be 'slot:NAME', 'variable:NAME', 'custom_prompt' or 'append'")
    return value


class FileGroup(SchemaModel):
    """A ``[[sources.files]]`` entry: instruction files that become ``project_files``.

    Where to look: with ``dir``, in that one folder; else in the folders that
    ``walk`` names: ``"up"`` (the default) from the working directory up to the
    project root given by the caller (or ``/``), ``"down"`` from the project
    root (the caller's, else the nearest folder holding one of the
    ``root_markers``, else the working directory) down to the working
    directory, ``"cwd"`` the working directory only, ``"root"`` the project
    root only, ``"touched"`` the folders below the working directory that lead
    to a touched file (sub-folder files, loaded once the agent works there).
    A name may be a glob (``.claude/rules/**/*.md``, matches sorted by path).
    ``first_wins``: per folder, only the first name found (override and
    fallback names); ``skip_empty``: a blank file counts as absent.

    ``imports`` follows ``@path`` lines (at most ``max_import_depth`` hops): the
    imported files follow their importer (``true`` or ``"after"``) or replace
    the ``@path`` in its text (``"inline"``);
    ``scoped_by`` reads each file's front matter to decide whether it applies
    (``"paths"``: a glob or a list of globs, none means always; ``"globs"``: a
    comma-separated ``globs`` string and ``alwaysApply``). ``max_bytes`` is
    the group's budget in bytes: the file that crosses it is cut
    (``over_budget = "cut"``) or dropped (``"drop"``), the ones after it are
    dropped. ``max_files`` bounds how many files the group may gather.
    """

    label: Annotated[str, Field(min_length=1, max_length=80)] | None = None
    scope: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")] = "project"
    names: Annotated[Items[str], AfterValidator(_some), AfterValidator(_globs_compile)]
    dir: str | None = None
    walk: Literal["up", "down", "cwd", "root", "touched"] = "up"
    first_wins: bool = False
    skip_empty: bool = False
    outermost_first: bool = True
    strip_html_comments: bool = False
    imports: bool | Literal["after", "inline"] = False
    max_import_depth: Annotated[int, Field(ge=1, le=20)] = 5
    scoped_by: Literal["paths", "globs"] | None = None
    max_bytes: Annotated[int, Field(gt=0)] | None = None
    over_budget: Literal["cut", "drop"] = "cut"
    max_files: Annotated[int, Field(gt=0, le=100_000)] = 1000


class TextSource(SchemaModel):
    """A ``[[sources.text]]`` entry: the first of ``names`` that exists fills ``target``.

    Targets: ``slot:NAME`` (the text replaces that slot's parts), ``variable:NAME``
    (a declared ``str`` variable), ``custom_prompt`` or ``append``.
    """

    names: Annotated[Items[str], AfterValidator(_some)]
    target: Annotated[str, AfterValidator(_known_target)]
    strip_html_comments: bool = False


class Sources(SchemaModel):
    """The ``[sources]`` table: every way a catalog's context is gathered from disk.

    ``skill_fields`` names the front-matter keys a ``SKILL.md`` must have; one
    without them is skipped with a warning (a skill without ``name`` takes its
    folder's name unless ``name`` is required).
    """

    files: Items[FileGroup] = ()
    text: Items[TextSource] = ()
    skills: Items[str] = ()
    identity: str | None = None
    user: str | None = None
    soul: str | None = None
    skill_fields: Items[str] = ("description",)
    max_file_bytes: Annotated[int, Field(gt=0)] = 256 * 1024
    root_markers: Items[str] = (".git",)

    def paths(self) -> list[tuple[str, str]]:
        """``(key path, name)`` of every name and folder that may hold a ``{VARIABLE}``."""
        found = [(f"sources.skills[{i}]", name) for i, name in enumerate(self.skills)]
        for index, group in enumerate(self.files):
            found += [(f"sources.files[{index}].names", name) for name in group.names]
            if group.dir is not None:
                found.append((f"sources.files[{index}].dir", group.dir))
        for index, text in enumerate(self.text):
            found += [(f"sources.text[{index}].names", name) for name in text.names]
        return found


def placeholders(name: str) -> list[str]:
    """The variable names ``name`` refers to as ``{VARIABLE}``."""
    return _PLACEHOLDER.findall(name)


def expand_placeholders(names: Iterable[str], values: Mapping[str, Any]) -> list[str]:
    """``names`` with each ``{VARIABLE}`` replaced by its value in ``values``.

    A text value replaces the placeholder; a list gives one name per item,
    in its order (none for an empty list). A name without placeholder stays.
    """
    expanded: list[str] = []
    for name in names:
        found = _PLACEHOLDER.search(name)
        if found is None:
            expanded.append(name)
            continue
        value = values.get(found.group(1))
        items = [value] if isinstance(value, str) else list(value or ())
        head, tail = name[: found.start()], name[found.end() :]
        expanded.extend(f"{head}{item}{tail}" for item in items if isinstance(item, str) and item)
    return expanded
