"""The catalogs of a git revision, or of the working tree, without running anything.

A revision is read through :class:`~catalog.importers.gitrepo.GitRepo`
(dulwich: the repository's configuration, hooks, filters and pagers are never
read or run) and offered to the loader as a read-only
:class:`~importlib.resources.abc.Traversable`, so a version is loaded by the
very code that loads it from a folder, reading only the files it needs. The
working tree is read as folders on disk.

Which catalogs changed is told by the content ids of their files (git's blob
ids, computed for the working tree), so an unchanged catalog is never loaded.
A catalog root is a folder holding ``NAME/VERSION/catalog.toml``: those given
with ``--path``, else every one found in the two revisions' trees (for the
working tree, in the trees of the base and of ``HEAD``).
"""

from __future__ import annotations

import io
import os
import posixpath
import stat
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import IO, Any, Final

from dulwich.objects import Blob
from packaging.version import InvalidVersion, Version

from catalog.errors import ImporterError, ReviewError
from catalog.importers.gitrepo import GitRepo, TreeEntry
from catalog.io.loader import MANIFEST_NAME
from catalog.io.textfile import MAX_FILE_BYTES, read_capped
from catalog.schema.manifest import is_catalog_name

__all__ = [
    "MAX_COMMITS",
    "MAX_ENTRIES",
    "CommitRevision",
    "Revision",
    "WorkingTree",
    "catalog_roots",
    "merge_base",
    "resolve",
]

MAX_ENTRIES: Final = 200_000
"""Most files and folders one review looks at in one revision (a bound on the work)."""
MAX_COMMITS: Final = 100_000
"""Most commits walked to find where two revisions' histories meet."""
_WORKTREE_LABEL: Final = "working tree"


class Revision(ABC):
    """One side of a review: a commit or the working tree, read-only."""

    label: str
    short: str

    @abstractmethod
    def folder(self, path: str) -> Traversable:
        """The folder at ``path`` (``/``-separated, relative to the repository's top)."""

    @abstractmethod
    def files(self, path: str) -> dict[str, str]:
        """Every file under folder ``path``: its path relative to it, and an id of its
        content (git's blob id, prefixed by its kind); empty when there is no such folder."""

    def manifests(self) -> list[str]:
        """The paths of the ``catalog.toml`` files of the revision's tree (none for the
        working tree, whose roots come from the commits' trees)."""
        return []


@dataclass
class _Walk:
    """A bound on the entries one revision's scans visit."""

    label: str
    seen: int = 0

    def count(self, entries: int) -> None:
        self.seen += entries
        if self.seen > MAX_ENTRIES:
            raise ReviewError(
                f"{self.label} holds more than {MAX_ENTRIES} files and folders to look at",
                hint="name the folders of catalogs with --path",
            )


class CommitRevision(Revision):
    """The files of one commit, read through ``repo`` (a :class:`GitRepo`)."""

    def __init__(self, repo: GitRepo, rev: str) -> None:
        self.repo = repo
        self.commit = resolve(repo, rev)
        self.label = rev if rev == self.commit else f"{rev} ({self.commit[:12]})"
        self.short = self.commit[:12]
        self._root = repo.tree_of(self.commit)
        self._trees: dict[str, dict[str, TreeEntry]] = {}
        self._walk = _Walk(self.label)

    def children(self, tree: str, where: str) -> dict[str, TreeEntry]:
        """The entries of tree ``tree`` by name (read once)."""
        found = self._trees.get(tree)
        if found is None:
            entries = self.repo.entries(tree, f"{self.commit[:12]}:{where}")
            self._walk.count(len(entries))
            found = self._trees[tree] = {entry.name: entry for entry in entries}
        return found

    def entry(self, path: tuple[str, ...]) -> TreeEntry | None:
        """The entry at ``path`` (a folder entry for the top); None when there is none."""
        entry: TreeEntry | None = TreeEntry(0o040000, "", self._root)
        for depth, name in enumerate(path):
            if entry is None or not entry.is_folder:
                return None
            entry = self.children(entry.oid, "/".join(path[:depth])).get(name)
        return entry

    def folder(self, path: str) -> Traversable:
        return _GitNode(self, _segments(path))

    def files(self, path: str) -> dict[str, str]:
        found: dict[str, str] = {}
        top = self.entry(_segments(path))
        if top is None or not top.is_folder:
            return found
        stack = [("", top.oid)]
        while stack:
            prefix, tree = stack.pop()
            for name, entry in self.children(tree, posixpath.join(path, prefix)).items():
                relative = f"{prefix}{name}"
                if entry.is_folder:
                    stack.append((f"{relative}/", entry.oid))
                elif entry.is_file or entry.is_link:
                    found[relative] = f"{'link' if entry.is_link else 'file'}:{entry.oid}"
        return found

    def manifests(self) -> list[str]:
        return [
            f"{path}/{MANIFEST_NAME}".lstrip("/")
            for path, names in self._folders()
            if MANIFEST_NAME in names
        ]

    def _folders(self) -> Iterator[tuple[str, set[str]]]:
        """Every folder of the tree and the names of its regular files."""
        stack = [("", self._root)]
        while stack:
            path, tree = stack.pop()
            names = set()
            for name, entry in self.children(tree, path).items():
                if entry.is_folder:
                    stack.append((posixpath.join(path, name), entry.oid))
                elif entry.is_file:
                    names.add(name)
            yield path, names


