"""Claude Code's prompt parts in the format of Piebald-AI/claude-code-system-prompts.

That repository (MIT) publishes, for every Claude Code release, one Markdown
file per prompt part under ``system-prompts/``, one git commit per release
(subject ``v2.1.37 (+0 tokens)``):

* each file starts with an HTML comment holding YAML fields (read with
  PyYAML, every value kept as text: :func:`_parse_header`): ``name``
  (``Agent Prompt: Explore``), ``description``, ``ccVersion`` (the release
  where the text last changed), optional ``variables`` and ``agentMetadata``;
  the body follows the comment, with the runtime's JavaScript placeholders
  (``${GLOB_TOOL_NAME}``, whole ``${...}`` expressions) kept as written;
* the file-name prefix is the category (:data:`CATEGORIES`);
* ``README.md`` lists each part as
  ``- [Name](./system-prompts/FILE.md) (**N** tks) - description.`` (N counted
  by Anthropic's token-counting API) and names the release
  (``as of **[Claude Code v2.1.38](...)``);
* ``CHANGELOG.md`` has a section per release (:func:`parse_changelog`).

Each release becomes one catalog version. Parts are raw text
(``template = false``): bodies are never rendered, so ``${...}`` and even
``${{ ... }}`` reach the prompt as published. The header fields (but
``description``, which is the part's own ``description``), the body's
``${...}`` placeholders (:func:`placeholders`), the category and the README's
token count (``upstream_tokens``) are kept in the part's ``meta``;
``tokens`` is our own count with the catalog's tokenizer. Bodies are stored
once by content (:mod:`catalog.importers.writer`). An imported
catalog has no conditions: assemble it through an overlay
(``[catalog] base``, parts with ``from``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version
from pydantic import ValidationError

from catalog._textfile import clean_text, decode_utf8
from catalog.diff import UPSTREAM_TOKENS
from catalog.errors import ImporterError
from catalog.importers.gitrepo import GitRepo
from catalog.importers.writer import CatalogWriter, StoreSize, VersionStatus
from catalog.manifest import CatalogInfo, PartDecl, PartKind
from catalog.store import parse_spec

__all__ = [
    "CATEGORIES",
    "PROMPTS_DIR",
    "UPSTREAM",
    "Category",
    "ChangelogItem",
    "ChangelogRelease",
    "ImportReport",
    "ImportedVersion",
    "Readme",
    "ReadmeEntry",
    "Release",
    "UpstreamPart",
    "category_of",
    "import_releases",
    "parse_changelog",
    "parse_prompt_file",
    "parse_readme",
    "placeholders",
    "read_checkout",
    "read_history",
    "release_version",
]

UPSTREAM = "Piebald-AI/claude-code-system-prompts"
PROMPTS_DIR = "system-prompts"


@dataclass(frozen=True)
class Category:
    """A file-name prefix, the part kind it maps to and the ``order`` its parts get.

    One ``order`` per category (ties broken by id) keeps every part's order
    the same in every release, so a diff between releases shows no moves.
    """

    prefix: str
    kind: PartKind
    order: int

    @property
    def label(self) -> str:
        """The prefix without its dash (``agent-prompt``), as ``meta.category`` holds it."""
        return self.prefix.removesuffix("-")


CATEGORIES: tuple[Category, ...] = (
    Category("system-prompt-", "system", 100),
    # Reference text and templates the runtime puts into prompts or files.
    Category("data-", "system", 200),
    # A built-in skill's instructions: a prompt for one job, run on demand.
    Category("skill-", "agent", 300),
    Category("agent-prompt-", "agent", 400),
    Category("tool-description-", "tool", 500),
    # A parameter's description: part of a tool's schema, not of the prompt.
    Category("tool-parameter-", "tool", 600),
    Category("system-reminder-", "reminder", 700),
)
_OTHER = Category("other-", "system", 900)


def category_of(part_id: str) -> Category:
    """The category of a part id (its file name's stem); unknown prefixes are ``other``."""
    for category in CATEGORIES:
        if part_id.startswith(category.prefix):
            return category
    return _OTHER


@dataclass(frozen=True)
class UpstreamPart:
    """One ``system-prompts/*.md`` file: its header fields and its body, verbatim."""

    file: str
    header: Mapping[str, Any]
    body: str
    source: str = ""  # what identifies the file's content (a git object id), for caching

    @property
    def id(self) -> str:
        """The part id: the file name's stem, as a catalog slug."""
        stem = self.file.removesuffix(".md").lower()
        return re.sub(r"[^a-z0-9._-]+", "-", stem).lstrip("-._")

    @property
    def category(self) -> Category:
        """The category its file-name prefix gives."""
        return category_of(self.id)

    @property
    def name(self) -> str:
        """The upstream name (``Agent Prompt: Explore``); the id when the header has none."""
        return str(self.header.get("name") or self.id)

    @property
    def description(self) -> str:
        """The header's ``description``; empty when it has none."""
        return str(self.header.get("description") or "")


def parse_prompt_file(text: str, file: str, *, source: str = "") -> UpstreamPart:
    """Split a part file into its header fields and body (everything after ``-->``).

    CRLF line endings and a leading byte-order mark (a copy saved by a Windows
    editor) do not hide the header.
    """
    text = clean_text(text)
    name = file.rsplit("/", 1)[-1]
    if not text.startswith("<!--\n"):
        return UpstreamPart(name, {}, text, source)
    end = text.find("\n-->\n", 4)
    if end < 0:
        if text.endswith("\n-->"):
            end = len(text) - 4
        else:
            raise ImporterError(
                "the header comment is not closed by a `-->` line",
                file=file,
                line=1,
                hint="the header runs from `<!--` to a line holding only `-->`",
            )
    header, lines = _parse_header(text[5 : end + 1], file, first_line=2)
    for key, wanted in (("name", str), ("description", str), ("variables", list)):
        if key in header and not isinstance(header[key], wanted):
            raise ImporterError(
                f"header field {key!r} must be {'a list' if wanted is list else 'text'}",
                file=file,
                line=lines[key],
                hint="check the header comment",
            )
    return UpstreamPart(name, header, text[end + 5 :], source)


def _parse_header(
    text: str, file: str, *, first_line: int
) -> tuple[dict[str, Any], dict[str, int]]:
    """The header comment's YAML as mappings, lists and text, every scalar kept as text,
    and the line of each top-level key.

    PyYAML composes the node tree and this function builds the values, so no
    scalar is typed: the fields are names, versions and descriptions, and a
    typed reading changes them. ``yaml.safe_load`` reads the variable
    ``FALSE`` that ``tool-description-task.md`` lists (2.1.36 to 2.1.38) as the
    boolean false, and would read ``ccVersion: 2.1`` as a float. Aliases and
    duplicate keys are refused; every error names the file and line.
    """
    import yaml  # imported on first use, so that importing catalog stays cheap

    def fail(problem: str, mark: Any) -> ImporterError:
        return ImporterError(
            f"header: {problem}",
            file=file,
            line=None if mark is None else first_line + mark.line,
            hint="the header is YAML: block mappings and lists of text",
        )

    seen: set[int] = set()

    def build(node: yaml.Node) -> Any:
        if id(node) in seen:  # the composer hands an alias its anchor's node
            raise fail("anchors and aliases (&name, *name) are not supported", node.start_mark)
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            return node.value
        if isinstance(node, yaml.SequenceNode):
            return [build(item) for item in node.value]
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise fail("a key must be plain text", key_node.start_mark)
            if key_node.value in result:
                raise fail(f"duplicate key {key_node.value!r}", key_node.start_mark)
            result[key_node.value] = build(value_node)
        return result

    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))
    except yaml.MarkedYAMLError as exc:
        context = ""
        if exc.context and exc.context_mark is not None:
            context = f" ({exc.context} from line {first_line + exc.context_mark.line})"
        raise fail(f"{exc.problem}{context}", exc.problem_mark) from None
    except yaml.YAMLError as exc:
        raise fail(str(exc), None) from None
    if root is None:
        return {}, {}
    if not isinstance(root, yaml.MappingNode):
        raise fail("expected `key: value` lines", root.start_mark)
    header: dict[str, Any] = build(root)
    lines = {key.value: first_line + key.start_mark.line for key, _ in root.value}
    return header, lines


