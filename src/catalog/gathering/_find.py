"""Finding the files a ``[[sources.files]]`` name means in one folder, with bounds.

A name is a path relative to the folder, possibly a glob (``CLAUDE.md``,
``.claude/rules/**/*.md``). Its leading segments without wildcards are a
plain path; below them the tree is walked depth first in name order, so
matches come sorted by path. The walk is bounded: folders at most
:data:`MAX_DEPTH` deep, a shared count of folder entries per gathering, each
real folder entered once (a symbolic link loop is entered once and reported).
"""

from __future__ import annotations

import os
from pathlib import Path

from catalog.gathering._files import is_file, warn
from catalog.text.globs import Glob

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "Finder"]

MAX_DEPTH = 32
"""How many folders below a name's plain part a ``**`` walk goes."""

MAX_ENTRIES = 200_000
"""How many folder entries one gathering looks at, over all its walks."""

_MAGIC = frozenset("*?[{")


class Finder:
    """Walks folders for glob names, sharing one budget of entries; remembers what it warned."""

    def __init__(self) -> None:
        self.max_entries = MAX_ENTRIES
        self.left = MAX_ENTRIES
        self.exhausted = False

    def find(self, folder: Path, name: str, limit: int) -> list[Path]:
        """At most ``limit`` files under ``folder`` matching ``name``, sorted by path."""
        segments = [s for s in name.replace("\\", "/").split("/") if s not in ("", ".")]
        plain = 0
        while plain < len(segments) and not _MAGIC.intersection(segments[plain]):
            plain += 1
        base = folder.joinpath(*segments[:plain])
        rest = segments[plain:]
        if not rest:
            return [base] if is_file(base) else []
        depth = MAX_DEPTH if "**" in "/".join(rest) else len(rest)
        glob = Glob("/" + "/".join(rest))
        found: list[Path] = []
        self._walk(base, "", depth, glob, limit, found, set())
        return found

    def _walk(
        self,
        folder: Path,
        prefix: str,
        depth: int,
        glob: Glob,
        limit: int,
        found: list[Path],
        entered: set[str],
    ) -> None:
        try:
            real = os.path.realpath(folder)
        except (OSError, ValueError):
            return
        if real in entered:
            warn(f"{folder}: skipped, a symbolic link loop (already visited as {real})")
            return
        entered.add(real)
        for entry in self._entries(folder):
            if len(found) >= limit or self.exhausted:
                return
            relative = prefix + entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if is_dir:
                if depth > 1:
                    self._walk(
                        Path(entry.path), relative + "/", depth - 1, glob, limit, found, entered
                    )
            elif glob.match(relative) and is_file(Path(entry.path)):
                found.append(Path(entry.path))

    def _entries(self, folder: Path) -> list[os.DirEntry[str]]:
        """The entries of ``folder`` sorted by name, counted against the budget."""
        entries: list[os.DirEntry[str]] = []
        try:
            with os.scandir(folder) as scan:
                for entry in scan:
                    if self.left <= 0:
                        if not self.exhausted:
                            self.exhausted = True
                            warn(
                                f"{folder}: stopped looking for files after {self.max_entries} "
                                "folder entries; files further on are not gathered"
                            )
                        break
                    self.left -= 1
                    entries.append(entry)
        except FileNotFoundError:
            return []
        except NotADirectoryError:
            return []
        except OSError as exc:
            warn(f"{folder}: folder skipped, {exc.strerror or exc}")
            return []
        return sorted(entries, key=lambda entry: entry.name)
