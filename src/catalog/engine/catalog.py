"""One compiled, immutable catalog version: what loading returns and what assembles.

:func:`catalog.engine.compile.compile_catalog` builds it; the compiled parts
and plans it holds live below, in :mod:`catalog.engine.plan`, and the assembly
it offers as methods in :mod:`catalog.engine.assemble`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from packaging.version import Version

from catalog.engine.assemble import assemble, reminders
from catalog.engine.definitions import define
from catalog.engine.plan import AgentInfo, AgentPlan, CatalogRules, CompiledPart
from catalog.engine.prompt import AssembledPrompt, Reminder
from catalog.engine.telemetry import record_prompt
from catalog.errors import NotFoundError
from catalog.lang.placeholders import unbound_names
from catalog.schema.context import Context
from catalog.schema.manifest import MAIN_AGENT, BindingDecl, Manifest
from catalog.text.suggest import did_you_mean, guess
from catalog.tokens import TokenCounter

__all__ = ["Catalog"]


@dataclass(frozen=True, eq=False, slots=True)
class Catalog:
    """One compiled catalog version: immutable, and assembling does no I/O.

    ``rules`` and the per-agent ``plans`` are built by :func:`compile_catalog`
    from the manifest and the parts (an agent's plan when first looked up: it
    is the same object every time); ``version`` is parsed once, from the
    manifest. ``manifest_file`` and ``manifest_text`` are the manifest as it was
    read (LF line endings), so checks and errors can point at its lines.
    """

    manifest: Manifest
    parts: tuple[CompiledPart, ...]
    rules: CatalogRules = field(repr=False)
    plans: Mapping[str, AgentPlan] = field(repr=False)
    location: str
    source: str = "path"
    manifest_file: str = ""
    manifest_text: str = field(default="", repr=False)
    version: Version = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "version", Version(self.manifest.catalog.version))

    @property
    def name(self) -> str:
        """The catalog's name (``[catalog] name``)."""
        return self.manifest.catalog.name

    @property
    def summary(self) -> str:
        """The one-line description of the catalog."""
        return self.manifest.catalog.summary

    @property
    def separator(self) -> str:
        """The text placed between parts."""
        return self.manifest.catalog.separator

    @property
    def agents(self) -> tuple[str, ...]:
        """``main`` and every declared sub-agent."""
        return self.manifest.agent_names

    @property
    def slots(self) -> tuple[str, ...]:
        """The slot names parts declare, sorted."""
        return self.rules.slots

    @property
    def variables(self) -> Mapping[str, Any]:
        """Declared variable names and their defaults."""
        return self.rules.defaults

    @property
    def variable_types(self) -> Mapping[str, str]:
        """Declared variable names and their types (``bool``, ``int``, ``list``...)."""
        return self.rules.types

    @property
    def bindings(self) -> tuple[BindingDecl, ...]:
        """The ``type:name`` bindings a user's bracket template may use (``[[binding]]``)."""
        return tuple(decl for decl, _ in self.rules.bindings)

    def resolve_bindings(self, scope: Mapping[str, Any]) -> dict[str, Any]:
        """The value of every binding under ``scope``: what ``bindings`` holds in bodies."""
        return self.rules.resolve_bindings(scope)

    @property
    def tool_names(self) -> frozenset[str]:
        """Every tool name the catalog knows: tool parts, agents' tools and every text
        tested against the enabled tools (:func:`~catalog.engine.tools.known_tools`);
        what the playground offers as toggles and what a misspelt enabled tool is
        caught against."""
        return self.rules.tool_names

    def unbound_placeholders(
        self, part_ids: Collection[str] | None = None
    ) -> dict[str, tuple[str, ...]]:
        """The placeholders that are names (``${NAME}``, or as the part's ``placeholders``
        says) of raw parts (``template = false``) that
        ``[placeholders]`` leaves as written: name -> the ids of the parts holding it
        (of ``part_ids`` only, when given)."""
        found: dict[str, list[str]] = {}
        for part in self.parts:
            if part.decl.template or (part_ids is not None and part.id not in part_ids):
                continue
            for name in unbound_names(
                part.body, self.manifest.placeholders, part.decl.placeholder_syntax
            ):
                found.setdefault(name, []).append(part.id)
        return {name: tuple(ids) for name, ids in found.items()}

    @property
    def definitions(self) -> tuple[str, ...]:
        """The names of ``[definitions]`` and ``[lines]``, in evaluation order."""
        return tuple(d.name for d in self.rules.definitions)

    def resolve_definitions(self, scope: MutableMapping[str, Any]) -> None:
        """Evaluate the definitions and lines lists into ``scope``, in order."""
        define(self.rules.definitions, scope)

    def part(self, part_id: str) -> CompiledPart:
        """The part with this id."""
        for part in self.parts:
            if part.id == part_id:
                return part
        close = guess(part_id, (part.id for part in self.parts))
        raise NotFoundError(
            f"catalog {self.name} {self.version} has no part {part_id!r}",
            hint=f"{close} `catalog show` lists the parts".lstrip(),
        )

    def plan(self, agent: str) -> AgentPlan:
        """The assembly plan of a main or sub-agent name."""
        try:
            return self.plans[agent]
        except KeyError:
            raise NotFoundError(
                f"catalog {self.name} {self.version} has no agent {agent!r}",
                hint=did_you_mean(agent, self.agents, what="agents"),
            ) from None

    def agent_info(self, agent: str) -> AgentInfo:
        """The ``agent`` view for a main or sub-agent name."""
        return self.plan(agent).agent

    def assemble(
        self,
        context: Context | Mapping[str, Any] | None = None,
        agent: str = MAIN_AGENT,
        *,
        counter: str | TokenCounter | Callable[[str], int] | None = None,
    ) -> AssembledPrompt:
        """Select, order, render and join the parts for ``agent`` under ``context``; the
        prompt's identity goes on the current OpenTelemetry span, if one records
        (:mod:`catalog.engine.telemetry`)."""
        prompt = assemble(self.plan(agent), context, counter=counter)
        record_prompt(prompt)
        return prompt

    def reminders(
        self, context: Context | Mapping[str, Any] | None = None, agent: str = MAIN_AGENT
    ) -> tuple[Reminder, ...]:
        """The reminder texts whose conditions hold, to append to a user message."""
        return reminders(self.plan(agent), context)

    def __repr__(self) -> str:
        return (
            f"<Catalog {self.name} {self.version} ({len(self.parts)} parts) from {self.location}>"
        )