def placeholders(body: str) -> list[str]:
    """The runtime's ``${...}`` placeholders in ``body``, verbatim, each once, in order.

    A body is the text of a JavaScript template literal, so ``\\${`` is text,
    not a placeholder, and a placeholder runs to the ``}`` that closes it,
    across strings and nested template literals (``${A?`x${B}`:""}`` is one).
    A ``${`` that is never closed is text.
    """
    found: dict[str, None] = {}
    position = 0
    while (start := _next_placeholder(body, position)) >= 0:
        end = _expression_end(body, start + 2)
        if end < 0:
            break
        found.setdefault(body[start:end])
        position = end
    return list(found)


def _next_placeholder(text: str, position: int) -> int:
    """Where the next unescaped ``${`` of template text starts, or -1."""
    while position < len(text):
        if text[position] == "\\":
            position += 2
        elif text.startswith("${", position):
            return position
        else:
            position += 1
    return -1


def _expression_end(text: str, position: int) -> int:
    """Just after the ``}`` closing the expression that starts at ``position``, or -1."""
    depth = 0
    while position < len(text):
        char = text[position]
        if char in "'\"":
            position = _string_end(text, position + 1, char)
            continue
        if char == "`":
            position = _template_end(text, position + 1)
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return position + 1
            depth -= 1
        position += 1
    return -1


