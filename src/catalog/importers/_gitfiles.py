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
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from catalog._textfile import read_capped
from catalog.errors import ImporterError

__all__ = ["GitFolders", "find_git_folders", "read_small"]

_SMALL: Final = 4096
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
            "the git repository folder does not exist", file=str(path), hint="check --git"
        )
    git = _git_folder(path)
    common = git
    pointer = read_small(git / "commondir")
    if pointer is not None and pointer.strip():
        common = _existing_folder(git / pointer.strip(), git / "commondir", path)
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
        return _existing_folder(dotgit, dotgit, path)
    if mode is not None and stat.S_ISREG(mode):
        text = read_small(dotgit) or ""
        if not text.startswith("gitdir:"):
            raise ImporterError(
                "the .git file does not name a git folder (`gitdir: PATH`)",
                file=str(dotgit),
                hint=_FRESH_CLONE,
            )
        return _existing_folder(path / text[len("gitdir:") :].strip(), dotgit, path)
    if (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir():
        return path
    raise ImporterError(
        "not a git repository: no .git here, nor the HEAD, objects/ and refs/ of a bare one",
        file=str(path),
        hint="give a clone of the repository (a folder holding .git) with --git",
    )


def _existing_folder(target: Path, named_by: Path, repo: Path) -> Path:
    """The folder ``named_by`` (a ``.git`` file or link, a ``commondir`` file) points to."""
    try:
        real = target.resolve(strict=True)
    except (OSError, RuntimeError):
        real = None
    if real is None or not real.is_dir():
        raise ImporterError(
            f"{named_by.relative_to(repo)} points to {target}, which is not a folder",
            file=str(repo),
            hint=_FRESH_CLONE,
        )
    return real


def read_small(path: Path) -> str | None:
    """The text of a small regular file of the git folder; None when it is absent.

    Anything else there (a link, a named pipe, a file over 4 KiB) is refused.
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
        raw, _ = read_capped(path, _SMALL)
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    if len(raw) > _SMALL:
        raise _unreadable(path, f"more than {_SMALL} bytes")
    return raw.decode("utf-8", "replace")


def _check(folders: GitFolders) -> None:
    """Refuse what dulwich must not open: links, pipes, devices and sockets among
    the files it may read, and borrowed objects."""
    if read_small(folders.git / "HEAD") is None:
        raise ImporterError(
            "not a git repository: its git folder has no HEAD file",
            file=str(folders.git),
            hint="give a clone of the repository (a folder holding .git) with --git",
        )
    for name in ("packed-refs", "shallow"):
        _check_file(folders.common / name)
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


def _check_file(path: Path) -> None:
    """``path`` is absent or a regular file."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    if not stat.S_ISREG(mode):
        raise _refused(path, mode)


def _check_tree(root: Path) -> None:
    """Everything under ``root`` (absent, or a folder) is a folder or a regular file."""
    _check_folder(root)
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


def _check_folder(path: Path) -> None:
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    if not stat.S_ISDIR(mode):
        raise _refused(path, mode)


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
