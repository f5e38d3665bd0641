"""Filling a :class:`~catalog.context.Context` from the filesystem and the runtime.

A catalog's manifest says where its agent looks (the ``[sources]`` table and
the ``file``-source ``[[binding]]``s); :func:`gather` does the looking and
returns a context ready for :meth:`~catalog.compiled.Catalog.assemble`. It
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

Safety (see :mod:`catalog.gather.safe`): a file over ``max_file_bytes`` is
cut with a marker (and never read whole); undecodable bytes are replaced;
FIFOs, devices, symlink loops and unreadable files or folders are skipped with
a :class:`SourceWarning`; a file, skill folder or ``file:`` reference reached
through a symbolic link that leads out of the project root (``root``, else
``cwd``) and the home folder is skipped with a warning unless
``follow_links``; front matter is read as bounded YAML without aliases;
``file:`` paths written to leave the project root are refused with a warning
unless the text holding them is the user's own: read from the home folder (or
an absolute path) or given by the caller, which may name any file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from catalog.compiled import Catalog
from catalog.context import Context, coerce_context
from catalog.errors import SourceError
from catalog.gather._files import (
    SourceWarning,
    expand,
    glob,
    is_dir,
    is_file,
    list_dir,
    strip_leading_html_comments,
    warn,
)
from catalog.gather._frontmatter import FrontMatterError, split_front_matter
from catalog.gather._git import git_facts
from catalog.gather._runtime import (
    Clock,
    default_environ,
    machine_facts,
    time_facts,
)
from catalog.gather.safe import ReadRules, allowed_path, read_bounded
from catalog.lang.brackets import find_references
from catalog.manifest.sources import FileGroup, Sources, expand_placeholders

__all__ = ["Clock", "SourceWarning", "gather"]

_SKILL_FILE = "SKILL.md"
_MAX_SKILL_DEPTH = 8


class _Gatherer:
    """One gathering: the catalog's sources, the folders and the size limit."""

    def __init__(
        self,
        sources: Sources,
        cwd: Path,
        home: Path,
        root: Path | None,
        follow_links: bool,
        variables: Mapping[str, Any],
    ) -> None:
        self.sources = sources
        self.variables = variables
        self.cwd = cwd
        self.home = home
        self.root = root
        self.rules = ReadRules.of(
            (root or cwd, home), follow_links=follow_links, limit=sources.max_file_bytes
        )
        self.seen: set[Path] = set()
        # Variables whose text came from the user's own files (home folder, absolute path).
        self.user_texts: set[str] = set()

    def names(self, names: Iterable[str]) -> list[str]:
        """``names`` with their ``{VARIABLE}`` placeholders filled from the catalog's variables."""
        return expand_placeholders(names, self.variables)

    def path(self, name: str, base: Path | None = None) -> Path:
        """A manifest path: ``~`` under the home folder, relative under ``base`` or the cwd."""
        return expand(name, base=base or self.cwd, home=self.home)

    def read(self, path: Path, *, strip_comments: bool = False) -> str | None:
        """A file's text under the read rules (None if refused or unreadable), comments
        stripped if asked."""
        text = read_bounded(path, self.rules)
        if text is not None and strip_comments:
            text = strip_leading_html_comments(text)
        return text

    # -- instruction files

    def walk(self) -> list[Path]:
        """The folders from the working directory up to the root (or ``/``), innermost first."""
        folders = [self.cwd]
        for parent in self.cwd.parents:
            if self.root is not None and not parent.is_relative_to(self.root):
                break
            folders.append(parent)
        return folders

    def project_files(self) -> list[dict[str, str]]:
        """The ``[[sources.files]]`` entries found, group by group, in walk order."""
        found: list[dict[str, str]] = []
        walk = self.walk()
        for group in self.sources.files:
            if group.dir is not None:
                folders = [self.path(folder) for folder in self.names([group.dir])]
            else:
                folders = walk if group.walk == "up" else [self.cwd]
                if group.outermost_first:
                    folders = folders[::-1]
            for folder in folders:
                found.extend(self._in_folder(group, folder))
        return found

    def _in_folder(self, group: FileGroup, folder: Path) -> list[dict[str, str]]:
        """The files of ``group`` in one folder; a file seen already is not listed again."""
        entries: list[dict[str, str]] = []
        for name in self.names(group.names):
            matches = list(glob(folder, name))
            for path in matches:
                real = allowed_path(path, self.rules)
                if real is None or real in self.seen:
                    continue
                text = self.read(path, strip_comments=group.strip_html_comments)
                if text is None:
                    continue
                self.seen.add(real)
                entries.append({"path": str(path), "content": text, "scope": group.scope})
            if matches and group.first_wins:
                break
        return entries

    # -- single texts

    def texts(self, data: dict[str, Any]) -> None:
        """Fill each ``[[sources.text]]`` target in ``data`` from the first of its files found."""
        for source in self.sources.text:
            for name in self.names(source.names):
                path = self.path(name)
                if not is_file(path):
                    continue
                text = self.read(path, strip_comments=source.strip_html_comments)
                if text is None:
                    continue
                kind, _, key = source.target.partition(":")
                if kind == "slot":
                    data.setdefault("overrides", {})[key] = text
                elif kind == "variable":
                    data.setdefault("variables", {})[key] = text
                    if name.startswith("~") or Path(name).is_absolute():
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
                self._skills_in(folder, 0, visited, names, found)
        return found

    def _skills_in(
        self,
        folder: Path,
        depth: int,
        visited: set[Path],
        names: dict[str, str],
        found: list[dict[str, str]],
    ) -> None:
        """Search ``folder`` for skill folders, at most ``_MAX_SKILL_DEPTH`` levels down."""
        real = allowed_path(folder, self.rules)
        if real is None:
            return
        if real in visited:
            if depth:
                warn(f"{folder}: skipped, a symbolic link loop (already visited as {real})")
            return
        visited.add(real)
        skill_file = folder / _SKILL_FILE
        if depth and is_file(skill_file):
            skill = self._skill(skill_file)
            if skill is not None:
                first = names.setdefault(skill["name"], str(skill_file))
                if first == str(skill_file):
                    found.append(skill)
                else:
                    warn(f"{skill_file}: skill {skill['name']!r} skipped, {first} has that name")
            return
        if depth >= _MAX_SKILL_DEPTH:
            return
        for child in list_dir(folder):
            if not child.name.startswith(".") and is_dir(child):
                self._skills_in(child, depth + 1, visited, names, found)

    def _skill(self, path: Path) -> dict[str, str] | None:
        """One SKILL.md as a skill record; None (with a warning if broken) to leave it out."""
        text = self.read(path)
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
            text = self.read(path) if is_file(path) else None
            if text is None:
                continue
            try:
                header, body = split_front_matter(text)
            except FrontMatterError as exc:
                warn(f"{_at(path, exc.line)}: left out, {exc}")
                continue
            record = {f: str(header[f]) for f in fields if header.get(f) is not None}
            data[key] = {**record, "content": body.strip()}
        if self.sources.soul is not None:
            path = self.path(self.sources.soul)
            text = self.read(path) if is_file(path) else None
            if text is not None:
                data["soul"] = text.strip()

    # -- file references

    def referenced_files(
        self, catalog: Catalog, variables: Mapping[str, Any], given: Iterable[str] = ()
    ) -> dict[str, str]:
        """The files that ``file``-source bindings reference in the string variables.

        A reference is a path relative to the working directory, or absolute.
        In a text the user keeps in their home folder (or at an absolute path)
        and in one the caller gave (``given`` names those variables) it may
        reach any file; in any other text (read from inside the project, or
        the catalog's default) it must stay under the project root.
        """
        types = [b.name[:-1] for b in catalog.bindings if b.source == "file"]
        if not types:
            return {}
        values = {**catalog.variables, **variables}
        trusted = self.user_texts | set(given)
        texts = [(name, value) for name, value in values.items() if isinstance(value, str)]
        root = self.root or self.cwd
        files: dict[str, str] = {}
        for type_ in types:
            for variable, text in texts:
                for name in find_references(text, type_):
                    if name in files:
                        continue
                    path = Path(os.path.normpath(self.path(name)))
                    if variable not in trusted and not path.is_relative_to(root):
                        warn(f"[{type_}:{name}]: refused, the path leaves the project root {root}")
                        continue
                    if is_file(path):
                        content = self.read(path)
                        if content is not None:
                            # Without its final line end a file fits inline: "v[file:VERSION]".
                            files[name] = content.rstrip()
        return files


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
    except (OSError, RuntimeError):
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


