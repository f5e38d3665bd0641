"""Reading a repository's history and objects with dulwich: nothing the repository names runs.

``git`` obeys the repository it runs in: its configuration can name programs
(``gpg.program`` with ``log.showSignature``, pagers, ``core.fsmonitor``,
diff and filter drivers, ``core.sshCommand``, aliases, through includes too)
and ``hooks/`` holds more. An imported repository comes from anyone, so it
is read here with dulwich, which parses git's files in Python and runs
nothing: the configuration is never read, and before dulwich opens anything
:mod:`catalog.importers._gitfiles` checks that the files it may open are the
repository's own folders and regular files (no links, pipes or devices) and
:mod:`catalog.importers._gitobjects` checks each object's declared size, so
that reading is bounded. Objects are addressed by their ids, which lets an
importer parse a file once however many commits contain it.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final, Self, TypeVar

from dulwich.object_store import DiskObjectStore
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tag, Tree, parse_tree
from dulwich.refs import DiskRefsContainer, Ref, check_ref_format

from catalog.errors import ImporterError
from catalog.importers._gitfiles import (
    LIST_BYTES,
    find_git_folders,
    read_small,
)
from catalog.importers._gitobjects import (
    DeclaredSizes,
    ObjectTooLarge,
)
from catalog.importers.entrynames import check_entry_names
from catalog.io.textfile import MAX_FILE_BYTES

__all__ = ["MAX_OBJECT_BYTES", "GitRepo", "LogEntry", "TreeEntry"]

MAX_OBJECT_BYTES: Final = MAX_FILE_BYTES
"""Largest object read (a blob the loader could not read as a part is refused)."""

_Object = TypeVar("_Object", bound=ShaFile)

_HEX: Final = frozenset(string.hexdigits)
_SYMREF_HOPS: Final = 5  # as git: a longer chain of symbolic refs is an error
_DAMAGED: Final = "the repository is damaged: import a fresh clone of it (git clone URL)"
_FORGED: Final = (
    "a release's files have plain names, so this tree is forged or damaged "
    "(git fsck rejects such trees): import a clone you trust"
)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A commit on the first-parent line of history: its id and subject line."""

    oid: str
    subject: str


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One entry of a tree object: its mode (``0o100644``...), name and object id."""

    mode: int
    name: str
    oid: str

    @property
    def is_file(self) -> bool:
        """A regular file (not a folder, a symbolic link or a submodule)."""
        return self.mode & 0o170000 == 0o100000

    @property
    def is_folder(self) -> bool:
        """A tree (a submodule is not one: its commit lives in another repository)."""
        return self.mode & 0o170000 == 0o040000

    @property
    def is_link(self) -> bool:
        """A symbolic link: its blob is the link's target, never followed."""
        return self.mode & 0o170000 == 0o120000