def _string_end(text: str, position: int, quote: str) -> int:
    while position < len(text) and text[position] != quote:
        position += 2 if text[position] == "\\" else 1
    return position + 1


def _template_end(text: str, position: int) -> int:
    """Just after the backtick closing a nested template literal (or the text's end)."""
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
        elif char == "`":
            return position + 1
        elif text.startswith("${", position):
            end = _expression_end(text, position + 2)
            position = len(text) if end < 0 else end
        else:
            position += 1
    return len(text)


@dataclass(frozen=True)
class ReadmeEntry:
    """A README line: the part's upstream name, token count and description."""

    name: str
    tokens: int
    description: str


@dataclass(frozen=True)
class Readme:
    """What ``README.md`` says: the release and an entry per part file name."""

    version: str | None
    entries: Mapping[str, ReadmeEntry]


_README_ENTRY = re.compile(
    r"^\s*[-*]\s+\[(?P<name>.+?)\]\((?:\./)?" + PROMPTS_DIR + r"/(?P<file>[^)\s]+?\.md)\)"
    r"\s*\(\*\*(?P<tokens>[\d,]+)\*\*\s*tks?\)\s*(?:[-\u2013\u2014]\s*(?P<description>.*?))?\s*$",
    re.MULTILINE,
)
_README_VERSION = re.compile(r"as of \*\*\[Claude Code v(?P<version>\d[^\]\s]*)\]")


def parse_readme(text: str) -> Readme:
    """The release named in ``README.md`` and its part lines, by file name."""
    version = _README_VERSION.search(text)
    entries = {
        found["file"]: ReadmeEntry(
            found["name"], int(found["tokens"].replace(",", "")), found["description"] or ""
        )
        for found in _README_ENTRY.finditer(text)
    }
    return Readme(version["version"] if version else None, entries)


@dataclass(frozen=True)
class ChangelogItem:
    """A bullet of a changelog section: a part's upstream name and what changed."""

    name: str
    summary: str


@dataclass(frozen=True)
class ChangelogRelease:
    """One section of the upstream ``CHANGELOG.md``."""

    version: str
    token_delta: int | None = None
    new: tuple[ChangelogItem, ...] = ()
    removed: tuple[ChangelogItem, ...] = ()
    changed: tuple[ChangelogItem, ...] = ()