class _GitNode(Traversable):
    """A file or folder of a commit, as the loader reads one (``str`` of it names
    the commit and the path, for messages)."""

    def __init__(self, revision: CommitRevision, path: tuple[str, ...]) -> None:
        self._revision = revision
        self._path = path

    def __str__(self) -> str:
        return f"{self._revision.commit[:12]}:{'/'.join(self._path)}"

    @property
    def name(self) -> str:
        return self._path[-1] if self._path else ""

    def _entry(self) -> TreeEntry | None:
        return self._revision.entry(self._path)

    def is_dir(self) -> bool:
        entry = self._entry()
        return entry is not None and entry.is_folder

    def is_file(self) -> bool:
        entry = self._entry()
        return entry is not None and entry.is_file

    def iterdir(self) -> Iterator[_GitNode]:
        entry = self._entry()
        if entry is None or not entry.is_folder:
            raise NotADirectoryError(str(self))
        for name in self._revision.children(entry.oid, "/".join(self._path)):
            yield _GitNode(self._revision, (*self._path, name))

    def joinpath(self, *descendants: str | os.PathLike[str]) -> _GitNode:
        path = list(self._path)
        for each in descendants:
            path.extend(_segments(os.fspath(each)))
        return _GitNode(self._revision, tuple(path))

    def read_text(self, encoding: str | None = None) -> str:
        return self.read_bytes().decode(encoding or "utf-8")

    def read_bytes(self) -> bytes:
        entry = self._entry()
        if entry is None or not entry.is_file:
            raise FileNotFoundError(str(self))
        return self._revision.repo.blob(entry.oid, str(self))

    def open(self, mode: str = "r", *args: Any, **kwargs: Any) -> IO[Any]:
        raw = io.BytesIO(self.read_bytes())
        return raw if "b" in mode else io.TextIOWrapper(raw, *args, **kwargs)


