"""Porting an overlay to a new release of its base catalog.

An overlay (``[catalog] base``, parts with ``from``) pins the base text it was
reviewed with. When the base moves on, its parts are renamed, removed or
rewritten, and the overlay stops loading. :func:`port_overlay` compares each
``from`` part of the old base with the new base and says, part by part:

* ``same``: the new base has the part with the same text; nothing to do;
* ``carried``: the text changed in a class the caller accepted (``accept``:
  ``whitespace``, ``placeholders``): the pins (``sha256``, ``tokens``) are
  updated;
* ``renamed``: the part is gone under its id but lives on under another one
  (found as :func:`catalog.changes.classify.find_renames` finds renames): ``from``
  is updated, and the pins too when the text is the same or changed in an
  accepted class;
* ``changed``: any other text change (prose always, whitespace or placeholders
  unless accepted): the diff is shown, the pins are kept, so the ported
  overlay does not load until someone reviews it and runs ``catalog stamp``
  (or ports again accepting that class);
* ``vanished``: nothing in the new base carries it: a decision is needed.

No text change is carried over unless the caller said so: a change that looks
minor is where words hide.

The ported manifest is the old one with only the ``base``, ``version``,
``from``, ``sha256`` and ``tokens`` values rewritten, through the same editing
function as ``catalog stamp``: comments, layout and every string stay.
"""

from __future__ import annotations

from collections.abc import (
    Collection,
)
from dataclasses import (
    dataclass,
)
from typing import (
    Any,
    Literal,
)

from catalog.changes.classify import (
    TextClass,
    find_renames,
    text_class,
)
from catalog.changes.compute import (
    unified_diff,
)
from catalog.engine.catalog import (
    Catalog,
)
from catalog.engine.compile import (
    body_sha256,
)
from catalog.errors import (
    UsageError,
)
from catalog.io.manifest_edit import Value, edit_manifest
from catalog.schema.manifest import (
    Manifest,
)
from catalog.tokens import TokenCounter

__all__ = ["ACCEPTABLE", "PortReport", "PortStatus", "PortedPart", "port_overlay"]

PortStatus = Literal["same", "carried", "renamed", "changed", "vanished"]

ACCEPTABLE: tuple[TextClass, ...] = ("whitespace", "placeholders")
"""The text-change classes a port may be told to carry over; prose never is."""


@dataclass(frozen=True, slots=True)
class PortedPart:
    """What became of one ``from`` part of the overlay."""

    id: str
    source: str
    status: PortStatus
    target: str | None = None
    change: TextClass | None = None
    similarity: float | None = None
    unified: str = ""
    pinned: bool = False  # its sha256 and tokens were updated

    @property
    def needs_decision(self) -> bool:
        """Vanished, or its text changed (under its id or a new one) and was not carried."""
        return self.status == "vanished" or (self.change is not None and not self.pinned)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "id": self.id,
            "from": self.source,
            "status": self.status,
            "to": self.target,
            "change": self.change,
            "similarity": self.similarity,
            "pins_updated": self.pinned,
            "needs_decision": self.needs_decision,
            "unified": self.unified,
        }


@dataclass(frozen=True, slots=True)
class PortReport:
    """An overlay ported to a new base: each part's fate and the rewritten manifest."""

    overlay: str
    old_base: str
    new_base: str
    parts: tuple[PortedPart, ...]
    text: str

    @property
    def needs_decision(self) -> tuple[PortedPart, ...]:
        """The parts someone must look at before the ported overlay loads."""
        return tuple(p for p in self.parts if p.needs_decision)

    def count(self, status: PortStatus) -> int:
        """How many parts have ``status``."""
        return sum(p.status == status for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "overlay": self.overlay,
            "old_base": self.old_base,
            "new_base": self.new_base,
            "needs_decision": len(self.needs_decision),
            "parts": [p.to_dict() for p in self.parts],
        }


def port_overlay(
    manifest: Manifest,
    text: str,
    old_base: Catalog,
    new_base: Catalog,
    *,
    base_ref: str,
    version: str,
    count: TokenCounter,
    accept: Collection[TextClass] = (),
) -> PortReport:
    """Port the overlay ``manifest`` (written as ``text``) from ``old_base`` to
    ``new_base``, which the ported manifest names as ``base_ref``, at ``version``;
    text changes of the classes in ``accept`` (some of :data:`ACCEPTABLE`) are
    carried over, every other one needs a decision."""
    if "prose" in accept:
        raise UsageError(
            "a prose change is never carried over",
            hint="review its diff, then run `catalog stamp` on the ported folder",
        )
    old_bodies = {p.id: p.body for p in old_base.parts}
    new_parts = {p.id: p for p in new_base.parts}
    wanted = [part.from_ for part in manifest.part if part.from_ is not None]
    gone = {i: old_bodies[i] for i in wanted if i not in new_parts and i in old_bodies}
    fresh = {i: p.body for i, p in new_parts.items() if i not in old_bodies}
    renames = {old: (new, score) for old, new, score in find_renames(gone, fresh)}
    labels = (f"{old_base.name}@{old_base.version}", f"{new_base.name}@{new_base.version}")
    ported: list[PortedPart] = []
    edits: dict[int, dict[str, Value]] = {}
    for index, part in enumerate(manifest.part):
        source = part.from_
        if source is None:
            continue
        target, similarity = source, None
        if source not in new_parts:
            if source not in renames:
                ported.append(PortedPart(part.id, source, "vanished"))
                continue
            target, similarity = renames[source]
        old_body = old_bodies.get(source, "")
        new_body = new_parts[target].body
        change = text_class(old_body, new_body)
        carried = change is None or change in accept
        status: PortStatus = "renamed" if target != source else "same"
        if status == "same" and change is not None:
            status = "carried" if carried else "changed"
        pinned = carried and (change is not None or target != source)
        edit: dict[str, Value] = {}
        if target != source:
            edit["from"] = target
        if pinned:
            edit["sha256"] = body_sha256(new_body)
            edit["tokens"] = count(new_body)
        if edit:
            edits[index] = edit
        unified = unified_diff(old_body, new_body, f"{labels[0]}/{source}", f"{labels[1]}/{target}")
        ported.append(
            PortedPart(part.id, source, status, target, change, similarity, unified, pinned)
        )
    catalog_edits: dict[str, Value] = {"base": base_ref, "version": version}
    return PortReport(
        overlay=f"{manifest.catalog.name} {manifest.catalog.version}",
        old_base=labels[0],
        new_base=labels[1],
        parts=tuple(ported),
        text=edit_manifest(text, catalog=catalog_edits, parts=edits).text,
    )
