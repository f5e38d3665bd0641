"""Reading the files of each release from a repository's tags.

Each release is read from its tag's tree, never along a branch: a release
commit off the main line is read like any other. The walk goes down only the
folders an ``--include`` glob (or a ``[[data]]`` file) can match under, and
what it found under a tree is kept by the tree's id and path: a folder that
did not change since an earlier release is not read again, nor is a file,
whose text is kept by its blob's id, the most recently used texts up to
:data:`KEPT_CHARS` in all (so that memory is bounded however long the
history: a text dropped is read again when a later release holds it). A release
whose files lie more than :data:`MAX_DEPTH` folders deep under a folder the
walk goes down is refused. :class:`ReadStats` counts the objects read, so
that the work an import does can be checked.

A file's part id is its path under the longest ``--root`` holding it, without
its extension, folders joined by ``-``, in lowercase with any character a
part id cannot hold as ``-`` (``prompt/Plan Mode.txt`` -> ``plan-mode``).
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from catalog.errors import ImporterError
from catalog.importers.git.data import data_entries, data_format
from catalog.importers.git.tags import ReleaseTag
from catalog.io.textfile import decode_utf8
from catalog.text.globs import Glob, GlobError

if TYPE_CHECKING:
    from catalog.importers.git.rules import DataDecl
    from catalog.importers.gitrepo import GitRepo, TreeEntry

__all__ = [
    "KEPT_CHARS",
    "MAX_DEPTH",
    "MAX_ID_CHARS",
    "GitRelease",
    "ReadStats",
    "ReleaseReader",
    "SourceFile",
    "part_id",
]

MAX_DEPTH: Final = 64
"""Most folders deep the walk goes (git itself refuses trees deeper than 2,048 by default)."""
KEPT_CHARS: Final = 64 * 1024 * 1024
"""Characters of texts (and of data entries) kept for releases read later."""
MAX_ID_CHARS: Final = 200
"""Longest part id a file or a data entry may give: an id stays readable, and short
enough to name a file."""
_Key = TypeVar("_Key")
_Value = TypeVar("_Value")
_SHOWN_PATH: Final = 120  # characters of a too deep path an error shows

_WILD = "*?[{\\"
_LICENSE = "LICENSE"  # kept beside the versions, as every import keeps its source's licence


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One part of a release: its id, the file's path, its blob, the entry of a data
    file it was read from (None for a whole file), and its text."""

    id: str
    path: str
    blob: str
    entry: str | None
    text: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class GitRelease:
    """One release: its tag, its parts in path order, and the text of the repository's
    top-level ``LICENSE`` (None when it has none)."""

    tag: ReleaseTag
    files: tuple[SourceFile, ...]
    license: str | None = field(default=None, repr=False)


@dataclass(slots=True)
class ReadStats:
    """Objects read so far: trees and blobs read, and trees whose files were known."""

    trees_read: int = 0
    trees_reused: int = 0
    blobs_read: int = 0


def part_id(path: str, roots: tuple[str, ...]) -> str:
    """The part id of the file at ``path`` (see the module's docstring)."""
    holding = [root for root in roots if path.startswith(root + "/")]
    rest = path[len(max(holding, key=len)) + 1 :] if holding else path
    folders, _, name = rest.rpartition("/")
    stem = name[: name.rfind(".")] if name.rfind(".") > 0 else name
    return _slug("-".join([*folders.split("/"), stem] if folders else [stem]))


def _shown(item: SourceFile) -> str:
    return item.path + (f" (entry {item.entry!r})" if item.entry is not None else "")


def _slug(text: str) -> str:
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in text)
    return cleaned.lower().lstrip("._-")


