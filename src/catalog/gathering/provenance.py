"""Where every gathered byte came from: the record of one gathering.

:func:`catalog.gathering.gather_with_provenance` returns a :class:`Gathering`:
the context, one :class:`GatheredFile` per file looked at (taken, cut, or
left out, with the reason and the ``@`` import chain), and the notes (every
warning of the gathering). ``catalog gather`` prints it as JSON or as the
tree of :meth:`Gathering.tree`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from catalog.schema.context import (
    Context,
)
from catalog.text.visible import (
    visible_line,
)

__all__ = ["GatheredFile", "Gathering", "Status"]

Status = Literal["included", "cut", "dropped", "skipped"]
"""``included`` whole; ``cut`` shortened (size or budget); ``dropped`` over a
budget; ``skipped`` looked at and left out (a rule that does not apply, a
duplicate, an import refused or not found, an empty file)."""

_MARKS = {"included": "+", "cut": "~", "dropped": "-", "skipped": "-"}


@dataclass(frozen=True, slots=True)
class GatheredFile:
    """One file a gathering looked at and what became of it.

    ``source`` names the ``[sources]`` entry (its ``label``, else e.g.
    ``files[1]``), ``target`` where the text went (``project_files``,
    ``skills``, ``slot:NAME``, ``files``...), ``bytes`` how many of its bytes
    are in the context and ``size`` how many the file had (as far as read).
    ``imported_by`` is the chain of files whose ``@`` imports led here,
    outermost first.
    """

    path: str
    source: str
    target: str
    status: Status
    reason: str
    bytes: int = 0
    size: int = 0
    imported_by: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Gathering:
    """A gathered context with the provenance of its files and the notes of the gathering."""

    context: Context
    files: tuple[GatheredFile, ...]
    notes: tuple[str, ...]
    cwd: str
    root: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``context``, ``files`` (provenance), ``notes``, ``cwd``, ``root``."""
        return {
            "cwd": self.cwd,
            "root": self.root,
            "context": self.context.model_dump(mode="json", exclude_defaults=True),
            "files": [
                {**asdict(item), "imported_by": list(item.imported_by)} for item in self.files
            ],
            "notes": list(self.notes),
        }

    def tree(self) -> str:
        """A readable account: each source with its files (imports indented), then the
        notes; each line shown with :func:`~catalog.text.visible.visible_line`, so a file
        name holding a line feed or an escape sequence cannot add or rewrite a line."""
        lines = [f"gathered from {self.cwd} (project root {self.root})"]
        current: tuple[str, str] | None = None
        kept = 0
        for item in self.files:
            if (item.source, item.target) != current:
                current = (item.source, item.target)
                lines.append(f"{item.source} -> {item.target}")
            indent = "  " * (len(item.imported_by) + 1)
            size = _size(item)
            lines.append(f"{indent}{_MARKS[item.status]} {item.path}{size}: {item.reason}")
            if item.status in ("included", "cut"):
                kept += item.bytes
        taken = sum(1 for item in self.files if item.status in ("included", "cut"))
        lines.append(f"{taken} file{'s' if taken != 1 else ''} gathered, {kept} bytes")
        if self.notes:
            lines.append("notes:")
            lines.extend(f"  ! {note}" for note in self.notes)
        return "\n".join(visible_line(line) for line in lines)


def _size(item: GatheredFile) -> str:
    if item.status == "included":
        return f" ({item.bytes} bytes)"
    if item.status == "cut":
        return f" ({item.bytes} of {item.size} bytes)"
    return ""
