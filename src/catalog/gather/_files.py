"""Reading files from a project safely: size limits, bad bytes, loops, confinement.

Everything here is lenient on purpose: a project folder is not ours, and one
unreadable file must not stop an agent from starting. Problems become
:class:`SourceWarning` warnings, and the file or folder is skipped.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "SourceWarning",
    "expand",
    "glob",
    "is_dir",
    "is_file",
    "list_dir",
    "strip_leading_html_comments",
    "warn",
]

_LEADING_COMMENTS = re.compile(r"\A\s*(?:<!--.*?-->\s*)+", re.DOTALL)


class SourceWarning(UserWarning):
    """A file or folder was skipped or cut while gathering a context."""


def warn(message: str) -> None:
    """Report a skipped or cut source as a :class:`SourceWarning`."""
    warnings.warn(message, SourceWarning, stacklevel=4)


def expand(name: str, *, base: Path, home: Path) -> Path:
    """``~/x`` under ``home``, an absolute path as is, anything else under ``base``."""
    if name == "~" or name.startswith(("~/", "~\\")):
        return home / name[2:]
    path = Path(name)
    return path if path.is_absolute() else base / path


def _stat(path: Path) -> os.stat_result | None:
    """``os.stat`` following links; None when absent, a warning when it cannot be told."""
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as exc:
        _skipped(path, exc)
        return None


def _skipped(path: Path, exc: OSError) -> None:
    if exc.errno == errno.ELOOP:
        warn(f"{path}: skipped, a symbolic link loop")
    else:
        warn(f"{path}: skipped, {exc.strerror or exc}")


def is_file(path: Path) -> bool:
    """Whether ``path`` is a regular file (links followed); loops and errors warn."""
    found = _stat(path)
    return found is not None and stat.S_ISREG(found.st_mode)


def is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder (links followed); loops and errors warn."""
    found = _stat(path)
    return found is not None and stat.S_ISDIR(found.st_mode)


def list_dir(path: Path) -> list[Path]:
    """The entries of folder ``path`` sorted by name; an unreadable folder warns and is empty."""
    try:
        with os.scandir(path) as entries:
            return sorted((Path(entry.path) for entry in entries), key=lambda p: p.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        warn(f"{path}: folder skipped, {exc.strerror or exc}")
        return []


def glob(folder: Path, pattern: str) -> Iterator[Path]:
    """Files under ``folder`` matching ``pattern`` (``*`` within one name), sorted."""
    *dirs, last = pattern.replace("\\", "/").split("/")
    parents = [folder]
    for segment in dirs:
        parents = [
            child
            for parent in parents
            for child in (list_dir(parent) if _has_magic(segment) else [parent / segment])
            if (not _has_magic(segment) or child.match(segment)) and is_dir(child)
        ]
    for parent in parents:
        if _has_magic(last):
            yield from (c for c in list_dir(parent) if c.match(last) and is_file(c))
        elif is_file(parent / last):
            yield parent / last


def _has_magic(segment: str) -> bool:
    return any(char in segment for char in "*?[")


def strip_leading_html_comments(text: str) -> str:
    """``text`` without the HTML comments (``<!-- ... -->``) it starts with."""
    return _LEADING_COMMENTS.sub("", text, count=1)