_SECTION = re.compile(r"^#{1,6}\s+\[v?(?P<version>\d[^\]]*)\]\([^)]*\)\s*$")
_DELTA = re.compile(r"^_(?P<sign>[+\-\u2212]?)(?P<amount>[\d,]+) tokens?_\s*$")
_BULLET = re.compile(r"^[-*]\s+(?:\*\*(?P<tag>NEW|REMOVED):\*\*\s*)?(?P<rest>.+?)\s*$")
_NAME_SPLIT = re.compile(r"\s+[-\u2013\u2014]\s+")


def parse_changelog(text: str) -> list[ChangelogRelease]:
    """Every release section of the upstream ``CHANGELOG.md``, newest first (as written).

    A section is a heading ``# [2.1.33](...)`` (any level), an optional
    ``_-1,086 tokens_`` line and bullets: ``**NEW:** Name - summary``,
    ``**REMOVED:** Name - summary`` or ``Name - summary`` for a changed part.
    """
    releases: list[ChangelogRelease] = []
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        heading = _SECTION.match(line)
        if heading:
            if current is not None:
                releases.append(_release(current))
            current = {"version": heading["version"], "new": [], "removed": [], "changed": []}
            continue
        if current is None:
            continue
        delta = _DELTA.match(line.strip())
        if delta:
            sign = -1 if delta["sign"] in ("-", "\u2212") else 1
            current["token_delta"] = sign * int(delta["amount"].replace(",", ""))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            parts = _NAME_SPLIT.split(bullet["rest"], maxsplit=1)
            item = ChangelogItem(parts[0], parts[1] if len(parts) > 1 else "")
            current[(bullet["tag"] or "changed").lower()].append(item)
    if current is not None:
        releases.append(_release(current))
    return releases


def _release(data: dict[str, Any]) -> ChangelogRelease:
    return ChangelogRelease(
        data["version"],
        data.get("token_delta"),
        tuple(data["new"]),
        tuple(data["removed"]),
        tuple(data["changed"]),
    )


_SUBJECT = re.compile(r"^v?(?P<version>\d+(?:\.\d+)+[^\s(]*)(?:\s+\(.*\))?\s*$")


def release_version(subject: str) -> str | None:
    """The release a commit subject like ``v2.1.37 (+0 tokens)`` names, else None."""
    found = _SUBJECT.match(subject.strip())
    if found is None:
        return None
    try:
        Version(found["version"])
    except InvalidVersion:
        return None
    return found["version"]


@dataclass(frozen=True)
class Release:
    """One release's data: its version, part files, README and where it came from."""

    version: str
    parts: tuple[UpstreamPart, ...]
    readme: Readme
    commit: str | None = None
    license: str | None = field(default=None, repr=False)


def read_checkout(src: str | Path, version: str | None = None) -> Release:
    """Read a checkout (or an extracted copy) of the repository: one release.

    The version is ``version``, else the release the README names.
    """
    folder = Path(src).expanduser()
    if not folder.is_dir():
        raise ImporterError(
            "no such folder",
            file=str(folder),
            hint=f"give a checkout of {UPSTREAM} (or --git REPO for its history)",
        )
    prompts = folder / PROMPTS_DIR
    if not prompts.is_dir():
        raise ImporterError(
            f"no {PROMPTS_DIR}/ folder here",
            file=str(folder),
            hint=f"give a checkout of {UPSTREAM} (or --git REPO for its history)",
        )
    parts = tuple(
        parse_prompt_file(_read(path), str(path))
        for path in sorted(prompts.iterdir())
        if path.suffix == ".md" and path.is_file()
    )
    readme_path = folder / "README.md"
    readme = parse_readme(_read(readme_path)) if readme_path.is_file() else Readme(None, {})
    chosen = version or readme.version
    if chosen is None:
        raise ImporterError(
            "cannot tell which release this is: README.md names none",
            file=str(readme_path),
            hint="give it with --version, e.g. --version 2.1.37",
        )
    license_path = folder / "LICENSE"
    license_text = _read(license_path) if license_path.is_file() else None
    return Release(_checked_version(chosen), parts, readme, None, license_text)


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImporterError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    return _decode(raw, str(path))


def _checked_version(version: str) -> str:
    try:
        Version(version)
    except InvalidVersion:
        raise ImporterError(
            f"{version!r} is not a PEP 440 version", hint="write it like 2.1.37"
        ) from None
    return version


