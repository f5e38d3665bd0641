"""Reading files from a project safely: size limits, bad bytes, loops, confinement.

Everything here is lenient on purpose: a project folder is not ours, and one
unreadable file must not stop an agent from starting. Problems become
:class:`SourceWarning` warnings, and the file or folder is skipped.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
import warnings
from pathlib import Path
from typing import Final

__all__ = [
    "MAX_FOLDER_ENTRIES",
    "SourceWarning",
    "expand",
    "is_dir",
    "is_file",
    "list_dir",
    "path_problem",
    "strip_leading_html_comments",
    "warn",
]


class SourceWarning(UserWarning):
    """A file or folder was skipped or cut while gathering a context."""


def warn(message: str) -> None:
    """Report a skipped or cut source as a :class:`SourceWarning`."""
    warnings.warn(message, SourceWarning, stacklevel=4)


def path_problem(name: str) -> str | None:
    """Why ``name``, a path written in a gathered file, can name no file; None when it can.

    A NUL character cannot be part of a path: the operating system's calls refuse
    it with ``ValueError``, not ``OSError``, which used to end a gathering in a
    traceback (``@a<NUL>b`` in a CLAUDE.md, ``[file:a<NUL>b]`` in a template)."""
    if "\0" in name:
        return "the path holds a NUL character"
    return None


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
    except ValueError:  # a NUL character: callers check with path_problem first
        warn(f"{path}: skipped, the path holds a NUL character")
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


MAX_FOLDER_ENTRIES: Final = 10_000
"""Most entries of one folder looked at; the rest are skipped with a warning."""


def list_dir(path: Path) -> list[Path]:
    """The entries of folder ``path`` sorted by name; an unreadable folder warns and is empty.

    At most :data:`MAX_FOLDER_ENTRIES` entries are read (a warning says so), so
    a folder of millions of files costs a bounded time.
    """
    try:
        with os.scandir(path) as entries:
            found = [
                Path(entry.path) for entry in itertools.islice(entries, MAX_FOLDER_ENTRIES + 1)
            ]
    except FileNotFoundError:
        return []
    except OSError as exc:
        warn(f"{path}: folder skipped, {exc.strerror or exc}")
        return []
    if len(found) > MAX_FOLDER_ENTRIES:
        warn(f"{path}: only {MAX_FOLDER_ENTRIES} entries of the folder looked at")
        found = found[:MAX_FOLDER_ENTRIES]
    return sorted(found, key=lambda p: p.name)


def strip_leading_html_comments(text: str) -> str:
    """``text`` without the HTML comments (``<!-- ... -->``) it starts with, nor the
    spaces around them.

    One forward pass (no regular expression on the file's text); an unclosed
    comment is left as it is.
    """
    position = _skip_spaces(text, 0)
    kept = 0
    while text.startswith("<!--", position):
        close = text.find("-->", position + 4)
        if close < 0:
            break
        position = kept = _skip_spaces(text, close + 3)
    return text[kept:]


def _skip_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at
