"""Variants: which part of each group of alternatives each model gets, release by
release, and where one variant changed while its siblings did not.

Maintainers of per-model prompts ask two questions of a range of releases:
which text does model X get (the part of each group an assembly takes for it,
see :mod:`catalog.engine.groups`), and which variant *drifted*: between two
releases, a part of a group changed (its body, or its condition) while the
other parts of its group present in both did not. :func:`variants` answers
both for catalog versions already loaded, oldest first; it assembles each
version once per model and compares each release with the one before it by
the manifests' hashes, reading the bodies of the changed parts alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog.changes.classify import text_class
from catalog.engine.catalog import Catalog
from catalog.engine.plan import CompiledPart
from catalog.schema.manifest import MAIN_AGENT

__all__ = ["Drift", "GroupRow", "Variants", "variants"]


@dataclass(frozen=True, slots=True)
class GroupRow:
    """The part of group ``group`` that each model gets in ``version`` (in the order of
    :attr:`Variants.values`; None when the group gives that model nothing)."""

    version: str
    group: str
    taken: tuple[str | None, ...]

    def to_dict(self, values: Sequence[str]) -> dict[str, Any]:
        """``{"version", "group", "taken": {value: part or null}}``."""
        return {
            "version": self.version,
            "group": self.group,
            "taken": dict(zip(values, self.taken, strict=True)),
        }


@dataclass(frozen=True, slots=True)
class Drift:
    """Between ``previous`` and ``version``, the parts of ``group`` in ``changed`` (each
    with how: ``prose``, ``whitespace``, ``placeholders`` for its body, ``condition``
    for its ``when``) changed while those in ``unchanged`` did not."""

    version: str
    previous: str
    group: str
    changed: tuple[tuple[str, str], ...]
    unchanged: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"version", "previous", "group", "changed": [{"part", "change"}], "unchanged"}``."""
        return {
            "version": self.version,
            "previous": self.previous,
            "group": self.group,
            "changed": [{"part": part, "change": change} for part, change in self.changed],
            "unchanged": list(self.unchanged),
        }


@dataclass(frozen=True, slots=True)
class Variants:
    """The answer of :func:`variants`: for catalog ``catalog`` and agent ``agent``, the
    rows of each version's groups by the values of context field ``by`` (``values``),
    and the drift found between consecutive ``versions``."""

    catalog: str
    agent: str
    by: str
    values: tuple[str, ...]
    versions: tuple[str, ...]
    rows: tuple[GroupRow, ...]
    drift: tuple[Drift, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"catalog", "agent", "by", "values", "versions", "rows",
        "drift"}``."""
        return {
            "catalog": self.catalog,
            "agent": self.agent,
            "by": self.by,
            "values": list(self.values),
            "versions": list(self.versions),
            "rows": [row.to_dict(self.values) for row in self.rows],
            "drift": [drift.to_dict() for drift in self.drift],
        }


def variants(
    catalogs: Sequence[Catalog],
    values: Sequence[str],
    *,
    by: str = "model",
    agent: str = MAIN_AGENT,
    context: Mapping[str, Any] | None = None,
) -> Variants:
    """Which part of each group the context field ``by`` set to each of ``values`` gets
    for ``agent`` in each of ``catalogs`` (versions of one catalog, oldest first), with
    ``context`` for the other fields; and the drift between each version and the one
    before it (see the module docstring)."""
    rows: list[GroupRow] = []
    drift: list[Drift] = []
    before: Catalog | None = None
    for catalog in catalogs:
        rows += _rows(catalog, values, by, agent, dict(context or {}))
        if before is not None:
            drift += _drift(before, catalog)
        before = catalog
    return Variants(
        catalog=catalogs[0].name if catalogs else "",
        agent=agent,
        by=by,
        values=tuple(values),
        versions=tuple(str(catalog.version) for catalog in catalogs),
        rows=tuple(rows),
        drift=tuple(drift),
    )


def _groups(catalog: Catalog, agent: str | None = None) -> dict[str, list[CompiledPart]]:
    """The parts of each group of ``catalog`` (given to ``agent``, when one is named), in
    prompt order."""
    found: dict[str, list[CompiledPart]] = {}
    for part in catalog.parts:
        group = part.decl.group
        if group is not None and (agent is None or part.decl.for_agent(agent)):
            found.setdefault(group, []).append(part)
    return found


def _rows(
    catalog: Catalog, values: Sequence[str], by: str, agent: str, context: dict[str, Any]
) -> list[GroupRow]:
    """The part of each group each value gets in ``catalog``."""
    groups = _groups(catalog, agent)
    if not groups or not values:
        return []
    given: list[set[str]] = []
    for value in values:
        ctx = {**context, by: value}
        prompt = catalog.assemble(ctx, agent)
        ids = {part.id for part in prompt.parts} | {tool.part_id for tool in prompt.tools}
        ids |= {left.id for left in prompt.excluded if left.reason == "empty"}
        ids |= {reminder.id for reminder in catalog.reminders(ctx, agent)}
        given.append(ids)
    version = str(catalog.version)
    return [
        GroupRow(version, group, tuple(_taken(members, ids) for ids in given))
        for group, members in sorted(groups.items())
    ]


def _taken(members: Sequence[CompiledPart], ids: set[str]) -> str | None:
    return next((part.id for part in members if part.id in ids), None)


def _drift(old: Catalog, new: Catalog) -> list[Drift]:
    """The groups of ``new`` of which some parts changed since ``old`` and others did
    not (among the parts of the group in both versions)."""
    previous = {part.id: part for part in old.parts}
    found: list[Drift] = []
    for group, members in sorted(_groups(new).items()):
        changed: list[tuple[str, str]] = []
        unchanged: list[str] = []
        for part in members:
            was = previous.get(part.id)
            if was is None or was.decl.group != group:
                continue
            change = _change(was, part)
            if change is None:
                unchanged.append(part.id)
            else:
                changed.append((part.id, change))
        if changed and unchanged:
            found.append(
                Drift(str(new.version), str(old.version), group, tuple(changed), tuple(unchanged))
            )
    return found


def _change(old: CompiledPart, new: CompiledPart) -> str | None:
    """How a part changed between two versions: its body's class, else ``condition``
    when its ``when`` did; None when neither did."""
    if old.decl.sha256 != new.decl.sha256:
        return text_class(old.body, new.body) or "whitespace"
    if old.decl.when != new.decl.when:
        return "condition"
    return None
