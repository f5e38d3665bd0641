"""Filling a :class:`~catalog.schema.context.Context` from the filesystem and the runtime.

A catalog's manifest says where its agent looks (the ``[sources]`` table and
the ``file``-source ``[[binding]]``s); :func:`gather` does the looking and
returns a context ready for :meth:`~catalog.engine.catalog.Catalog.assemble`. It
is the only place of the library, with loading, that reads files: assembly
itself does no I/O.

What is read, in this order:

* instruction files (``[[sources.files]]``) into ``project_files``, each with
  its path and scope, outermost folder first unless told otherwise;
* single files (``[[sources.text]]``) into a slot override, a variable, the
  custom prompt or the appended text;
* skills: folders holding a ``SKILL.md`` with ``name``/``description`` front
  matter, under the ``skills`` folders (searched recursively); a skill with
  ``disable-model-invocation: true`` is left out, one that does not parse is
  left out with a warning, a name seen before is left out with a warning;
* persona files: ``identity`` (IDENTITY.md front matter: name, emoji,
  creature, vibe), ``user`` (USER.md: name, timezone, location) and ``soul``
  (the whole text);
* runtime facts into ``env``: host, OS, architecture, user, shell, date and
  time (from ``clock``), model and provider, git branch and short status;
* the files that the catalog's string variables reference through a
  ``file``-source binding (``[file:AGENTS.md]``) into ``files``.

Safety (see :mod:`catalog.gathering.safe`): a file over ``max_file_bytes`` is
cut with a marker (and never read whole); undecodable bytes are replaced;
FIFOs, devices, symlink loops and unreadable files or folders are skipped with
a :class:`SourceWarning`; each file has a reach (:mod:`catalog.gathering._reach`):
a file of the project reaches only the project root, the user's own files the
home folder too. A file, skill folder or ``file:`` reference reached through a
symbolic link that leads out of its reach is skipped with a warning unless
``follow_links``, and an ``@path`` import out of it always is; front matter is
read as bounded YAML without aliases; ``file:`` paths written to leave the
project root are refused with a warning unless the text holding them is the
user's own: read from the home folder (or an absolute path) or given by the
caller, which may name any file. Every refusal names the file and line that
referred to the refused one.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict, Unpack

from catalog.engine.catalog import Catalog
from catalog.errors import SourceError
from catalog.gathering._files import (
    SourceWarning,
    is_dir,
    is_file,
    list_dir,
    path_problem,
    warn,
)
from catalog.gathering._frontmatter import FrontMatterError, split_front_matter
from catalog.gathering._git import git_facts
from catalog.gathering._instructions import InstructionFiles
from catalog.gathering._reach import users_name
from catalog.gathering._reader import Reader
from catalog.gathering._runtime import (
    Clock,
    default_environ,
    machine_facts,
    time_facts,
)
from catalog.gathering.provenance import Gathering
from catalog.gathering.safe import ReadRules, allowed_path
from catalog.lang.brackets import find_references
from catalog.schema.context import Context, coerce_context

__all__ = [
    "GatherOptions",
    "gather",
    "gather_with_provenance",
]

_SKILL_FILE = "SKILL.md"
_MAX_SKILL_DEPTH = 8


class _Gatherer(Reader):
    """One gathering: the reader's folders and record, and the non-instruction sources."""

    # -- single texts

    def texts(self, data: dict[str, Any]) -> None:
        """Fill each ``[[sources.text]]`` target in ``data`` from the first of its files found."""
        for index, source in enumerate(self.sources.text):
            for name in self.names(source.names):
                path = self.path(name)
                if not is_file(path):
                    continue
                reach = self.reaches.for_name(name)
                text = self.read(path, reach, strip_comments=source.strip_html_comments)
                if text is None:
                    continue
                self.record(
                    path,
                    f"text[{index}]",
                    source.target,
                    "included",
                    f"{name}, the first found",
                    text=text,
                )
                kind, _, key = source.target.partition(":")
                if kind == "slot":
                    data.setdefault("overrides", {})[key] = text
                elif kind == "variable":
                    data.setdefault("variables", {})[key] = text
                    self.text_files[key] = path
                    if users_name(name):
                        self.user_texts.add(key)
                    else:
                        self.user_texts.discard(key)
                else:
                    data[source.target] = text
                break

    # -- skills

    def skills(self) -> list[dict[str, str]]:
        """The skills under the ``skills`` folders, in folder order, each name once."""
        found: list[dict[str, str]] = []
        names: dict[str, str] = {}
        visited: set[Path] = set()
        for entry in self.names(self.sources.skills):
            folder = self.path(entry)
            if is_dir(folder):
                reach = self.reaches.for_name(entry)
                self._skills_in(folder, reach, 0, visited, names, found)
        return found

    def _skills_in(
        self,
        folder: Path,
        reach: ReadRules,
        depth: int,
        visited: set[Path],
        names: dict[str, str],
        found: list[dict[str, str]],
    ) -> None:
        """Search ``folder`` for skill folders, at most ``_MAX_SKILL_DEPTH`` levels down;
        a folder or ``SKILL.md`` reached through a link must lie inside ``reach``."""
        real = allowed_path(folder, reach)
        if real is None:
            return
        if real in visited:
            if depth:
                warn(f"{folder}: skipped, a symbolic link loop (already visited as {real})")
            return
        visited.add(real)
        skill_file = folder / _SKILL_FILE
        if depth and is_file(skill_file):
            skill = self._skill(skill_file, reach)
            if skill is not None:
                first = names.setdefault(skill["name"], str(skill_file))
                if first == str(skill_file):
                    found.append(skill)
                    self.record(
                        skill_file,
                        "skills",
                        "skills",
                        "included",
                        f"skill {skill['name']!r}",
                        text=skill["content"],
                    )
                else:
                    warn(f"{skill_file}: skill {skill['name']!r} skipped, {first} has that name")
                    self.record(skill_file, "skills", "skills", "skipped", f"{first} has that name")
            return
        if depth >= _MAX_SKILL_DEPTH:
            return
        for child in list_dir(folder):
            if not child.name.startswith(".") and is_dir(child):
                self._skills_in(child, reach, depth + 1, visited, names, found)

    def _skill(self, path: Path, reach: ReadRules) -> dict[str, str] | None:
        """One SKILL.md as a skill record; None (with a warning if broken) to leave it out."""
        text = self.read(path, reach)
        if text is None:
            return None
        try:
            fields, body = split_front_matter(text)
        except FrontMatterError as exc:
            warn(f"{_at(path, exc.line)}: skill skipped, {exc}")
            return None
        if fields.get("disable-model-invocation") is True:
            return None
        for key in self.sources.skill_fields:
            value = fields.get(key)
            if not isinstance(value, str) or not value.strip():
                warn(f"{path}: skill skipped, its front matter has no `{key}`")
                return None
        name = fields.get("name") or path.parent.name
        return {
            "name": str(name),
            "description": " ".join(str(fields.get("description") or "").split()),
            "path": str(path),
            "content": body,
        }

    # -- persona

    def persona(self, data: dict[str, Any]) -> None:
        """Fill ``identity``, ``user`` and ``soul`` in ``data`` from the persona files found."""
        for key, fields in (
            ("identity", ("name", "emoji", "creature", "vibe")),
            ("user", ("name", "timezone", "location")),
        ):
            name = getattr(self.sources, key)
            if name is None:
                continue
            path = self.path(name)
            text = self.read(path, self.reaches.for_name(name)) if is_file(path) else None
            if text is None:
                continue
            try:
                header, body = split_front_matter(text)
            except FrontMatterError as exc:
                warn(f"{_at(path, exc.line)}: left out, {exc}")
                continue
            record = {f: str(header[f]) for f in fields if header.get(f) is not None}
            data[key] = {**record, "content": body.strip()}
            self.record(path, key, key, "included", name, text=text)
        if self.sources.soul is not None:
            name = self.sources.soul
            path = self.path(name)
            text = self.read(path, self.reaches.for_name(name)) if is_file(path) else None
            if text is not None:
                data["soul"] = text.strip()
                self.record(path, "soul", "soul", "included", self.sources.soul, text=text)

    # -- file references

    def referenced_files(
        self, catalog: Catalog, variables: Mapping[str, Any], given: Iterable[str] = ()
    ) -> dict[str, str]:
        """The files that ``file``-source bindings reference in the string variables.

        A reference is a path relative to the working directory, or absolute.
        In a text the user keeps in their home folder (or at an absolute path)
        and in one the caller gave (``given`` names those variables) it may
        name any file, and reach through links into the project root and the
        home folder; in any other text (read from inside the project, or the
        catalog's default) it must stay under the project root, links too.
        """
        types = [b.name[:-1] for b in catalog.bindings if b.source == "file"]
        if not types:
            return {}
        values = {**catalog.variables, **variables}
        callers = set(given)
        trusted = self.user_texts | callers
        texts = [(name, value) for name, value in values.items() if isinstance(value, str)]
        root = self.root or self.cwd
        files: dict[str, str] = {}
        for type_ in types:
            for variable, text in texts:
                reach = self.reaches.user if variable in trusted else self.reaches.project
                for name, line in _references(text, type_):
                    if name in files:
                        continue
                    at = f"{self._origin(variable, callers)}:{line}: [{type_}:{name}]"
                    bad = path_problem(name)
                    if bad is not None:
                        warn(f"{at}: refused, {bad}")
                        continue
                    path = Path(os.path.normpath(self.path(name)))
                    if variable not in trusted and not path.is_relative_to(root):
                        warn(f"{at}: refused, the path leaves the project root {root}")
                        continue
                    if not is_file(path):
                        continue
                    real = allowed_path(path, reach, by=at)
                    content = None if real is None else self.read(path, reach, real=real)
                    if content is not None:
                        # Without its final line end a file fits inline: "v[file:VERSION]".
                        files[name] = content.rstrip()
                        self.record(
                            path,
                            f"[{type_}:]",
                            "files",
                            "included",
                            f"[{type_}:{name}] in a variable",
                            text=content,
                        )
        return files

    def _origin(self, variable: str, callers: set[str]) -> str:
        """Where the text of ``variable`` came from, for a message: the file it was
        read from, else the caller, else the catalog's default."""
        if variable in callers:
            return f"the variable {variable!r} given by the caller"
        path = self.text_files.get(variable)
        return str(path) if path is not None else f"the default of the variable {variable!r}"


