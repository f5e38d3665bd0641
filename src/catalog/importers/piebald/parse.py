"""Parse the upstream format: prompt files and their headers, the README's counts, the CHANGELOG."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from catalog.errors import ImporterError
from catalog.importers.entrynames import shown_name
from catalog.importers.piebald.changelog import ChangelogItem, ChangelogRelease, parse_changelog
from catalog.importers.piebald.header import read_header
from catalog.io.textfile import clean_text
from catalog.lang.placeholders import placeholders
from catalog.schema.manifest import PartKind

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
    "check_part_ids",
    "parse_changelog",
    "parse_prompt_file",
    "parse_readme",
    "part_id",
    "placeholders",
    "release_version",
]


UPSTREAM = "Piebald-AI/claude-code-system-prompts"
PROMPTS_DIR = "system-prompts"


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class UpstreamPart:
    """One ``system-prompts/*.md`` file: its header fields and its body, verbatim."""

    file: str
    header: Mapping[str, Any]
    body: str
    source: str = ""  # what identifies the file's content (a git object id), for caching

    @property
    def id(self) -> str:
        """The part id: the file name's stem, as a catalog slug (see :func:`part_id`)."""
        return part_id(self.file)

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


def part_id(file: str) -> str:
    """The part id of file name ``file``: its stem as a catalog slug, lower case,
    accents dropped (``système-ünï.md`` is ``systeme-uni``, not ``syst-me-n-``,
    which two names could share), every other run of characters a slug cannot
    hold a ``-``."""
    stem = unicodedata.normalize("NFKD", file.removesuffix(".md"))
    plain = "".join(char for char in stem if not unicodedata.combining(char)).lower()
    return re.sub(r"[^a-z0-9._-]+", "-", plain).lstrip("-._")


def check_part_ids(
    files: Iterable[str], *, file: str | None = None, release: str | None = None
) -> None:
    """Refuse part file names (one release's) of which two give one part id, or one
    gives none: only one part per id can be imported, and the other body would be
    lost without a word. ``file`` is where the names are (the error's file),
    ``release`` the release, said first in the message when given."""
    seen: dict[str, str] = {}
    for name in files:
        pid = part_id(name)
        if pid and pid not in seen:
            seen[pid] = name
            continue
        clash = f"as {shown_name(seen[pid])} does" if pid else "which is empty"
        raise ImporterError(
            (f"release {release}: " if release else "")
            + f"{shown_name(name)} gives the part id {pid!r}, {clash}",
            file=file,
            hint="only one file per id can be imported; rename one upstream"
            if pid
            else "an id is made of the name's letters a-z (accents dropped), digits, "
            "'.', '_' and '-': rename the file",
        )


def parse_prompt_file(text: str, file: str, *, source: str = "") -> UpstreamPart:
    """Split a part file into its header fields and body (everything after ``-->``).

    CRLF line endings and a leading byte-order mark (a copy saved by a Windows
    editor) do not hide the header, and neither do the other ways a hand
    writes one (see :func:`_locate_header`): blank lines before ``<!--``,
    spaces around ``<!--`` and ``-->``, a first field on the ``<!--`` line or a
    last one on the ``-->`` line.
    """
    text = clean_text(text)
    name = file.rsplit("/", 1)[-1]
    found = _locate_header(text, file)
    if found is None:
        return UpstreamPart(name, {}, text, source)
    header_text, first_line, body = found
    header, lines = read_header(header_text, file, first_line=first_line)
    for key, wanted in (("name", str), ("description", str), ("variables", list)):
        if key in header and not isinstance(header[key], wanted):
            shape = "a list: `- NAME` lines under it, or `[A, B]`" if wanted is list else "text"
            raise ImporterError(
                f"header field {key!r} must be {'a list' if wanted is list else 'text'}",
                file=file,
                line=lines[key],
                hint=f"write {key!r} as {shape}",
            )
    return UpstreamPart(name, header, body, source)


_OPEN = "<!--"
_CLOSE = "-->"


def _locate_header(text: str, file: str) -> tuple[str, int, str] | None:
    """The header comment of a part file: ``(its text, the file line it starts on,
    the body after it)``; None when the file starts with no ``<!--``.

    Read one line at a time (linear in the file), the way a person reads it:
    blank lines before ``<!--`` and spaces around it are layout; text after
    ``<!--`` on its line is the first field; the header ends at the first line
    ending with ``-->`` (spaces after it aside), whose text before ``-->`` is
    the last field; the body is what follows that line. Without a closing
    line, or with text after ``-->`` on its line, the header is refused at its
    opening line: the file's text cannot be told from its header.
    """
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start == len(lines) or not lines[start].lstrip().startswith(_OPEN):
        return None
    opener = lines[start].lstrip()[len(_OPEN) :]
    column = len(lines[start]) - len(lines[start].lstrip()) + len(_OPEN)
    for end in range(start, len(lines)):
        content = opener if end == start else lines[end]
        closing = content.find(_CLOSE)
        if closing >= 0:
            after = content[closing + len(_CLOSE) :]
            if after.strip():
                raise ImporterError(
                    "text after the header's closing `-->` on its line",
                    file=file,
                    line=end + 1,
                    hint="its lines end with carriage returns alone: save it with LF line ends"
                    if "\r" in after
                    else "end the header with `-->` and start the text on the next line",
                )
            middle = [*lines[start + 1 : end], content[:closing]] if end > start else []
            first = content[:closing] if end == start else opener
            header = _header_lines(first, column, middle)
            return "\n".join(header) + "\n", start + 1, "\n".join(lines[end + 1 :])
    raise ImporterError(
        "the header comment is not closed by a `-->` line",
        file=file,
        line=start + 1,
        hint="the header runs from `<!--` to a line ending with `-->`",
    )


def _header_lines(first: str, column: int, rest: list[str]) -> list[str]:
    """The header's lines, the text after ``<!--`` first: at the indentation of the
    next line when that line lines up with it (``<!-- name: A`` over
    ``     description: B``), else at none (``<!-- name: A`` over
    ``description: B``)."""
    if not first.strip():
        return ["", *rest]
    content = first.lstrip()
    at = column + len(first) - len(content)
    following = next((line for line in rest if line.strip()), "")
    aligned = len(following) - len(following.lstrip(" ")) == at
    return [(" " * at if aligned else "") + content.rstrip(), *rest]


@dataclass(frozen=True, slots=True)
class ReadmeEntry:
    """A README line: the part's upstream name, token count and description."""

    name: str
    tokens: int
    description: str


@dataclass(frozen=True, slots=True)
class Readme:
    """What ``README.md`` says: the release and an entry per part file name."""

    version: str | None
    entries: Mapping[str, ReadmeEntry]


_README_VERSION = "as of **[Claude Code v"
# Runs of one character class: a match costs the run it covers, nothing more.
_VERSION_RUN = re.compile(r"[^\]\s]*")
_SUBJECT_RUN = re.compile(r"[^\s(]*")
_MAX_VERSION = 100  # characters; no release is named by a longer version


def parse_readme(text: str) -> Readme:
    """The release named in ``README.md`` and its part lines, by file name.

    Read one line at a time, in time linear in the text (a pattern spanning
    lines took seconds on many blank ones).
    """
    entries: dict[str, ReadmeEntry] = {}
    for line in text.split("\n"):
        found = _readme_entry(line)
        if found is not None:
            entries[found[0]] = found[1]
    return Readme(_readme_version(text), entries)


def _readme_version(text: str) -> str | None:
    """The ``N`` of the first ``as of **[Claude Code vN]`` (N starts with a digit and
    holds no space)."""
    start = text.find(_README_VERSION)
    while start >= 0:
        at = start + len(_README_VERSION)
        end = _run(_VERSION_RUN, text, at)
        if end > at and text[at].isdigit() and text.startswith("]", end):
            return text[at:end]
        start = text.find(_README_VERSION, at)
    return None


def _run(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where the run of ``pattern``'s characters starting at ``at`` ends."""
    found = pattern.match(text, at)
    return found.end() if found else at


# A README line, matched on one stripped line. Possessive quantifiers (``++``, ``*+``)
# and the atomic name group (which ends the name at its first ``](``) never give
# back what they matched, so a match costs one pass over the line, whatever it holds.
_README_ENTRY = re.compile(
    r"[-*]\s++\[(?>(?P<name>.+?)\]\()(?:\./)?+" + PROMPTS_DIR + r"/(?P<file>[^)\s]++)\)"
    r"\s*+\(\*\*(?P<tokens>[\d,]++)\*\*\s*+tks?\)\s*+(?:[-\u2013\u2014](?P<description>.*+))?$"
)


def _readme_entry(line: str) -> tuple[str, ReadmeEntry] | None:
    """``- [Name](./system-prompts/FILE.md) (**N** tks) - description.`` read as
    ``(FILE.md, entry)``; None for any other line."""
    found = _README_ENTRY.match(line.strip())
    if found is None or len(found["file"]) < 4 or not found["file"].endswith(".md"):
        return None
    tokens = int(found["tokens"].replace(",", ""))
    return found["file"], ReadmeEntry(found["name"], tokens, (found["description"] or "").strip())


def release_version(subject: str) -> str | None:
    """The release a commit subject like ``v2.1.37 (+0 tokens)`` names, else None.

    The subject is an optional ``v``, a PEP 440 version starting ``N.N``, and
    optionally a remark in parentheses after a space. Read with string
    operations in linear time (a regular expression took 13 s on a 30 KB
    subject).
    """
    text = subject.strip()
    text = text[1:] if text.startswith("v") else text
    end = _run(_SUBJECT_RUN, text, 0)
    version, rest = text[:end], text[end:].strip()
    digits = len(version) - len(version.lstrip("0123456789"))
    if not 0 < digits < len(version) <= _MAX_VERSION:
        return None
    if version[digits] != "." or version[digits + 1 : digits + 2] not in tuple("0123456789"):
        return None
    if rest and not (text[end].isspace() and _remark(rest)):
        return None
    try:
        Version(version)
    except InvalidVersion:
        return None
    return version


def _remark(text: str) -> bool:
    """Whether ``text`` is ``(...)`` on one line."""
    return text.startswith("(") and text.endswith(")") and "\n" not in text
