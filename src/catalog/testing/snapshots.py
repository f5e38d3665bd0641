"""Snapshots of assembled prompts as plain Markdown files, one file per snapshot.

:class:`PromptSnapshotExtension` is a syrupy ``SingleFileSnapshotExtension``
in text mode that stores each snapshot as a ``.md`` file, so a prompt change
shows up in review as a diff of plain text. The pytest plugin
(:mod:`catalog.testing`) hands it out as the ``prompt_snapshot`` fixture.

What is written (see :func:`render_snapshot`):

* a ``str`` (e.g. ``prompt.text``): exactly that text plus one final newline;
* an :class:`~catalog.engine.prompt.AssembledPrompt`: its parts in order, each
  under an HTML comment naming the part and why it is in, then the tool
  descriptions, so a diff also says which part changed;
* a sequence of :class:`~catalog.engine.prompt.Reminder` (``catalog.reminders()``):
  each reminder under a comment naming it.

This module imports syrupy; ``import catalog`` never imports it.
"""

from __future__ import annotations

from collections.abc import Sequence

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData

from catalog.engine.prompt import AssembledPrompt, Reminder

__all__ = ["PromptSnapshotExtension", "render_snapshot"]


def render_snapshot(data: object) -> str:
    """The text a snapshot file holds for ``data``; see the module docstring."""
    if isinstance(data, str):
        return data + "\n"
    if isinstance(data, AssembledPrompt):
        return _render_prompt(data)
    if isinstance(data, Sequence) and all(isinstance(item, Reminder) for item in data):
        blocks = [f"<!-- reminder {r.id} -->\n{r.text}" for r in data]
        return "\n\n".join(blocks or ["<!-- no reminders -->"]) + "\n"
    raise TypeError(
        f"a prompt snapshot takes a str, an AssembledPrompt or a sequence of Reminder, "
        f"not {type(data).__name__}"
    )


def _render_prompt(prompt: AssembledPrompt) -> str:
    blocks = [f"<!-- {prompt.catalog} {prompt.version}, agent {prompt.agent} -->"]
    blocks.extend(
        f"<!-- part {part.id}: {part.why} -->\n{prompt.text[part.start : part.end]}"
        for part in prompt.parts
    )
    blocks.extend(
        f"<!-- tool {tool.name} ({tool.part_id}) -->\n{tool.description}" for tool in prompt.tools
    )
    return "\n\n".join(blocks) + "\n"


class PromptSnapshotExtension(SingleFileSnapshotExtension):
    """syrupy extension: each snapshot is one readable, UTF-8 ``.md`` file."""

    file_extension = "md"
    _write_mode = WriteMode.TEXT

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> str:
        """Render ``data`` with :func:`render_snapshot`."""
        return render_snapshot(data)