def _references(text: str, type_: str) -> list[tuple[str, int]]:
    """The names ``text`` references as ``[type_:NAME]``, each with the line (from 1)
    of its first use, in order; tags never span lines, so each line is scanned alone."""
    found: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if "[" in line:
            for name in find_references(line, type_):
                found.setdefault(name, number)
    return list(found.items())


def _at(path: Path, line: int | None) -> str:
    """``path`` or ``path:line`` for a warning."""
    return f"{path}:{line}" if line is not None else str(path)


def _merge(into: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``into`` with ``over`` laid on top; nested tables are merged key by key."""
    merged = dict(into)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


def _folder(value: str | Path, what: str) -> Path:
    """``value`` as an existing folder, resolved; a :class:`SourceError` naming ``what`` else."""
    if not str(value).strip():
        raise SourceError(f"the {what} is an empty path", hint=f"give a folder as the {what}")
    path = Path(value).expanduser()
    try:
        path = path.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL character
        raise SourceError(
            f"the {what} does not exist or cannot be read",
            file=str(value),
            hint=f"give an existing folder as the {what}",
        ) from None
    if not path.is_dir():
        raise SourceError(
            f"the {what} is not a folder", file=str(value), hint=f"give a folder as the {what}"
        )
    return path


class GatherOptions(TypedDict, total=False):
    """The keyword options of :func:`gather`, as :func:`gather_with_provenance` documents them."""

    base: Context | Mapping[str, Any] | None
    home: str | Path | None
    root: str | Path | None
    clock: Clock | None
    model: str
    provider: str
    environ: Mapping[str, str] | None
    git: bool
    follow_links: bool


def gather(catalog: Catalog, cwd: str | Path, **options: Unpack[GatherOptions]) -> Context:
    """Gather the context ``catalog`` declares, for an agent working in folder ``cwd``.

    The options are those of :func:`gather_with_provenance`, which also says
    where each gathered file came from. Skipped and cut files are reported
    as :class:`SourceWarning` warnings.
    """
    return gather_with_provenance(catalog, cwd, **options).context


def gather_with_provenance(
    catalog: Catalog, cwd: str | Path, **options: Unpack[GatherOptions]
) -> Gathering:
    """Gather the context ``catalog`` declares for folder ``cwd``, with its provenance.

    The options, all keywords: ``base`` holds what the caller knows already
    (tools, features, variables, the ``touched_files`` that path-scoped rules
    match...): every value it
    sets wins over a gathered one, tables merged key by key. ``home`` (an
    existing folder) replaces the user's home for ``~`` paths; ``root`` is the
    top of the project (the walk for instruction files stops there, ``file:``
    reads stay under it; by default the walk goes to the filesystem root and
    reads stay under ``cwd``). ``clock`` gives the time (default: now);
    ``environ`` replaces ``os.environ`` (for the user and the shell).
    ``follow_links`` reads files reached through a symbolic link that leads
    out of their reach (skipped by default): the project root for the
    project's files, the home folder too for the user's own files. ``model``
    and ``provider`` go into ``env`` as given; ``git=False`` reads no git facts.

    The result (:class:`Gathering`) holds the context, every file looked at
    (taken, cut or left out, and why) and the notes; the notes are also
    issued as :class:`SourceWarning` warnings.
    """
    unknown = sorted(set(options) - set(GatherOptions.__annotations__))
    if unknown:
        raise TypeError(
            f"gather_with_provenance() got an unexpected keyword argument {unknown[0]!r}"
        )
    root, home, environ = options.get("root"), options.get("home"), options.get("environ")
    folder = _folder(cwd, "working directory")
    top = _folder(root, "project root") if root is not None else None
    if top is not None and not folder.is_relative_to(top):
        raise SourceError(
            f"the working directory {folder} is not inside the project root {top}",
            hint="give a root that contains the working directory",
        )
    env_vars = default_environ() if environ is None else environ
    home_dir = _folder(home if home is not None else Path.home(), "home folder")
    given = coerce_context(options.get("base"), source="the base context")
    variables = {**catalog.variables, **given.variables}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SourceWarning)
        # Inside: finding the project root may warn (a marker another user owns).
        gatherer = _Gatherer(
            catalog.manifest.sources,
            folder,
            home_dir,
            top,
            options.get("follow_links", False),
            variables,
        )
        data = _gather_data(catalog, gatherer, given, env_vars, options)
    notes: list[str] = []
    for warning in caught:
        if issubclass(warning.category, SourceWarning):
            notes.append(str(warning.message))
        warnings.warn_explicit(
            warning.message,
            warning.category,
            warning.filename,
            warning.lineno,
            source=warning.source,
        )
    return Gathering(
        context=coerce_context(data, source=f"the context gathered from {folder}"),
        files=tuple(gatherer.records),
        notes=tuple(notes),
        cwd=str(folder),
        root=str(gatherer.top),
    )


def _gather_data(
    catalog: Catalog,
    gatherer: _Gatherer,
    given: Context,
    env_vars: Mapping[str, str],
    options: GatherOptions,
) -> dict[str, Any]:
    """The gathered context as data, the ``base`` of ``options`` laid on top."""
    folder = gatherer.cwd
    base = options.get("base")
    clock = options.get("clock")
    env: dict[str, Any] = {
        "cwd": str(folder),
        "home": str(gatherer.home),
        "model": options.get("model", ""),
        "provider": options.get("provider", ""),
    }
    env.update(machine_facts(env_vars))
    env.update(time_facts(clock or (lambda: datetime.now().astimezone())))
    if options.get("git", True):
        env.update(git_facts(folder, gatherer.reaches.user))
    data: dict[str, Any] = {
        "env": env,
        "project_files": InstructionFiles(gatherer, given.touched_files).gather(),
        "skills": gatherer.skills(),
    }
    gatherer.texts(data)
    gatherer.persona(data)
    if base is not None:
        data = _merge(
            data, base.model_dump(exclude_unset=True) if isinstance(base, Context) else base
        )
    data["files"] = {
        **gatherer.referenced_files(catalog, data.get("variables", {}), given.variables),
        **data.get("files", {}),
    }
    return data