def read_history(
    repo: str | Path, versions: str | SpecifierSet | None = None, *, rev: str = "HEAD"
) -> Iterator[Release]:
    """Every release commit of a clone, oldest release first (filtered by ``versions``).

    Release commits are those whose subject names a release (:func:`release_version`);
    when several name the same release, the latest wins. Each file is read and
    parsed once however many releases contain it.
    """
    specifier = parse_spec(versions) if versions is not None else None
    with GitRepo(repo) as git:
        found: dict[str, str] = {}
        for entry in git.log(rev):
            version = release_version(entry.subject)
            if version is not None:
                found[version] = entry.oid
        chosen = found
        if specifier is not None:
            chosen = {v: c for v, c in found.items() if specifier.contains(v, prereleases=True)}
        if not chosen:
            hint = "release commits have subjects like 'v2.1.37 (+0 tokens)'"
            if found:
                ordered = sorted(found, key=Version)
                hint = f"the history has {len(ordered)} release(s), {ordered[0]} to {ordered[-1]}"
            raise ImporterError(
                "no release commits found"
                + (f" for versions {str(specifier)!r}" if specifier is not None else ""),
                file=str(git.path),
                hint=hint,
            )
        files: dict[tuple[str, str], UpstreamPart] = {}
        readmes: dict[str, Readme] = {}
        for version in sorted(chosen, key=Version):
            commit = chosen[version]
            try:
                release = _read_release(git, version, commit, files, readmes)
            except ImporterError as exc:
                raise _in_release(exc, version, commit) from None
            yield release


def _read_release(
    git: GitRepo,
    version: str,
    commit: str,
    files: dict[tuple[str, str], UpstreamPart],
    readmes: dict[str, Readme],
) -> Release:
    entries = git.tree(f"{commit}:{PROMPTS_DIR}")
    if entries is None:
        raise ImporterError(f"no {PROMPTS_DIR}/ folder", file=str(git.path))
    parts = []
    for entry in entries:
        if not (entry.is_file and entry.name.endswith(".md")):
            continue
        key = (entry.oid, entry.name)
        if key not in files:
            where = f"{commit[:12]}:{PROMPTS_DIR}/{entry.name}"
            files[key] = parse_prompt_file(
                _object_text(git, entry.oid, where), where, source=entry.oid
            )
        parts.append(files[key])
    readme = Readme(None, {})
    found = git.read(f"{commit}:README.md")
    if found is not None:
        if found[0] not in readmes:
            readmes[found[0]] = parse_readme(_decode(found[2], f"{commit[:12]}:README.md"))
        readme = readmes[found[0]]
    license_blob = git.read(f"{commit}:LICENSE")
    license_text = _decode(license_blob[2], f"{commit[:12]}:LICENSE") if license_blob else None
    return Release(version, tuple(parts), readme, commit, license_text)


def _in_release(error: ImporterError, version: str, commit: str) -> ImporterError:
    """``error`` about release ``version``, with the way to leave that release out
    (history cannot be fixed where it is read)."""
    located = copy.copy(error)
    located.message = f"release {version} (commit {commit[:12]}): {error.message}"
    skip = f"leave the release out with --versions '!={version}'"
    located.hint = f"{error.hint}; or {skip}" if error.hint else skip
    return located


def _object_text(git: GitRepo, oid: str, where: str) -> str:
    found = git.read(oid)
    if found is None:
        raise ImporterError(f"git object {oid} is missing", file=where)
    return _decode(found[2], where)


def _decode(raw: bytes, where: str) -> str:
    # Not normalised here: parse_prompt_file does that for part files.
    return decode_utf8(
        raw, where, ImporterError, "upstream files are UTF-8; re-check out or re-extract the file"
    )


@dataclass(frozen=True)
class ImportedVersion:
    """What importing one release did."""

    version: str
    parts: int
    new_bodies: int
    status: VersionStatus


