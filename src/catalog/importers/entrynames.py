"""The names a folder's entries may have, for every importer: those git allows.

A git tree object is a list of ``mode name object`` entries, and nothing in
the object format stops a name from being ``..``, ``a/evil.md`` or
``/etc/evil.md``, or two entries from sharing a name. git never writes such a
tree and ``git fsck`` rejects one, but a repository can be made by other
means. An importer that takes such names as file names reads them as paths
(``../evil.md`` became part ``evil``), and a reader that keeps a tree's
entries by name keeps one of two entries named alike (dulwich keeps the
last), so a body nobody reviewed is imported in place of another.
:func:`check_entry_names` refuses those names, whether they come from a tree
or from a checkout's folder. It refuses a backslash too: git allows one on
Linux, but it is a path separator on Windows (``..\\..\\evil.md``).
"""

from __future__ import annotations

from collections.abc import Iterable

from catalog.errors import ImporterError
from catalog.text.visible import visible_line

__all__ = ["check_entry_names", "entry_name_problem", "shown_name"]

_GIT_REFUSES = "git refuses it"


def shown_name(name: str) -> str:
    """``name`` quoted for a message, its control and invisible characters as
    ``<U+XXXX>`` (a name may hold an escape sequence or a line feed)."""
    return f"'{visible_line(name)}'"


def entry_name_problem(name: str) -> str | None:
    """Why a folder's entry may not be named ``name``, in words; None when it may."""
    if not name:
        return f"an empty name; {_GIT_REFUSES}"
    if name in (".", ".."):
        return f"a step in a path, not a name; {_GIT_REFUSES}"
    if "/" in name:
        return f"a name holding '/' is a path; {_GIT_REFUSES}"
    if "\0" in name:
        return f"a name holding a NUL character; {_GIT_REFUSES}"
    if name.lower() == ".git":
        return f"git's own folder, in any case; {_GIT_REFUSES}"
    if "\\" in name:
        return "a backslash is a path separator on Windows; the importer refuses it"
    return None


def check_entry_names(names: Iterable[str], where: str, hint: str) -> None:
    """Refuse the first of ``names`` (one folder's entries) that
    :func:`entry_name_problem` refuses, or that two entries have, as an
    :class:`~catalog.errors.ImporterError` naming it and ``where`` (the folder),
    with ``hint``."""
    seen: set[str] = set()
    for name in names:
        problem = entry_name_problem(name)
        if problem is not None:
            raise ImporterError(
                f"an entry named {shown_name(name)}: {problem}", file=where, hint=hint
            )
        if name in seen:
            raise ImporterError(
                f"two entries named {shown_name(name)}: one of them would be lost; {_GIT_REFUSES}",
                file=where,
                hint=hint,
            )
        seen.add(name)