class _Pattern:
    """An ``--include`` glob, the folder its matches must lie under, and how deep
    (in folders) they may lie when it has no ``**``."""

    def __init__(self, text: str, option: str) -> None:
        try:
            self.glob = Glob(text)
        except GlobError as exc:
            raise ImporterError(f"{option} {text!r} is not a glob: {exc}") from None
        anchored = text.removeprefix("./").lstrip("/")
        if "/" not in text.rstrip("/"):
            anchored = ""  # a name alone matches at any depth
        literal = anchored[: next((i for i, c in enumerate(anchored) if c in _WILD), None)]
        self.folder = literal[: literal.rfind("/") + 1]
        # A trailing '/' means everything below; '{a/b,c}' may hold a folder.
        fixed = not (anchored.endswith("/") or "**" in anchored or "{" in anchored)
        self.depth = anchored.count("/") if anchored and fixed else None

    def may_hold(self, folder: str) -> bool:
        """Whether a match can lie under ``folder`` (``a/b/``)."""
        if self.depth is not None and folder.count("/") > self.depth:
            return False
        return self.folder.startswith(folder) or folder.startswith(self.folder)


class _Recent(Generic[_Key, _Value]):
    """Values by key, the most recently used kept up to :data:`KEPT_CHARS` in all
    (each value's size given when it is put)."""

    def __init__(self) -> None:
        self._items: OrderedDict[_Key, tuple[_Value, int]] = OrderedDict()
        self._size = 0

    def get(self, key: _Key) -> _Value | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: _Key, value: _Value, size: int) -> None:
        """Keep ``value``, dropping the least recently used while over the limit."""
        self._items[key] = (value, size)
        self._size += size
        while self._size > KEPT_CHARS and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self._size -= dropped


