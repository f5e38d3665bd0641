"""The per-user folders the package keeps its own files in: data (the default prompt
store) and caches (history indexes), never inside a catalog or a project folder.

:func:`private_folder` makes such a folder for its owner alone and says whether it is
still this user's alone: a cache another user could write is not one to read.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path

__all__ = ["private_folder", "user_cache_dir", "user_data_dir"]

_APP = "prompt-catalog"


def user_data_dir() -> Path:
    """The per-user data folder: ``$XDG_DATA_HOME`` (default ``~/.local/share``),
    ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` on Windows;
    then ``prompt-catalog`` inside it."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / _APP


def user_cache_dir() -> Path:
    """The per-user cache folder: ``$XDG_CACHE_HOME`` when set (on every system),
    else ``~/.cache``, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows;
    then ``prompt-catalog`` inside it."""
    given = os.environ.get("XDG_CACHE_HOME")
    if given and os.path.isabs(given):
        base = Path(given)
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path.home() / ".cache"
    return base / _APP


def private_folder(folder: Path, *, check: int = 1) -> bool:
    """Create ``folder`` and its missing parents, each readable by its owner alone
    (0700; existing folders are left as they are), then say whether ``folder`` and its
    ``check - 1`` nearest parents are real folders (not links) of this user that no
    one else may write. :class:`OSError` when it cannot be made."""
    missing = []
    walked = folder
    while not walked.exists() and walked.parent != walked:
        missing.append(walked)
        walked = walked.parent
    for each in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made by another process meanwhile
            each.mkdir(mode=0o700)
    return all(_owned(each) for each in (folder, *folder.parents)[:check])


def _owned(folder: Path) -> bool:
    """Whether ``folder`` itself is a folder of this user that others cannot write."""
    try:
        found = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(found.st_mode):
        return False
    if not hasattr(os, "getuid"):  # Windows: a user's profile folder is theirs
        return True
    return found.st_uid == os.getuid() and not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