class WorkingTree(Revision):
    """The files on disk under the repository's top folder ``top``."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.label = self.short = _WORKTREE_LABEL
        self._walk = _Walk(self.label)

    def folder(self, path: str) -> Traversable:
        return self.top.joinpath(*_segments(path))

    def files(self, path: str) -> dict[str, str]:
        found: dict[str, str] = {}
        top = self.top.joinpath(*_segments(path))
        stack = [("", top)]
        while stack:
            prefix, folder = stack.pop()
            try:
                with os.scandir(folder) as scan:
                    entries = list(scan)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as exc:
                raise ReviewError(f"cannot read: {exc.strerror}", file=str(folder)) from None
            self._walk.count(len(entries))
            for entry in entries:
                relative = f"{prefix}{entry.name}"
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISDIR(mode):
                    stack.append((f"{relative}/", Path(entry.path)))
                elif stat.S_ISLNK(mode):
                    target = os.readlink(entry.path).encode("utf-8", "surrogateescape")
                    found[relative] = f"link:{_blob_id(target)}"
                elif stat.S_ISREG(mode):
                    found[relative] = f"file:{_file_id(Path(entry.path))}"
        return found


def _file_id(path: Path) -> str:
    """git's blob id of the file (a file over the loader's limit gets an id of its size)."""
    try:
        raw, size = read_capped(path, MAX_FILE_BYTES)
    except OSError as exc:
        raise ReviewError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    return _blob_id(raw) if len(raw) <= MAX_FILE_BYTES else f"over-limit-{size}"


def _blob_id(data: bytes) -> str:
    return Blob.from_string(data).id.decode("ascii")


def _segments(path: str) -> tuple[str, ...]:
    return tuple(part for part in path.replace("\\", "/").split("/") if part not in ("", "."))


def catalog_roots(*revisions: Revision) -> list[str]:
    """The folders holding catalogs (``NAME/VERSION/catalog.toml``) in the revisions'
    trees, ``/``-separated from the repository's top (``""`` for the top itself)."""
    found: dict[str, None] = {}
    for revision in revisions:
        for manifest in revision.manifests():
            parts = manifest.split("/")
            if len(parts) < 3 or not is_catalog_name(parts[-3]) or not _is_version(parts[-2]):
                continue
            found.setdefault("/".join(parts[:-3]), None)
    return sorted(found)


def _is_version(name: str) -> bool:
    try:
        Version(name)
    except InvalidVersion:
        return False
    return True


def resolve(repo: GitRepo, rev: str) -> str:
    """The commit ``rev`` (a commit id, a branch or a tag) names in ``repo``; an error
    that says so when it names none (a tree, a blob, a ref git refuses, an object a
    shallow clone lacks)."""
    try:
        oid = repo.commit(rev)
        repo.tree_of(oid)  # a commit id is taken as written: check that it is a commit
    except ImporterError as exc:
        raise ReviewError(
            exc.message,
            file=exc.file,
            hint="BASE and HEAD must name commits of this clone: give a commit id, a branch "
            "or a tag, and fetch them (fetch-depth: 0 with actions/checkout)",
        ) from None
    return oid


def merge_base(repo: GitRepo, base: str, head: str) -> str:
    """Where ``base`` and ``head``'s histories meet: what a pull request's diff starts
    from. It is their best common ancestor (one that no other common ancestor descends
    from); after criss-cross merges there are several, and, as ``git merge-base`` does,
    the one committed last is taken. An error when their histories do not meet, when
    they are longer than :data:`MAX_COMMITS` commits, or when several best ancestors
    were committed in the same second (git's choice among them cannot be told)."""
    ancestors = _ancestors(repo, resolve(repo, base))
    walked = _ancestors(repo, resolve(repo, head))
    common = {oid: parents for oid, parents in walked.items() if oid in ancestors}
    if not common:
        raise ReviewError(
            f"{head} and {base} share no commit",
            hint="fetch their whole history (fetch-depth: 0 with actions/checkout), or leave "
            "out --merge-base to compare the two revisions as they are",
        )
    # Every ancestor of a common commit is common: a common commit below another is a
    # parent of a common one.
    below = {parent for parents in common.values() for parent in parents}
    best = sorted(oid for oid in common if oid not in below)
    times = {oid: repo.commit_time(oid) for oid in best} if len(best) > 1 else {}
    last = max(times.values(), default=0)
    newest = [oid for oid in best if times.get(oid, 0) == last]
    if len(newest) > 1:
        raise ReviewError(
            f"{head} and {base} have {len(best)} merge bases (criss-cross merges), "
            f"{len(newest)} of them committed at the same time: {', '.join(newest)}",
            hint="leave out --merge-base and give as BASE the one to compare from",
        )
    return newest[0]


def _ancestors(repo: GitRepo, oid: str) -> dict[str, list[str]]:
    """Every commit ``oid`` descends from (itself too), with its parents."""
    found: dict[str, list[str]] = {}
    stack = [oid]
    while stack:
        current = stack.pop()
        if current in found:
            continue
        found[current] = repo.parents(current)
        if len(found) > MAX_COMMITS:
            raise ReviewError(
                f"more than {MAX_COMMITS} commits lead to {oid}: the histories are too long "
                "to find where they meet",
                hint="leave out --merge-base and give the base commit itself",
            )
        stack.extend(found[current])
    return found