class ReleaseReader:
    """Reads releases from ``git``: the files ``includes`` match, as parts named under
    ``roots``, and the entries of the data files ``data`` names."""

    def __init__(
        self,
        git: GitRepo,
        includes: tuple[str, ...],
        roots: tuple[str, ...],
        data: tuple[DataDecl, ...] = (),
    ) -> None:
        self.git = git
        self.stats = ReadStats()
        self._includes = [_Pattern(text, "--include") for text in includes]
        self._data = [(_Pattern(decl.file, "[[data]] file"), decl) for decl in data]
        self._roots = tuple(root.strip("/") for root in roots if root.strip("/"))
        self._trees: dict[tuple[str, str], tuple[tuple[str, TreeEntry], ...]] = {}
        self._texts: _Recent[str, str] = _Recent()  # by blob
        self._entries: _Recent[tuple[str, int], list[SourceFile]] = _Recent()  # blob, table
        self.data_found = [0] * len(data)
        """Texts each ``[[data]]`` table found, over every release read."""
        self.include_found = [0] * len(includes)
        """Files each ``--include`` glob matched, over every release read."""

    def release(self, tag: ReleaseTag) -> GitRelease:
        """Release ``tag``'s parts; an error names the release and how to leave it out."""
        try:
            return self._read(tag)
        except ImporterError as exc:
            located = copy.copy(exc)
            located.message = f"release {tag.tag} (commit {tag.commit[:12]}): {exc.message}"
            skip = "leave the release out with a narrower --tags"
            located.hint = f"{exc.hint}; or {skip}" if exc.hint else skip
            raise located from None

    def _read(self, tag: ReleaseTag) -> GitRelease:
        found = self._walk(self.git.tree_of(tag.commit), "", tag.commit[:12])
        parts: dict[str, SourceFile] = {}
        license_text = None
        for path, entry in found:
            where = f"{tag.tag}:{path}"
            if path == _LICENSE:
                license_text = self._license(entry, where)
            matching = [n for n, p in enumerate(self._includes) if p.glob.match(path)]
            for number in matching:
                self.include_found[number] += 1
            if matching:
                pid = part_id(path, self._roots)
                self._add(parts, SourceFile(pid, path, entry.oid, None, self._text(entry, where)))
            for number, (pattern, decl) in enumerate(self._data):
                if pattern.glob.match(path):
                    for item in self._data_parts(entry, where, path, number, decl):
                        self._add(parts, item)
                        self.data_found[number] += 1
        files = tuple(sorted(parts.values(), key=lambda item: (item.path, item.id)))
        return GitRelease(tag, files, license_text)

    def _add(self, parts: dict[str, SourceFile], item: SourceFile) -> None:
        other = parts.get(item.id)
        if other is not None:
            names = sorted(_shown(f) for f in (other, item))
            raise ImporterError(
                f"{names[0]} and {names[1]} both give part id {item.id!r}",
                hint="give a --root that tells them apart, or narrow --include",
            )
        if not item.id:
            raise ImporterError(
                f"{_shown(item)} gives an empty part id", hint="rename it, or narrow --include"
            )
        if len(item.id) > MAX_ID_CHARS:
            raise ImporterError(
                f"{_shown(item)[:_SHOWN_PATH]} gives a part id of {len(item.id)} characters, "
                f"more than {MAX_ID_CHARS}",
                hint="give a --root nearer the file, or a shorter prefix in the [[data]] rule",
            )
        parts[item.id] = item

    def _data_parts(
        self, entry: TreeEntry, where: str, path: str, number: int, decl: DataDecl
    ) -> list[SourceFile]:
        key = (entry.oid, number)
        found = self._entries.get(key)
        if found is None:
            prefix = decl.prefix if decl.prefix is not None else part_id(path, self._roots) + "-"
            texts = data_entries(self._text(entry, where), where, decl, data_format(decl, path))
            found = [
                SourceFile(_slug(prefix + item.name), path, entry.oid, item.name, item.text)
                for item in texts
            ]
            self._entries.put(key, found, sum(len(item.text) for item in found))
        return found

    def _license(self, entry: TreeEntry, where: str) -> str | None:
        """The licence's text; None when it is no text the catalog can keep (not UTF-8,
        too large): the licence is kept beside the prompts, never a reason to fail."""
        try:
            return self._text(entry, where)
        except ImporterError:
            return None

    def _text(self, entry: TreeEntry, where: str) -> str:
        text = self._texts.get(entry.oid)
        if text is None:
            self.stats.blobs_read += 1
            raw = self.git.blob(entry.oid, where)
            text = decode_utf8(
                raw, where, ImporterError, "import text files only: narrow --include"
            )
            self._texts.put(entry.oid, text, len(text))
        return text

    def _walk(self, tree: str, folder: str, commit: str) -> tuple[tuple[str, TreeEntry], ...]:
        """The files under tree ``tree`` (at ``folder``) that a pattern matches, by path;
        known from an earlier release when the same tree was read at the same place."""
        key = (tree, folder)
        known = self._trees.get(key)
        if known is not None:
            self.stats.trees_reused += 1
            return known
        if folder.count("/") > MAX_DEPTH:
            shown = folder if len(folder) <= _SHOWN_PATH else folder[:_SHOWN_PATH] + "..."
            raise ImporterError(
                f"folders nested more than {MAX_DEPTH} deep",
                file=f"{commit}:{shown}",
                hint="narrow --include to the folders that hold the prompts",
            )
        self.stats.trees_read += 1
        patterns = [*self._includes, *(pattern for pattern, _ in self._data)]
        found: list[tuple[str, TreeEntry]] = []
        for entry in self.git.entries(tree, f"{commit}:{folder}"):
            path = folder + entry.name
            if entry.is_folder:
                if any(p.may_hold(path + "/") for p in patterns):
                    found.extend(self._walk(entry.oid, path + "/", commit))
                continue
            wanted = any(p.glob.match(path) for p in patterns)
            if wanted and entry.is_link:
                raise ImporterError(
                    "a symbolic link: the importer never follows links",
                    file=f"{commit}:{path}",
                    hint="the importer reads regular files only; narrow --include to leave it out",
                )
            # The licence is kept when it is a plain file; a link or a submodule is skipped.
            if entry.is_file and (wanted or path == _LICENSE):
                found.append((path, entry))
        result = tuple(found)
        self._trees[key] = result
        return result
