"""Finding a repository's git folder and checking its files before anything reads them.

An imported repository is as hostile as a gathered folder, and a library
reading it trusts the files it opens. So before :class:`~catalog.importers.gitrepo.GitRepo`
hands a folder to dulwich, the files dulwich may open there (``HEAD``,
``packed-refs``, ``shallow``, everything under ``refs/`` and ``objects/``) are
checked to be the repository's own folders and regular files: a symbolic link
(which could lead anywhere), a named pipe (which would block the read), a
device or a socket there is refused, as are objects borrowed from another
repository (``objects/info/alternates``). Each check costs one ``lstat`` per
entry, in one pass without recursion.

The configuration (``config``, its includes, hooks, attributes) is never
read: nothing there can name a program to run or a file to open.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from catalog.errors import ImporterError
from catalog.io.textfile import MAX_FILE_BYTES, read_capped

__all__ = ["LIST_BYTES", "GitFolders", "find_git_folders", "read_small"]

_SMALL: Final = 4096
LIST_BYTES: Final = MAX_FILE_BYTES
"""Largest ``packed-refs`` or ``shallow`` file read (a line per ref or commit)."""
_FRESH_CLONE: Final = "import a fresh clone of the repository (git clone URL)"


@dataclass(frozen=True, slots=True)
class GitFolders:
    """Where a repository keeps its files: ``git`` holds ``HEAD`` (and a worktree's
    own refs), ``common`` the objects, refs and ``packed-refs`` every worktree shares."""

    git: Path
    common: Path

    @property
    def objects(self) -> Path:
        """The object store: loose objects and ``pack/``."""
        return self.common / "objects"


def find_git_folders(path: Path) -> GitFolders:
    """The git folders of the repository at ``path`` (a clone, a worktree or a bare
    repository), their files checked; an :class:`ImporterError` naming ``path`` and what
    to do when it is none or holds what the importer does not open."""
    try:
        info = path.stat()
    except OSError:
        info = None
    if info is None or not stat.S_ISDIR(info.st_mode):
        raise ImporterError(
            "the git repository folder does not exist"
            if info is None
            else "the git repository is not a folder",
            file=str(path),
            hint="give the path of a clone of the repository",
        )
    git = _git_folder(path)
    common = git
    pointer = read_small(git / "commondir")
    if pointer is not None and pointer.strip():
        common = _existing_folder(git / pointer.strip(), git / "commondir")
    folders = GitFolders(git, common)
    _check(folders)
    return folders


def _git_folder(path: Path) -> Path:
    """The folder holding ``HEAD``: ``.git`` (a folder, or a file or link naming one, as
    worktrees, submodules and ``--separate-git-dir`` clones have), else ``path`` itself
    when it is a bare repository."""
    dotgit = path / ".git"
    try:
        mode = dotgit.lstat().st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        return dotgit
    if mode is not None and stat.S_ISLNK(mode):
        return _existing_folder(dotgit, dotgit)
    if mode is not None and stat.S_ISREG(mode):
        text = read_small(dotgit) or ""
        if not text.startswith("gitdir:"):
            raise ImporterError(
                "the .git file does not name a git folder (`gitdir: PATH`)",
                file=str(dotgit),
                hint=_FRESH_CLONE,
            )
        return _existing_folder(path / text[len("gitdir:") :].strip(), dotgit)
    if (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir():
        return path
    raise ImporterError(
        "not a git repository: no .git here, nor the HEAD, objects/ and refs/ of a bare one",
        file=str(path),
        hint="give a clone of the repository (a folder holding .git)",
    )


def _existing_folder(target: Path, named_by: Path) -> Path:
    """The folder ``named_by`` (a ``.git`` file or link, a ``commondir`` file) points to."""
    try:
        real = target.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL character
        real = None
    if real is None or not real.is_dir():
        raise ImporterError(
            f"{named_by.name} points to {target}, which is not a folder",
            file=str(named_by),
            hint=_FRESH_CLONE,
        )
    return real


def read_small(path: Path, limit: int = _SMALL) -> str | None:
    """The text of a small regular file of the git folder; None when it is absent.

    Anything else there (a link, a named pipe, a file over ``limit`` bytes) is
    refused.
    """
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    if not stat.S_ISREG(mode):
        raise _refused(path, mode)
    try:
        raw, _ = read_capped(path, limit)
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    if len(raw) > limit:
        raise _unreadable(path, f"more than {limit} bytes")
    return raw.decode("utf-8", "replace")


def _check(folders: GitFolders) -> None:
    """Refuse what dulwich must not open: links, pipes, devices and sockets among
    the files it may read, and borrowed objects."""
    if read_small(folders.git / "HEAD") is None:
        raise ImporterError(
            "not a git repository: its git folder has no HEAD file",
            file=str(folders.git),
            hint="give a clone of the repository (a folder holding .git)",
        )
    for name in ("packed-refs", "shallow"):
        info = _check_kind(folders.common / name, stat.S_ISREG)
        if info is not None and info.st_size > LIST_BYTES:
            raise _unreadable(folders.common / name, f"more than {LIST_BYTES} bytes")
    trees = [folders.common / "refs", folders.objects]
    if folders.git != folders.common:
        trees.append(folders.git / "refs")
    for tree in trees:
        _check_tree(tree)
    alternates = read_small(folders.objects / "info" / "alternates")
    if alternates is not None and any(
        line.strip() and not line.startswith("#") for line in alternates.splitlines()
    ):
        raise ImporterError(
            "the repository borrows objects from another one (objects/info/alternates, "
            "as `git clone --shared` or `--reference` make)",
            file=str(folders.objects / "info" / "alternates"),
            hint="import a clone that holds its own objects (git clone --dissociate, "
            "or git repack -a -d in it and remove that file)",
        )


def _check_kind(path: Path, kind: Callable[[int], bool]) -> os.stat_result | None:
    """``path``'s status when it is of the ``kind`` (:func:`stat.S_ISREG`,
    :func:`stat.S_ISDIR`); None when it is absent."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    if not kind(info.st_mode):
        raise _refused(path, info.st_mode)
    return info


def _check_tree(root: Path) -> None:
    """Everything under ``root`` (absent, or a folder) is a folder or a regular file."""
    _check_kind(root, stat.S_ISDIR)
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    mode = entry.stat(follow_symlinks=False).st_mode
                    if stat.S_ISDIR(mode):
                        stack.append(Path(entry.path))
                    elif not stat.S_ISREG(mode):
                        raise _refused(Path(entry.path), mode)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _unreadable(folder, exc.strerror or str(exc)) from None


def _refused(path: Path, mode: int) -> ImporterError:
    if stat.S_ISLNK(mode):
        what = f"a symbolic link (to {os.readlink(path)})"
    elif stat.S_ISDIR(mode):
        what = "a folder where git keeps a file"
    elif stat.S_ISREG(mode):
        what = "a file where git keeps a folder"
    else:
        what = "a named pipe, a device or a socket"
    return ImporterError(
        f"this file of the repository's git folder is {what}: the importer opens only "
        "the repository's own folders and regular files",
        file=str(path),
        hint=_FRESH_CLONE,
    )


def _unreadable(path: Path, why: str) -> ImporterError:
    return ImporterError(f"cannot read: {why}", file=str(path), hint=_FRESH_CLONE)
