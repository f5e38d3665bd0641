"""Writing the releases read from a repository's tags as catalog versions.

Each release becomes one version whose parts are the files (and data
entries) read, raw text unless a rule says otherwise, with the keys the rules
set (:mod:`catalog.importers.git.rules`). Bodies and unchanged part records
are stored once and shared across versions, as for every importer
(:mod:`catalog.importers.writer`, :mod:`catalog.importers.layers`), so
importing again writes only the releases that are new. Where each version
comes from (the repository, the tag and its commit) is said in its manifest's
first line, and each part's path in the repository (and data entry) in its
``meta.source``; the newest release's top-level ``LICENSE`` is kept as
``LICENSE`` beside the versions.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, KeysView, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import tomli_w

from catalog.engine.compile import compile_catalog
from catalog.errors import CatalogError, ImporterError, RecordError
from catalog.importers.git.read import GitRelease, ReadStats, ReleaseReader, SourceFile
from catalog.importers.git.rules import Rule, Rules
from catalog.importers.git.tags import TagChoice, choose_tags, tag_matcher
from catalog.importers.layers import PartLayers
from catalog.importers.report import (
    BuiltVersion,
    ImportedVersion,
    ImportReport,
    catalog_table,
    write_versions,
)
from catalog.importers.writer import Body, CatalogWriter
from catalog.schema import validate
from catalog.schema.manifest import Manifest, PartDecl
from catalog.text.visible import visible_line

if TYPE_CHECKING:
    from catalog.importers.gitrepo import GitRepo

__all__ = ["DEFAULT_ORDER", "GitImport", "import_git"]

DEFAULT_ORDER: Final = 100
"""The ``order`` of a part no rule gives one."""

_DEFAULTS: Final[dict[str, Any]] = {
    "kind": "system",
    "order": DEFAULT_ORDER,
    "when": "true",
    "template": False,
}


@dataclass(frozen=True, slots=True)
class GitImport:
    """What an import from git did: the versions written, the tags left out, the
    parts no rule matched, the rules that matched nothing, the objects read, and
    the ``--include`` globs that matched no file in any release."""

    report: ImportReport
    tags: TagChoice
    unmatched_parts: tuple[str, ...] = ()
    idle_rules: tuple[str, ...] = ()
    stats: ReadStats = field(default_factory=ReadStats)
    idle_includes: tuple[str, ...] = ()


def import_git(
    repo: str | Path,
    *,
    name: str,
    out: str | Path,
    tags: Sequence[str],
    includes: Sequence[str],
    roots: Sequence[str] = (),
    rules: Rules | None = None,
    pre: bool = False,
    force: bool = False,
    on_version: Callable[[ImportedVersion], None] | None = None,
) -> GitImport:
    """Import every release of ``repo`` whose tag matches one of ``tags`` into
    ``out/name/``, in version order: the files ``includes`` match (ids under the
    longest of ``roots`` holding them), with what ``rules`` sets. Nothing the
    repository configures runs (:mod:`catalog.importers.gitrepo`)."""
    from catalog.importers.gitrepo import GitRepo  # dulwich: only when a repository is read

    rules = rules or Rules.none()
    with GitRepo(repo) as git:
        # Only the tags asked for are read: a damaged or odd one elsewhere is no matter.
        choice = _commits_only(git, git.tags(tag_matcher(tags)), tags, pre)
        if not choice.releases:
            raise ImporterError(
                f"no release tags match {' '.join(tags)}" + _left_out(choice),
                file=str(git.path),
                hint="give --tags a glob the release tags match, like 'v*'"
                + ("; pass --pre to take pre-releases" if choice.pre_releases else ""),
            )
        reader = ReleaseReader(git, tuple(includes), tuple(roots), rules.decl.data)
        writer = CatalogWriter(out, name)
        builder = _Builder(writer, name, str(repo), rules)
        try:
            report = write_versions(
                writer,
                (builder.build(reader.release(tag)) for tag in choice.releases),
                force=force,
                on_version=on_version,
            )
        except OSError as exc:  # the output folder: full, read-only, a name too long...
            raise ImporterError(
                f"cannot write: {exc.strerror or exc}",
                file=str(exc.filename or out),
                hint="check that --out is a folder you can write to",
            ) from None
        idle = builder.idle_rules() + _idle_data(rules, reader.data_found)
        idle_includes = tuple(
            text for text, count in zip(includes, reader.include_found, strict=True) if not count
        )
        return GitImport(
            report, choice, builder.unmatched_parts(), idle, reader.stats, idle_includes
        )


def _commits_only(git: GitRepo, found: dict[str, str], tags: Sequence[str], pre: bool) -> TagChoice:
    """The releases among the tags ``found`` (name -> the object each names), leaving
    out and counting those naming no commit (a tree or a blob, as git allows) before
    equal versions are weighed; a missing object is an error."""
    kinds = {name: git.kind(oid, f"tag {name}") for name, oid in found.items()}
    commits = {name: oid for name, oid in found.items() if kinds[name] == "commit"}
    return replace(
        choose_tags(commits, tags, pre=pre),
        not_commits=tuple(name for name in found if name not in commits),
    )


def _idle_data(rules: Rules, found: list[int]) -> tuple[str, ...]:
    """Each ``[[data]]`` table that found no text in any release, in words."""
    return tuple(
        f"{rules.file}:{line}: data {number + 1}: file {decl.file!r}, path {decl.path!r} "
        "finds no text"
        for number, (decl, line, count) in enumerate(
            zip(rules.decl.data, rules.data_lines, found, strict=True)
        )
        if not count
    )


def _left_out(choice: TagChoice) -> str:
    counts = [
        (len(choice.not_versions), "not versions"),
        (len(choice.pre_releases), "pre-releases"),
        (len(choice.not_commits), "naming no commit"),
    ]
    said = [f"{count} {what}" for count, what in counts if count]
    return f" ({', '.join(said)})" if said else ""


class _Builder:
    """Builds each release's manifest; remembers what the rules matched."""

    def __init__(self, writer: CatalogWriter, name: str, repo: str, rules: Rules) -> None:
        self._writer = writer
        self._name = name
        self._repo = repo
        self._rules = rules
        self._layers = PartLayers(writer)
        self._tables: dict[tuple[Any, ...], tuple[str, Body]] = {}
        self._unmatched: dict[str, None] = {}
        # (id, keys, and the blob of a templated body): what a compiled version checked
        self._checked: set[tuple[str, tuple[tuple[str, str], ...], str | None]] = set()
        self._by_part: dict[str, list[Rule]] = {}  # id -> the rules whose parts match it
        self._last_ids: KeysView[str] = {}.keys()  # the parts of the release built last
        self._parts_matched = [False] * len(rules.rules)
        self._versions_matched = [rule.versions is None for rule in rules.rules]
        decl = rules.decl
        self._head: dict[str, Any] = {}
        if decl.variable:
            self._head["variable"] = [v.model_dump(exclude_unset=True) for v in decl.variable]
        if decl.agent:
            self._head["agent"] = [a.model_dump(exclude_unset=True) for a in decl.agent]

    def build(self, release: GitRelease) -> BuiltVersion:
        """``release`` as a version to write: its manifest, part records and bodies,
        compiled first when its parts or their keys are new."""
        tag = release.tag
        version = self._writer.version_folder(str(tag.version))
        info = catalog_table(
            self._name,
            version,
            summary="Prompts imported from a git repository, one version per release tag",
        )
        records: dict[str, str] = {}
        bodies: list[Body] = []
        new_settings = False
        origins: dict[str, dict[str, int | None]] = {}
        for item in release.files:
            settings, origins[item.id] = self._settings(item.id, release)
            frozen = tuple(sorted((k, str(v)) for k, v in settings.items()))
            key = (item.id, item.path, item.blob, item.entry, frozen)
            if key not in self._tables:
                body = self._writer.body(item.text)
                table = _part_table(item, settings, body, tag.tag)
                self._tables[key] = tomli_w.dumps({"part": [table]}), body
                checked = (item.id, frozen, item.blob if settings["template"] else None)
                new_settings = new_settings or checked not in self._checked
                self._checked.add(checked)
            records[item.id], body = self._tables[key]
            bodies.append(body)
        if new_settings or records.keys() != self._last_ids:
            self._check(info, records, release, origins)
        self._last_ids = records.keys()
        # One comment line whatever the path or tag holds (a line feed would end it).
        provenance = (
            f"# Imported from the git repository {visible_line(self._repo)}: "
            f"tag {visible_line(tag.tag)}, commit {tag.commit}"
        )
        document = {"catalog": info, **self._head, "parts_from": self._layers.entries(records)}
        manifest = provenance + "\n" + tomli_w.dumps(document)
        return BuiltVersion(version, manifest, records, tuple(bodies), release.license)

    def _check(
        self,
        info: dict[str, Any],
        records: dict[str, str],
        release: GitRelease,
        origins: dict[str, dict[str, int | None]],
    ) -> None:
        """Compile the version as it will load, when its parts or their keys are not
        those of a version checked before: a condition the rules got wrong, or a body
        they make a template that is none, is an error naming the rules file (and the
        rule's line) or the file (and its line), and the release, before anything of
        the release is written."""
        parts = [tomllib.loads(table)["part"][0] for table in records.values()]
        ids = list(records)
        tag = release.tag.tag
        try:
            manifest = validate(Manifest, {"catalog": info, **self._head, "part": parts})
            compile_catalog(
                manifest,
                {item.id: item.text for item in release.files},
                manifest_text="",
                manifest_file=self._rules.file or "",
                locate=lambda error: error,
                body_files={item.id: f"{tag}:{item.path}" for item in release.files},
                location=self._rules.file or "",
            )
        except CatalogError as exc:
            if exc.file is not None:  # in a body the rules made a template
                raise ImporterError(
                    f"release {tag}: {exc.message}",
                    file=exc.file,
                    line=exc.line,
                    hint="the rules make this body a template; set template = false for it",
                ) from None
            found = re.match(r"part\[(\d+)\]\.?(\w*)", exc.key or "")
            pid = ids[int(found.group(1))] if found else None
            line = origins[pid].get(found.group(2)) if pid is not None and found else None
            raise ImporterError(
                f"release {tag}: "
                + (f"part {pid!r}" if pid else (exc.key or "the catalog"))
                + f" as the rules make it: {exc.message}",
                file=self._rules.file,
                line=line,
                hint=("fix the rule on this line" if line else "fix the rules")
                if self._rules.file
                else exc.hint,
            ) from None

    def _settings(
        self, pid: str, release: GitRelease
    ) -> tuple[dict[str, Any], dict[str, int | None]]:
        """The part keys the rules set for part ``pid`` in ``release``, later rules
        overriding earlier ones, over the defaults; and the line of the rule that set
        each key."""
        settings = dict(_DEFAULTS)
        origins: dict[str, int | None] = {}
        if self._rules.decl.placeholders != "dollar-brace":
            settings["placeholders"] = self._rules.decl.placeholders
        matched = False
        if pid not in self._by_part:
            self._by_part[pid] = [rule for rule in self._rules.rules if rule.parts.match(pid)]
        for rule in self._by_part[pid]:
            self._parts_matched[rule.number] = True
            if rule.versions is not None and not rule.versions.contains(
                release.tag.version, prereleases=True
            ):
                continue
            self._versions_matched[rule.number] = True
            settings.update(rule.settings)
            origins.update(dict.fromkeys(rule.settings, rule.line))
            matched = True
        if not matched:
            self._unmatched[pid] = None
        return settings, origins

    def unmatched_parts(self) -> tuple[str, ...]:
        """The ids of parts no rule matched in some release, sorted."""
        return tuple(sorted(self._unmatched)) if self._rules.rules else ()

    def idle_rules(self) -> tuple[str, ...]:
        """Each rule whose ``parts`` or ``versions`` matched nothing, in words."""
        said = []
        for rule in self._rules.rules:
            where = f"{self._rules.file}:{rule.line}" if rule.line else str(self._rules.file)
            if not self._parts_matched[rule.number]:
                said.append(
                    f"{where}: rule {rule.number + 1}: parts {rule.parts.pattern[1:]!r} "
                    "matches no part"
                )
            elif not self._versions_matched[rule.number]:
                said.append(
                    f"{where}: rule {rule.number + 1}: versions {str(rule.versions)!r} "
                    "matches no release of its parts"
                )
        return tuple(said)


def _part_table(item: SourceFile, settings: dict[str, Any], body: Body, tag: str) -> dict[str, Any]:
    source: dict[str, str] = {"path": item.path}
    if item.entry is not None:
        source["entry"] = item.entry
    table: dict[str, Any] = {"id": item.id, "file": body.file, "kind": settings["kind"]}
    if settings["kind"] == "tool":
        table["name"] = item.id
    table.update({k: v for k, v in settings.items() if k != "kind"})
    table.update(tokens=body.tokens, sha256=body.sha256, meta={"source": source})
    try:
        validate(PartDecl, table)
    except RecordError as exc:
        problem = exc.problems[0]
        raise ImporterError(
            f"part {item.id!r} ({tag}:{item.path}): {problem.message}"
            + (f" (at {'.'.join(map(str, problem.loc))})" if problem.loc else ""),
            hint="check what the rules set for it",
        ) from None
    return table
