"""Where a gathered file may reach: a project's files stay inside the project.

A file found in a project folder may be a stranger's (a cloned repository,
an unpacked archive), so the files it names (``@path`` imports) and the
links it is reached through must stay inside the project root; only the
user's own files may reach the home folder as well. Each file of a
gathering gets one :class:`~catalog.gathering.safe.ReadRules`, its *reach*,
decided by how it was found:

* a name written from the home folder (``~/...``) or as an absolute path,
  by the catalog (``dir = "~/.claude"``, ``~/.sf/agent/SYSTEM.md``) or by the
  caller (a skills folder given as a setting): the user's own file, which
  may reach the project root and the home folder;
* any other name (relative to the working directory, or found by a walk
  inside the project root): the project's file, which may reach the project
  root only;
* a file that a walk finds in a folder above the project root: in the home
  folder itself, the user's own file; in a folder that holds the home folder
  (``/home``, ``/``), a project's file; in any other folder (``~/work``,
  ``/srv``), that folder and what is below it.

A chain of imports narrows as it goes: it starts with the reach of the file
it started from and keeps the project root alone once it passes through a
file of the project, so its reach is the most restrictive of its files'.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from catalog.gathering.safe import ReadRules

__all__ = ["Reaches", "users_name"]


def users_name(name: str) -> bool:
    """Whether a source name points at the user's own files: ``~``, ``~/...`` or absolute."""
    return name == "~" or name.startswith(("~/", "~\\")) or Path(name).is_absolute()


@dataclass(frozen=True, slots=True)
class Reaches:
    """The reaches of one gathering: ``project`` (the project root) and ``user`` (the
    project root and the home folder); folders above the project root get their own."""

    top: Path
    home: Path
    project: ReadRules
    user: ReadRules

    @classmethod
    def of(cls, top: Path, home: Path, *, follow_links: bool, limit: int) -> Reaches:
        """The reaches for project root ``top`` and home folder ``home`` (both resolved)."""
        project = ReadRules((top,), follow_links, limit, f"the project root {top}")
        where = f"the project root {top} and the home folder {home}"
        return cls(top, home, project, ReadRules((top, home), follow_links, limit, where))

    def for_name(self, name: str) -> ReadRules:
        """The reach of a file or folder the catalog or the caller names as ``name``."""
        return self.user if users_name(name) else self.project

    def for_folder(self, folder: Path) -> ReadRules:
        """The reach of a file that a walk found in ``folder`` (resolved)."""
        if folder.is_relative_to(self.top):
            return self.project
        if folder == self.home:
            return self.user
        if self.home.is_relative_to(folder):
            return self.project
        where = f"the folder {folder}, where it was found"
        return ReadRules((folder,), self.project.follow_links, self.project.limit, where)

    def narrowed(self, reach: ReadRules, real: Path) -> ReadRules:
        """The reach of a chain that ``reach`` led to the file at ``real``: the project
        root alone once the file lies in the project."""
        return self.project if real.is_relative_to(self.top) else reach
