"""Groups of alternatives: of the parts sharing a ``group``, an assembly takes one.

The parts of one group are alternatives (one system prompt per model family,
one tool description per provider): an assembly takes the first of them, in
prompt order, whose condition holds, and leaves out every other. A group whose
last part always holds has a fallback. Three pieces serve this:

- :func:`check_groups`, at load time: the parts of a group must be of one kind
  and slot (one tool, for tool parts), each must share an agent with another,
  and none may come after a part of its group that always holds (it could
  never be taken);
- :func:`alternative`, in a plan: a group part's condition, which holds only
  while no part of its group has been taken, and takes the group when it holds.
  What each assembly has taken lives in its scope under :data:`TAKEN`, a key
  no name in a condition or body can spell;
- :func:`retell`, after an assembly's walk: the parts left out because another
  of their group was taken say so, naming that part.

A catalog without groups never reaches the last two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from catalog.engine.prompt import ExcludedPart
from catalog.errors import ManifestError
from catalog.lang.values import Run, Scope
from catalog.schema.manifest import ALL_AGENTS, PartDecl

__all__ = ["TAKEN", "Alternative", "Place", "alternative", "check_groups", "retell"]

TAKEN: Final = "groups taken"
"""The key of an assembly's scope holding what each group has taken (group -> part id);
it holds a space, so no condition or body can read it."""

Place = tuple[str, int]
"""A group part's group and its place in the prompt order."""


@dataclass(frozen=True, slots=True)
class Alternative:
    """A part with a group, as the load-time check sees it: its declaration (its
    kind's defaults applied), its index among the manifest's parts (for the line
    an error names) and whether its condition holds whatever the context."""

    decl: PartDecl
    index: int
    always: bool


def check_groups(parts: Sequence[Alternative]) -> None:
    """Refuse a group that cannot work: see the module docstring. ``parts`` are in
    prompt order; an error names the part's ``group`` key."""
    by_group: dict[str, list[Alternative]] = {}
    for part in parts:
        if part.decl.group is not None:
            by_group.setdefault(part.decl.group, []).append(part)
    for group, members in by_group.items():
        first = members[0].decl
        for member in members[1:]:
            _same_place(group, first, member)
        alone = _alone(members) if len(members) > 1 else None
        if alone is not None:
            raise _error(
                alone,
                f"part {alone.decl.id!r} of group {group!r} is given to "
                f"{', '.join(alone.decl.agents)}, which no other part of its group is given "
                "to: it is never an alternative to them",
                "give it the agents its alternatives have, or leave out its `group`",
            )
        _all_reachable(group, members)


def _error(member: Alternative, problem: str, hint: str) -> ManifestError:
    return ManifestError(problem, key=("part", member.index, "group"), hint=hint)


def _same_place(group: str, first: PartDecl, member: Alternative) -> None:
    """``member`` stands where the group's first part stands: the same kind, slot and tool."""
    decl = member.decl
    hint = "the parts of a group are alternatives for one place in the prompt"
    if decl.kind != first.kind:
        raise _error(
            member,
            f"part {decl.id!r} is a {decl.kind} part, but {first.id!r} of its group "
            f"{group!r} is a {first.kind} part",
            f"{hint}: give them one kind, or put them in different groups",
        )
    if decl.slot != first.slot:
        raise _error(
            member,
            f"part {decl.id!r} has {_slot(decl.slot)}, but {first.id!r} of its group "
            f"{group!r} has {_slot(first.slot)}",
            f"{hint}: give them one slot, or put them in different groups",
        )
    if decl.kind == "tool" and decl.name != first.name:
        raise _error(
            member,
            f"part {decl.id!r} describes tool {decl.name!r}, but {first.id!r} of its group "
            f"{group!r} describes tool {first.name!r}",
            "a group of tool parts holds alternative descriptions of one tool",
        )


def _slot(slot: str | None) -> str:
    return "no slot" if slot is None else f"slot {slot!r}"


def _alone(members: Sequence[Alternative]) -> Alternative | None:
    """The first of ``members`` given to no agent another member is given to (``*``
    meaning every agent), in one pass over their agents."""
    having: dict[str, int] = {}
    for member in members:
        for agent in set(member.decl.agents):
            having[agent] = having.get(agent, 0) + 1
    everyone = having.get(ALL_AGENTS, 0)
    for member in members:
        agents = set(member.decl.agents)
        if ALL_AGENTS in agents or everyone > 0:
            continue  # given to every agent, or another member is
        if not any(having[agent] > 1 for agent in agents):
            return member
    return None


def _all_reachable(group: str, members: Sequence[Alternative]) -> None:
    """No part comes after parts of its group that always hold for all of its agents."""
    covered: set[str] = set()
    fallback = ""
    for member in members:
        agents = member.decl.agents
        if fallback and (ALL_AGENTS in covered or covered.issuperset(agents)):
            raise _error(
                member,
                f"part {member.decl.id!r} of group {group!r} can never be taken: "
                f"{fallback!r} comes before it and always holds",
                "a group's fallback (a part whose condition always holds) comes last: "
                "give it a larger `order`, or give it a condition",
            )
        if member.always:
            covered.update(agents)
            fallback = member.decl.id


def alternative(condition: Run | None, group: str, ident: str) -> Run:
    """The condition of the part ``ident`` of ``group`` (``condition`` its own, None
    when it always holds): false once its group is taken, else its own, taking the
    group for the part when it holds."""

    def holds(scope: Scope) -> bool:
        taken = scope[TAKEN]
        if group in taken:
            return False
        if condition is None or condition(scope):
            taken[group] = ident
            return True
        return False

    return holds


def retell(
    excluded: list[ExcludedPart], taken: Mapping[str, str], places: Mapping[str, Place]
) -> list[ExcludedPart]:
    """``excluded`` with each group part left out after its group's taken part (by
    ``places``) saying which part took the group."""
    if not taken:
        return excluded
    told: list[ExcludedPart] = []
    for left in excluded:
        place = places.get(left.id)
        if place is not None and left.reason == "condition":
            group, index = place
            taker = taken.get(group)
            if taker is not None and index > places[taker][1]:
                left = ExcludedPart(left.id, left.kind, "group", f"group {group}: taken by {taker}")
        told.append(left)
    return told