@dataclass(frozen=True)
class ImportReport:
    """What an import did, and what the catalog folder holds now."""

    folder: Path
    versions: tuple[ImportedVersion, ...]
    size: StoreSize
    unshared_bytes: int  # what the bodies would take stored once per version


def import_releases(
    releases: Iterable[Release],
    *,
    name: str,
    out: str | Path = ".",
    force: bool = False,
    on_version: Callable[[ImportedVersion], None] | None = None,
) -> ImportReport:
    """Write each release as version ``out/name/<version>/`` of catalog ``name``."""
    writer = CatalogWriter(out, name)
    tables: dict[tuple[str, str, ReadmeEntry | None], str] = {}
    done: list[ImportedVersion] = []
    unshared = 0
    license_text = None
    for release in releases:
        before = writer.new_blobs
        manifest = _manifest(release, name, writer, tables)
        status = writer.write_version(release.version, manifest, force=force)
        item = ImportedVersion(
            release.version, len(release.parts), writer.new_blobs - before, status
        )
        done.append(item)
        if on_version is not None:
            on_version(item)
        unshared += sum(len(part.body.encode("utf-8")) for part in release.parts)
        license_text = release.license or license_text
    if license_text is not None:
        writer.write_file("LICENSE", license_text)
    return ImportReport(writer.folder, tuple(done), writer.size(), unshared)


def _manifest(
    release: Release,
    name: str,
    writer: CatalogWriter,
    tables: dict[tuple[str, str, ReadmeEntry | None], str],
) -> str:
    """The ``catalog.toml`` of one release; each part's table is built once per content."""
    summary = f"Claude Code {release.version} prompt parts from {UPSTREAM}"
    if release.commit:
        summary += f" (commit {release.commit[:12]})"
    info = {"name": name, "version": release.version, "summary": summary}
    try:
        CatalogInfo.model_validate(info)
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise ImporterError(
            f"cannot import as catalog {name!r} {release.version!r}: {message}",
            hint="a catalog name is lowercase letters, digits, '.', '_' and '-'",
        ) from None
    chunks = [tomli_w.dumps({"catalog": info})]
    seen: dict[str, str] = {}
    for part in sorted(release.parts, key=lambda p: (p.category.order, p.id)):
        if not part.id or part.id in seen:
            clash = f"as {seen[part.id]!r} does" if part.id else "which is empty"
            raise ImporterError(
                f"release {release.version}: {part.file!r} gives the part id {part.id!r}, {clash}",
                hint="only one file per id can be imported; rename one upstream",
            )
        seen[part.id] = part.file
        entry = release.readme.entries.get(part.file)
        key = (part.file, part.source or part.body, entry)
        if key not in tables:
            tables[key] = tomli_w.dumps({"part": [_part_table(part, entry, writer)]})
        chunks.append(tables[key])
    return "\n".join(chunks)


def _part_table(
    part: UpstreamPart, entry: ReadmeEntry | None, writer: CatalogWriter
) -> dict[str, Any]:
    body = writer.body(part.body)
    category = part.category
    meta = {key: value for key, value in part.header.items() if key != "description"}
    meta.setdefault("name", entry.name if entry else part.id)
    found = placeholders(part.body)
    if found:
        meta["placeholders"] = found
    meta["category"] = category.label
    if entry is not None:
        meta[UPSTREAM_TOKENS] = entry.tokens
    table: dict[str, Any] = {"id": part.id, "file": body.file, "kind": category.kind}
    if category.kind == "tool":
        label = str(meta["name"])
        table["name"] = label.split(": ", 1)[1] if ": " in label else part.id
    table.update(
        description=part.description or (entry.description if entry else ""),
        order=category.order,
        template=False,
        tokens=body.tokens,
        sha256=body.sha256,
        meta=_without_none(meta),
    )
    try:
        PartDecl.model_validate(table)
    except ValidationError as exc:
        raise ImporterError(
            f"cannot import {part.file}: {exc.errors()[0]['msg']}", hint="check its header"
        ) from None
    return table


def _without_none(value: Any) -> Any:
    """TOML has no null: drop None values from mappings and lists."""
    if isinstance(value, Mapping):
        return {str(k): _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value if v is not None]
    return value
