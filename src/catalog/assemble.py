"""Assembly: select -> order -> render -> join, for a main agent or a sub-agent.

Parts are taken in the catalog's order: ``order``, then ``id`` as the
tie-break (so the order never depends on how a manifest file is laid out).
A part is used when it is given to the agent, its slot is not overridden, its
condition holds and its rendered body is not blank. ``tool`` parts go to the
tools array instead of the text; ``reminder`` parts are served separately by
:func:`reminders`. Every part ends up either used or excluded with a reason.

The three override modes of a context:

* ``overrides[slot]``: the parts of that slot given to the agent are replaced
  by the context's text, placed where the first of them stood;
* ``custom_prompt``: no assembly at all, the text is the custom prompt;
* ``append``: text added after everything else (preset + append).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from catalog.context import CONTROL_FIELDS, Context, coerce_context
from catalog.errors import CatalogError, ContextError
from catalog.manifest import MAIN_AGENT, fits_type
from catalog.tokens import TokenCounter, get_counter

if TYPE_CHECKING:
    from catalog.compiled import Catalog, CompiledPart

__all__ = [
    "AssembledPrompt",
    "ExcludedPart",
    "ExclusionReason",
    "Reminder",
    "ToolDescription",
    "UsedPart",
    "assemble",
    "reminders",
]

ExclusionReason = Literal["agent", "condition", "empty", "overridden", "custom-prompt", "channel"]

# The context fields conditions and bodies read; the rest steer assembly.
_CONTEXT_FIELDS = tuple(name for name in Context.model_fields if name not in CONTROL_FIELDS)


@dataclass(frozen=True)
class UsedPart:
    """A part (or a context-supplied text) that made it into the prompt."""

    id: str
    kind: str
    order: int
    stability: str
    tokens: int
    why: str
    start: int
    end: int


@dataclass(frozen=True)
class ExcludedPart:
    """A part left out, with the reason code and a sentence saying why."""

    id: str
    kind: str
    reason: ExclusionReason
    why: str


@dataclass(frozen=True)
class ToolDescription:
    """A tool description for the tools array of a request."""

    name: str
    description: str
    part_id: str
    tokens: int


@dataclass(frozen=True)
class Reminder:
    """A reminder text to append to a user message."""

    id: str
    text: str
    order: int


@dataclass(frozen=True)
class AssembledPrompt:
    """The result of an assembly. Immutable; derived values are computed on first use."""

    catalog: str
    version: str
    agent: str
    text: str
    tools: tuple[ToolDescription, ...]
    parts: tuple[UsedPart, ...]
    excluded: tuple[ExcludedPart, ...]
    static_prefix_length: int
    counter: str
    _meta: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def fingerprint(self) -> str:
        """sha256 of the text: equal fingerprints mean byte-identical prompts."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def static_prefix(self) -> str:
        """The leading text made only of ``static`` parts: the cache-stable prefix."""
        return self.text[: self.static_prefix_length]

    @property
    def tokens(self) -> int:
        """Tokens of the used parts, as counted by :attr:`counter`."""
        return sum(p.tokens for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with stable keys (see the README for their meaning)."""
        return {
            "catalog": self.catalog,
            "version": self.version,
            "agent": self.agent,
            "fingerprint": self.fingerprint,
            "counter": self.counter,
            "tokens": self.tokens,
            "static_prefix_length": self.static_prefix_length,
            "text": self.text,
            "parts": [_asdict(p) for p in self.parts],
            "excluded": [_asdict(p) for p in self.excluded],
            "tools": [_asdict(t) for t in self.tools],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def explain(self) -> str:
        """A table of every part: in or out, why, and what it costs."""
        rows = [
            f"{self.catalog} {self.version}, agent {self.agent}: {self.tokens} tokens "
            f"({self.counter}), fingerprint {self.fingerprint[:12]}"
        ]
        for used in self.parts:
            rows.append(f"  + {used.id:<28} {used.tokens:>6}  {used.why}")
        for tool in self.tools:
            rows.append(f"  T {tool.name:<28} {tool.tokens:>6}  tool description ({tool.part_id})")
        for left in self.excluded:
            rows.append(f"  - {left.id:<28} {'':>6}  {left.why}")
        return "\n".join(rows)


def _asdict(item: Any) -> dict[str, Any]:
    return {name: getattr(item, name) for name in item.__dataclass_fields__}


def _scope(catalog: Catalog, context: Context, agent: str) -> dict[str, Any]:
    scope: dict[str, Any] = {name: getattr(context, name) for name in _CONTEXT_FIELDS}
    scope["agent"] = catalog.agent_info(agent)
    scope.update(catalog.variables)
    for name, value in context.variables.items():
        declared = catalog.variable_types.get(name)
        if declared is None:
            known = ", ".join(sorted(catalog.variables)) or "none"
            raise ContextError(
                f"unknown variable {name!r} for catalog {catalog.name}",
                key=f"variables.{name}",
                hint=f"declared variables: {known}",
            )
        if not fits_type(value, declared):
            raise ContextError(
                f"variable {name!r} must be of type {declared}, got {value!r}",
                key=f"variables.{name}",
            )
        scope[name] = tuple(value) if declared == "list" else value
    if catalog.bindings:
        scope["bindings"] = catalog.resolve_bindings(scope)
    return scope


def _check_overrides(catalog: Catalog, context: Context) -> None:
    for slot in context.overrides:
        if slot not in catalog.slots:
            known = ", ".join(catalog.slots) or "none"
            raise ContextError(
                f"catalog {catalog.name} has no slot {slot!r}",
                key=f"overrides.{slot}",
                hint=f"slots of this catalog: {known}",
            )


def _evaluate(part: CompiledPart, scope: Mapping[str, Any]) -> bool:
    try:
        return bool(part.condition(scope))
    except CatalogError as exc:
        raise exc.located(file=part.path, key=f"part {part.id!r} when") from None


def _render(part: CompiledPart, scope: Mapping[str, Any]) -> str:
    try:
        return _trim(part.render(scope))
    except CatalogError as exc:
        raise exc.located(file=part.path, key=f"part {part.id!r}") from None


def _trim(text: str) -> str:
    return text.lstrip("\n").rstrip()


def assemble(
    catalog: Catalog,
    context: Context | Mapping[str, Any] | None = None,
    agent: str = MAIN_AGENT,
    *,
    counter: str | TokenCounter | Callable[[str], int] | None = None,
) -> AssembledPrompt:
    """Assemble ``catalog`` for ``agent`` under ``context``; see the module docstring."""
    ctx = coerce_context(context)
    count = get_counter(counter)
    scope = _scope(catalog, ctx, agent)
    _check_overrides(catalog, ctx)
    separator = catalog.separator
    texts: list[str] = []
    used: list[UsedPart] = []
    excluded: list[ExcludedPart] = []
    tools: list[ToolDescription] = []
    position = 0
    static_prefix = 0
    in_static_prefix = True
    done_slots: set[str] = set()

    def add(part_id: str, kind: str, order: int, stability: str, text: str, why: str) -> None:
        nonlocal position, static_prefix, in_static_prefix
        if texts:
            position += len(separator)
        start = position
        position += len(text)
        texts.append(text)
        used.append(UsedPart(part_id, kind, order, stability, count(text), why, start, position))
        if in_static_prefix and stability == "static":
            static_prefix = position
        else:
            in_static_prefix = False

    custom = ctx.custom_prompt is not None
    for part in catalog.parts:
        decl = part.decl
        if decl.kind == "reminder":
            excluded.append(
                ExcludedPart(decl.id, decl.kind, "channel", "a reminder: see reminders()")
            )
            continue
        if not decl.for_agent(agent):
            who = ", ".join(decl.agents)
            excluded.append(
                ExcludedPart(decl.id, decl.kind, "agent", f"not given to agent {agent} ({who})")
            )
            continue
        if custom and decl.kind != "tool":
            excluded.append(
                ExcludedPart(decl.id, decl.kind, "custom-prompt", "replaced by the custom prompt")
            )
            continue
        slot = decl.slot
        if slot is not None and slot in ctx.overrides and decl.kind != "tool":
            if slot not in done_slots:
                done_slots.add(slot)
                text = _trim(ctx.overrides[slot])
                if text:
                    add(
                        f"override:{slot}",
                        decl.kind,
                        decl.order,
                        "session",
                        text,
                        f"slot {slot!r} replaced by the context",
                    )
            excluded.append(
                ExcludedPart(decl.id, decl.kind, "overridden", f"slot {slot!r} overridden")
            )
            continue
        if not _evaluate(part, scope):
            excluded.append(
                ExcludedPart(decl.id, decl.kind, "condition", f"when {decl.when!r} is false")
            )
            continue
        body = _render(part, scope)
        if not body:
            excluded.append(ExcludedPart(decl.id, decl.kind, "empty", "rendered blank"))
            continue
        why = "always" if decl.when == "true" else f"when {decl.when!r} is true"
        if decl.kind == "tool":
            tools.append(ToolDescription(decl.tool_name, body, decl.id, count(body)))
        else:
            add(decl.id, decl.kind, decl.order, decl.stability, body, why)
    if custom:
        text = _trim(ctx.custom_prompt or "")
        if text:
            add("custom-prompt", "system", 0, "session", text, "custom prompt from the context")
    if ctx.append is not None and _trim(ctx.append):
        add("append", "system", 1 << 31, "session", _trim(ctx.append), "appended by the context")
    return AssembledPrompt(
        catalog=catalog.name,
        version=str(catalog.version),
        agent=agent,
        text=separator.join(texts),
        tools=tuple(tools),
        parts=tuple(used),
        excluded=tuple(excluded),
        static_prefix_length=static_prefix,
        counter=count.name,
    )


def reminders(
    catalog: Catalog,
    context: Context | Mapping[str, Any] | None = None,
    agent: str = MAIN_AGENT,
) -> tuple[Reminder, ...]:
    """The ``reminder`` parts for ``agent`` whose conditions hold, rendered, in order."""
    ctx = coerce_context(context)
    scope = _scope(catalog, ctx, agent)
    found = []
    for part in catalog.parts:
        decl = part.decl
        if decl.kind != "reminder" or not decl.for_agent(agent) or not _evaluate(part, scope):
            continue
        text = _render(part, scope)
        if text:
            found.append(Reminder(decl.id, text, decl.order))
    return tuple(found)