class GitRepo:
    """A local git repository (a clone, a worktree or a bare repository), read with
    dulwich; a context manager that closes its files."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        folders = find_git_folders(self.path)
        shallow = read_small(folders.common / "shallow", LIST_BYTES) or ""
        self._shallow = frozenset(line.strip() for line in shallow.splitlines())
        self._refs = DiskRefsContainer(str(folders.common), worktree_path=str(folders.git))
        self._store = DiskObjectStore(
            str(folders.objects), loose_object_size_limit=MAX_OBJECT_BYTES + 64
        )
        self._sizes = DeclaredSizes(self._store, folders.objects)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the pack files dulwich and the size checks opened."""
        self._sizes.close()
        self._store.close()

    def log(self, rev: str = "HEAD") -> list[LogEntry]:
        """The first-parent commits leading to ``rev`` (``HEAD``, a branch or tag name,
        a full ref name or a commit id), oldest first; a shallow clone's history
        stops where the clone does."""
        oid: str | None = self._commit_of(rev)
        entries = []
        seen: set[str] = set()
        while oid is not None:
            if oid in seen:  # ids are hashes of content: only a forged object loops
                raise self._error(f"commit {oid} is its own ancestor", _DAMAGED)
            seen.add(oid)
            commit = self._object(oid, Commit, f"commit {oid}")
            entries.append(LogEntry(oid, _subject(commit.message)))
            parents = commit.parents
            oid = parents[0].decode("ascii") if parents and oid not in self._shallow else None
        entries.reverse()
        return entries

    def parents(self, oid: str) -> list[str]:
        """The parents of commit ``oid`` (none past where a shallow clone stops)."""
        if oid in self._shallow:
            return []
        commit = self._object(oid, Commit, f"commit {oid}")
        return [parent.decode("ascii") for parent in commit.parents]

    def commit_time(self, oid: str) -> int:
        """When commit ``oid`` was committed, in seconds since the epoch (UTC)."""
        return int(self._object(oid, Commit, f"commit {oid}").commit_time)

    def tags(self, wanted: Callable[[str], bool] | None = None) -> dict[str, str]:
        """The name (``v1.3.4``, without ``refs/tags/``) of every tag, or of those
        ``wanted`` accepts, and the commit it names, annotated tags peeled, in name
        order. A name git refuses is an error when it is wanted."""
        try:
            raws = sorted(self._refs.subkeys(Ref(b"refs/tags/")))
        except Exception as exc:  # dulwich's errors on damaged refs are of many kinds
            raise self._error(f"cannot list the tags: {_why(exc)}", _DAMAGED) from None
        names = (raw.decode("utf-8", "surrogateescape") for raw in raws)
        return {
            name: self._commit_of(f"refs/tags/{name}")
            for name in names
            if wanted is None or wanted(name)
        }

    def tree(self, commit: str) -> list[TreeEntry]:
        """The entries of ``commit``'s top folder."""
        return self.entries(self.tree_of(commit), f"{commit[:12]}:")

    def commit(self, rev: str) -> str:
        """The commit id ``rev`` names (``HEAD``, a branch or tag name, a full ref name
        or a commit id; annotated tags peeled)."""
        return self._commit_of(rev)

    def entries(self, tree: str, where: str) -> list[TreeEntry]:
        """The entries of tree object ``tree`` (``where`` names it in errors), in the
        order written.

        Read from the object's own text, every entry kept: dulwich keeps a tree's
        entries by name, so of two entries named alike it would show one. A name
        git refuses (``..``, ``a/b.md``, ``.git``, one given twice...: see
        :mod:`catalog.importers.entrynames`) is an error naming the tree.
        """
        found = self._object(tree, Tree, where)
        try:
            raw = parse_tree(
                b"".join(found.as_raw_chunks()), sha_len=found.object_format.oid_length
            )
            items = [
                (name.decode("utf-8", "surrogateescape"), mode, oid) for name, mode, oid in raw
            ]
        except Exception as exc:  # dulwich read it once already; its errors are of many kinds
            raise self._error(
                f"git object {tree} ({where}) cannot be read: {_why(exc)}", _DAMAGED
            ) from None
        check_entry_names((name for name, _, _ in items), where, _FORGED)
        return [TreeEntry(mode, name, oid.decode("ascii")) for name, mode, oid in items]

    def blob(self, oid: str, where: str) -> bytes:
        """The content of blob ``oid`` (``where`` names it in errors, e.g. ``<commit>:path``)."""
        return self._object(oid, Blob, where).as_raw_string()

    def kind(self, oid: str, where: str) -> str:
        """The type of object ``oid``: ``commit``, ``tree``, ``blob`` or ``tag``
        (``where`` names it in errors: a missing object is one)."""
        return self._object(oid, ShaFile, where).type_name.decode()

    def tree_of(self, commit: str) -> str:
        """The id of ``commit``'s top tree."""
        tree: bytes = self._object(commit, Commit, f"commit {commit}").tree
        return tree.decode("ascii")

    def _commit_of(self, rev: str) -> str:
        """The commit ``rev`` names (annotated tags peeled)."""
        if len(rev) == 40 and _HEX.issuperset(rev):
            oid: str | None = rev.lower()
        else:
            names = [rev] if rev == "HEAD" or rev.startswith("refs/") else []
            names = names or [f"refs/{kind}/{rev}" for kind in ("heads", "tags", "remotes")]
            oid = next(filter(None, map(self._ref, names)), None)
        if oid is None:
            raise self._error(
                f"{rev} is not a commit here"
                + (": the repository has no commits yet" if rev == "HEAD" else ""),
                "give a clone of the repository with its history",
            )
        if len(oid) != 40:
            raise self._error(
                "SHA-256 repositories are not supported", "import a SHA-1 clone of it"
            )
        for _ in range(_SYMREF_HOPS):
            found = self._object(oid, ShaFile, f"{rev} ({oid})")
            if not isinstance(found, Tag):
                break
            oid = found.object[1].decode("ascii")
        return oid

    def _ref(self, name: str) -> str | None:
        """The object id ref ``name`` holds, following symbolic refs that stay under
        ``refs/``; None when there is no such ref."""
        for _ in range(_SYMREF_HOPS):
            raw = name.encode("utf-8", "surrogateescape")
            if name != "HEAD" and not (name.startswith("refs/") and check_ref_format(Ref(raw))):
                raise self._error(f"the ref {name!r} is not a ref name git allows", _DAMAGED)
            try:
                value = self._refs.read_ref(Ref(raw))
            except Exception as exc:  # dulwich's errors on a damaged ref are of many kinds
                raise self._error(f"cannot read the ref {name}: {_why(exc)}", _DAMAGED) from None
            if value is None:
                return None
            text = value.decode("utf-8", "replace").strip()
            if not text.startswith("ref: "):
                if len(text) not in (40, 64) or not _HEX.issuperset(text):
                    raise self._error(f"the ref {name} holds {text[:80]!r}", _DAMAGED)
                return text.lower()
            name = text[len("ref: ") :].strip()
        raise self._error(f"the ref {name} is a chain of more than 5 symbolic refs", _DAMAGED)

    def _object(self, oid: str, kind: type[_Object], where: str) -> _Object:
        """Object ``oid``, which must be a ``kind``, its declared size checked first."""
        try:
            self._sizes.check(oid, MAX_OBJECT_BYTES)
            found = self._store[ObjectID(oid.encode("ascii"))]
        except KeyError:
            raise self._error(f"git object {oid} is missing ({where})", _DAMAGED) from None
        except ObjectTooLarge as exc:
            raise self._error(
                f"git object {oid} ({where}) is refused: {exc}",
                "the catalog loader reads no file over "
                f"{MAX_OBJECT_BYTES} bytes; remove it from the history",
            ) from None
        except Exception as exc:  # dulwich's errors on damaged data are of many kinds
            raise self._error(
                f"git object {oid} ({where}) cannot be read: {_why(exc)}", _DAMAGED
            ) from None
        if not isinstance(found, kind):
            raise self._error(
                f"git object {oid} ({where}) is a {found.type_name.decode()}, "
                f"not a {kind.type_name.decode()}",
                _DAMAGED,
            )
        return found

    def _error(self, message: str, hint: str) -> ImporterError:
        return ImporterError(message, file=str(self.path), hint=hint)


def _subject(message: bytes) -> str:
    """A commit message's subject as ``git log --format=%s`` gives it: the first
    paragraph (after blank lines), its lines joined by a space."""
    lines = message.decode("utf-8", "replace").split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return " ".join(line.rstrip() for line in lines[start:end])


def _why(exc: Exception) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
