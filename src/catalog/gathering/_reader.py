"""What every part of one gathering shares: the folders, the reads, the record of files.

Each file read for the context goes through :meth:`Reader.read` and is
recorded with :meth:`Reader.record`, so that the provenance of every gathered
byte is known (see :mod:`catalog.gathering.provenance`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from catalog.gathering._files import expand, strip_leading_html_comments, warn
from catalog.gathering._find import Finder
from catalog.gathering._reach import Reaches
from catalog.gathering.provenance import GatheredFile, Status
from catalog.gathering.safe import ReadRules, allowed_path, foreign_owner, read_bounded
from catalog.schema.sources import Sources, expand_placeholders

__all__ = ["Reader", "project_root"]


def project_root(cwd: Path, root: Path | None, markers: tuple[str, ...], home: Path) -> Path:
    """``root`` if given, else the nearest folder from ``cwd`` up holding a marker, else ``cwd``.

    Below the home folder the search stops short of it: a marker in the home
    folder or above it (a repository of dotfiles at ``~``) would make every
    folder of the home folder one project, and a stranger's file in one of
    them could then reach the user's private files."""
    if root is not None:
        return root
    below_home = cwd != home and cwd.is_relative_to(home)
    for folder in (cwd, *cwd.parents):
        if below_home and home.is_relative_to(folder):
            break
        if any(_own_marker(folder, marker) for marker in markers):
            return folder
    return cwd


def _own_marker(folder: Path, marker: str) -> bool:
    """Whether ``folder`` holds ``marker`` and both are the current user's. A marker
    another user owns (a ``.git`` planted in ``/tmp``) marks nothing, with a warning:
    it would widen the project to that shared folder, as git refuses it too."""
    path = folder / marker
    if not os.path.lexists(path):
        return False
    owner = foreign_owner(path)
    if owner is None:
        owner = foreign_owner(folder)
    if owner is None:
        return True
    warn(
        f"{path}: not taken as the project root's marker, it belongs to user id {owner}, "
        "not to you (git refuses such a repository too: 'dubious ownership'); "
        "give --root to choose the project root"
    )
    return False


class Reader:
    """The folders of one gathering, its size limit, the files seen and the record kept."""

    def __init__(
        self,
        sources: Sources,
        cwd: Path,
        home: Path,
        root: Path | None,
        follow_links: bool,
        variables: Mapping[str, Any],
    ) -> None:
        self.sources = sources
        self.variables = variables
        self.cwd = cwd
        self.home = home
        self.root = root
        self.top = project_root(cwd, root, sources.root_markers, home)
        self.limit = sources.max_file_bytes
        self.reaches = Reaches.of(
            self.top, home, follow_links=follow_links, limit=sources.max_file_bytes
        )
        self.seen: set[Path] = set()
        self.refused: set[tuple[Path, tuple[Path, ...]]] = set()
        self.records: list[GatheredFile] = []
        # Variables whose text came from the user's own files (home folder, absolute path),
        # and the file each variable's text was read from.
        self.user_texts: set[str] = set()
        self.text_files: dict[str, Path] = {}
        self.finder = Finder()

    def names(self, names: Iterable[str]) -> list[str]:
        """``names`` with their ``{VARIABLE}`` placeholders filled from the catalog's variables."""
        return expand_placeholders(names, self.variables)

    def path(self, name: str, base: Path | None = None) -> Path:
        """A manifest path: ``~`` under the home folder, relative under ``base`` or the cwd."""
        return expand(name, base=base or self.cwd, home=self.home)

    def read(
        self,
        path: Path,
        reach: ReadRules,
        *,
        real: Path | None = None,
        strip_comments: bool = False,
    ) -> str | None:
        """A file's text under the link rule of ``reach`` (None if refused or unreadable),
        comments stripped if asked; ``real`` is its real path when :meth:`real` gave it."""
        text = read_bounded(path, reach, real=real)
        if text is not None and strip_comments:
            text = strip_leading_html_comments(text)
        return text

    def real(self, path: Path, reach: ReadRules) -> Path | None:
        """The real path of ``path`` when the link rule of ``reach`` lets it be read.

        A path refused once is not looked at (nor warned about) again when another
        source with the same reach names it too."""
        key = (path, reach.roots)
        if key in self.refused:
            return None
        real = allowed_path(path, reach)
        if real is None:
            self.refused.add(key)
        return real

    def resolved(self, path: Path) -> Path | None:
        """The real path of ``path`` (links followed), None when it cannot be resolved."""
        try:
            return path.resolve(strict=True)
        except (OSError, RuntimeError, ValueError):  # ValueError: a NUL character
            return None

    def record(
        self,
        path: Path | str,
        source: str,
        target: str,
        status: Status,
        reason: str,
        *,
        text: str | None = None,
        imported_by: tuple[str, ...] = (),
    ) -> int:
        """Add a file to the record; returns its index (for :meth:`update`)."""
        size = 0
        kept = 0
        if text is not None:
            kept = len(text.encode("utf-8"))
            size = kept
            with contextlib.suppress(OSError):
                size = os.stat(path).st_size
            if size > self.limit and status == "included":
                status = "cut"
                reason += f"; cut at max_file_bytes ({self.limit})"
        self.records.append(
            GatheredFile(str(path), source, target, status, reason, kept, size, imported_by)
        )
        return len(self.records) - 1

    def update(self, index: int, **changes: Any) -> None:
        """Change a recorded file's status, reason or byte count (a budget cut it)."""
        self.records[index] = replace(self.records[index], **changes)