def gather(
    catalog: Catalog,
    cwd: str | Path,
    *,
    base: Context | Mapping[str, Any] | None = None,
    home: str | Path | None = None,
    root: str | Path | None = None,
    clock: Clock | None = None,
    model: str = "",
    provider: str = "",
    environ: Mapping[str, str] | None = None,
    git: bool = True,
    follow_links: bool = False,
) -> Context:
    """Gather the context ``catalog`` declares, for an agent working in folder ``cwd``.

    ``base`` holds what the caller knows already (tools, features, variables...):
    every value it sets wins over a gathered one, tables merged key by key.
    ``home`` (an existing folder) replaces the user's home for ``~`` paths; ``root`` is the top
    of the project (the walk for instruction files stops there, ``file:`` reads
    stay under it; by default the walk goes to the filesystem root and reads
    stay under ``cwd``). ``clock`` gives the time (default: now); ``environ``
    replaces ``os.environ`` (for the user and the shell). ``follow_links``
    reads files reached through a symbolic link that leads out of the project
    root and the home folder (skipped by default). Skipped and cut files are
    reported as :class:`SourceWarning` warnings.
    """
    folder = _folder(cwd, "working directory")
    top = _folder(root, "project root") if root is not None else None
    if top is not None and not folder.is_relative_to(top):
        raise SourceError(
            f"the working directory {folder} is not inside the project root {top}",
            hint="give a root that contains the working directory",
        )
    env_vars = default_environ() if environ is None else environ
    home_dir = _folder(home if home is not None else Path.home(), "home folder")
    given: Mapping[str, Any] = {}
    if base is not None:
        given = base.model_dump(exclude_unset=True) if isinstance(base, Context) else base
    variables = {**catalog.variables, **given.get("variables", {})}
    gatherer = _Gatherer(catalog.manifest.sources, folder, home_dir, top, follow_links, variables)

    env: dict[str, Any] = {
        "cwd": str(folder),
        "home": str(home_dir),
        "model": model,
        "provider": provider,
    }
    env.update(machine_facts(env_vars))
    env.update(time_facts(clock or (lambda: datetime.now().astimezone())))
    if git:
        env.update(git_facts(folder, gatherer.rules))
    data: dict[str, Any] = {
        "env": env,
        "project_files": gatherer.project_files(),
        "skills": gatherer.skills(),
    }
    gatherer.texts(data)
    gatherer.persona(data)
    if base is not None:
        data = _merge(data, given)
    data["files"] = {
        **gatherer.referenced_files(catalog, data.get("variables", {}), given.get("variables", {})),
        **data.get("files", {}),
    }
    return coerce_context(data, source=f"the context gathered from {folder}")
