"""Parse the upstream format: prompt files and their headers, the README's counts, the CHANGELOG."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from catalog._textfile import clean_text
from catalog.errors import ImporterError
from catalog.manifest.models import PartKind

__all__ = [
    "CATEGORIES",
    "PROMPTS_DIR",
    "UPSTREAM",
    "Category",
    "ChangelogItem",
    "ChangelogRelease",
    "Readme",
    "ReadmeEntry",
    "UpstreamPart",
    "category_of",
    "parse_changelog",
    "parse_prompt_file",
    "parse_readme",
    "placeholders",
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
