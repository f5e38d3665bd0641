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

Token budgets: the context's ``token_budget`` (else the catalog's) caps the
prompt's tokens, separators included. Over budget, optional parts are dropped
lowest ``priority`` first; among equal priorities the part placed latest in
the prompt goes first, which keeps the cache-stable prefix and drops the most
session-specific text. Each dropped part is excluded with reason ``budget``.
Texts the context supplies (overrides, custom prompt, append) and parts
marked ``required`` are never dropped; when they alone exceed the budget,
:class:`~catalog.errors.BudgetError` gives the prompt's total and the budget
(and, when some parts could have gone, the required ones). A catalog whose
parts are all required (``[defaults.KIND] required = true``) so treats a
prompt over budget as an error, never trimming it.

Token figures are counted when first read, with the catalog's tokenizer
unless ``counter=`` says otherwise (see :mod:`catalog.tokens`): an assembly
without a budget counts nothing.

Everything that does not depend on the context is worked out once:
:func:`plan_agents` turns the compiled parts into one :class:`AgentPlan` per
agent (which parts the agent never gets, which bodies are plain text ready
to copy, the reasons), the shared part when the catalog is compiled and each
agent's own part when its plan is first looked up, so :func:`assemble` only
evaluates conditions and renders bodies. This module knows compiled parts
and plans, not the :class:`~catalog.engine.catalog.Catalog` that holds them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from catalog.engine.definitions import Definition, define
from catalog.engine.prompt import AssembledPrompt, Excluded, Piece, Reminder, Tool
from catalog.errors import BudgetError, CatalogError, ContextError
from catalog.lang.compiler import Expression
from catalog.lang.shapes import close_matches
from catalog.lang.template import Template
from catalog.lang.values import Scope
from catalog.schema.context import CONTROL_FIELDS, Context, coerce_context
from catalog.schema.manifest import MAIN_AGENT, AgentDecl, BindingDecl, PartDecl, fits_type
from catalog.tokens import TokenCounter, get_counter

__all__ = [
    "AgentInfo",
    "AgentPlan",
    "CatalogRules",
    "CompiledPart",
    "PartInfo",
    "assemble",
    "plan_agents",
    "reminders",
]

# The context fields conditions and bodies read; the rest steer assembly.
_CONTEXT_FIELDS = tuple(name for name in Context.model_fields if name not in CONTROL_FIELDS)


@dataclass(frozen=True, slots=True)
class AgentInfo:
    """What conditions and bodies see as ``agent``: the agent being assembled for."""

    name: str
    is_subagent: bool
    description: str = ""
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    critical_reminder: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_decl(cls, decl: AgentDecl | None) -> AgentInfo:
        """The view of a declared sub-agent, or of ``main`` when ``decl`` is None."""
        if decl is None:
            return cls(name=MAIN_AGENT, is_subagent=False)
        return cls(
            name=decl.name,
            is_subagent=True,
            description=decl.description,
            tools=decl.tools,
            skills=decl.skills,
            critical_reminder=decl.critical_reminder,
            meta=decl.meta,
        )


@dataclass(frozen=True, slots=True)
class PartInfo:
    """What a part's own condition and body see as ``part``: its id, name and kind.

    ``name`` is the tool's name for a ``tool`` part, else the id. With it one
    ``[defaults.tool] when`` serves every tool part (``part.name in tools``).
    """

    id: str
    name: str
    kind: str


@dataclass(frozen=True, eq=False, slots=True)
class CompiledPart:
    """One part, ready to assemble: its declaration, body and compiled forms.

    ``missing`` is true only in a catalog loaded without checking its bodies
    (``check_hashes=False``, for :func:`catalog.io.lockfile.verify`) whose body file
    ``path`` does not exist: the body is then empty.
    """

    decl: PartDecl
    body: str
    path: str
    condition: Expression
    template: Template | None
    missing: bool = False

    @property
    def id(self) -> str:
        """The part's id."""
        return self.decl.id

    def render(self, scope: Mapping[str, Any]) -> str:
        """The body with its placeholders and blocks resolved (raw bodies as written)."""
        if self.template is None or self.template.is_static:
            return self.body
        return self.template.render(scope)


@dataclass(frozen=True, eq=False, slots=True)
class CatalogRules:
    """What assembling one catalog version follows besides its parts: its name and
    version for messages, tokenizer, separator, budget, slots, variables (defaults
    and types), ``[[binding]]``s and definitions, all fixed when it is compiled."""

    name: str
    version: str
    tokenizer: str
    separator: str
    token_budget: int | None
    manifest_file: str
    slots: tuple[str, ...]
    defaults: Mapping[str, Any]
    types: Mapping[str, str]
    bindings: tuple[tuple[BindingDecl, Expression | None], ...]
    definitions: tuple[Definition, ...]
    tool_names: frozenset[str]

    def resolve_bindings(self, scope: Mapping[str, Any]) -> dict[str, Any]:
        """The value of every binding under ``scope``: what ``bindings`` holds in bodies."""
        resolved: dict[str, Any] = {}
        for decl, expression in self.bindings:
            resolved[decl.name] = scope.get("files") if expression is None else expression(scope)
        return resolved


@dataclass(frozen=True, slots=True)
class _Step:
    """What assembling one part for one agent needs, worked out once per catalog and agent.

    ``left`` is set when the part can never be used by this agent (another
    agent's part, a reminder). A part whose body has no tags has it in
    ``body`` and, unless it is blank or a tool description, ready to use in
    ``piece``, so assembling only copies it once its condition holds; other
    bodies are rendered by ``render``, their template's closure.
    """

    part: CompiledPart
    kind: str
    order: int
    slot: str | None
    tool_name: str
    left: Excluded | None
    always: bool
    body: str | None
    render: Callable[[Scope], str]
    piece: Piece | None
    why: str
    if_false: Excluded
    if_empty: Excluded
    if_custom: Excluded
    if_overridden: Excluded

    def left_out(self, left: Excluded) -> _Step:
        """This step, with the part left out for ``left``'s reason."""
        return replace(self, left=left)

    def with_text(self, text: str) -> Piece:
        return _piece(self.part.decl, self.why, text)


def _piece(decl: PartDecl, why: str, text: str) -> Piece:
    """The piece of the prompt a part gives with ``text``."""
    return Piece(
        decl.id, decl.kind, decl.order, decl.stability, text, why, decl.required, decl.priority
    )


@dataclass(frozen=True, eq=False, slots=True)
class AgentPlan:
    """Everything an assembly for one agent can work out in advance, built once, the
    first time the agent's plan is looked up (see :func:`plan_agents`)."""

    rules: CatalogRules
    agent: AgentInfo
    steps: tuple[_Step, ...]
    reminders: tuple[CompiledPart, ...]


def plan_agents(
    rules: CatalogRules, agents: Sequence[AgentInfo], parts: Sequence[CompiledPart]
) -> Mapping[str, AgentPlan]:
    """The plan of each of ``agents`` (by name) for ``parts`` (in prompt order).

    What does not depend on the agent is worked out here, once per part, and
    shared by every plan; an agent's own plan only adds why the parts it is not
    given are left out, and is made the first time it is looked up.
    """
    return _Plans(rules, {agent.name: agent for agent in agents}, tuple(_step(p) for p in parts))


class _Plans(Mapping[str, AgentPlan]):
    """Each agent's plan, made when first looked up: a command assembles one agent
    of a catalog's many. The same plan comes back every time, whichever thread
    asks; two threads asking at once may each make it, and one is kept."""

    def __init__(
        self, rules: CatalogRules, agents: Mapping[str, AgentInfo], steps: tuple[_Step, ...]
    ) -> None:
        self._rules = rules
        self._agents = agents
        self._steps = steps
        self._made: dict[str, AgentPlan] = {}

    def __getitem__(self, name: str) -> AgentPlan:
        plan = self._made.get(name)
        if plan is None:
            plan = self._made.setdefault(name, _plan(self._rules, self._agents[name], self._steps))
        return plan

    def __iter__(self) -> Iterator[str]:
        return iter(self._agents)

    def __len__(self) -> int:
        return len(self._agents)


def _plan(rules: CatalogRules, agent: AgentInfo, steps: Sequence[_Step]) -> AgentPlan:
    """``agent``'s plan: the shared steps, with those of parts it is not given left out."""
    name = agent.name
    reasons: dict[tuple[str, ...], str] = {}  # most parts share a few agent lists
    own: list[_Step] = []
    for step in steps:
        decl = step.part.decl
        if step.left is None and not decl.for_agent(name):
            reason = reasons.get(decl.agents)
            if reason is None:
                reason = reasons[decl.agents] = (
                    f"not given to agent {name} ({', '.join(decl.agents)})"
                )
            step = step.left_out((decl.id, decl.kind, "agent", reason))
        own.append(step)
    reminders = tuple(s.part for s in steps if s.kind == "reminder" and s.part.decl.for_agent(name))
    return AgentPlan(rules, agent, tuple(own), reminders)


def _step(part: CompiledPart) -> _Step:
    """The step of ``part`` for an agent it is given to (a reminder is always left out)."""
    decl = part.decl
    ident = (decl.id, decl.kind)
    left: Excluded | None = None
    if decl.kind == "reminder":
        left = (*ident, "channel", "a reminder: see reminders()")
    always = not part.condition.names and bool(part.condition({}))
    body = None
    if part.template is None or part.template.is_static:
        body = _trim(part.body)
    why = "always" if decl.when == "true" else f"when {decl.when!r} is true"
    return _Step(
        part=part,
        kind=decl.kind,
        order=decl.order,
        slot=decl.slot if decl.kind != "tool" else None,
        tool_name=decl.tool_name,
        left=left,
        always=always,
        body=body,
        render=part.render if part.template is None else part.template.render,
        piece=_piece(decl, why, body) if body and decl.kind != "tool" else None,
        why=why,
        if_false=(*ident, "condition", f"when {decl.when!r} is false"),
        if_empty=(*ident, "empty", "rendered blank"),
        if_custom=(*ident, "custom-prompt", "replaced by the custom prompt"),
        if_overridden=(*ident, "overridden", f"slot {decl.slot!r} overridden"),
    )


def assemble(
    plan: AgentPlan,
    context: Context | Mapping[str, Any] | None = None,
    *,
    counter: str | TokenCounter | Callable[[str], int] | None = None,
) -> AssembledPrompt:
    """Assemble for ``plan``'s agent under ``context``; see the module docstring."""
    rules = plan.rules
    ctx = coerce_context(context)
    count = get_counter(counter, tokenizer=rules.tokenizer)
    scope = _scope(plan, ctx)
    _check_overrides(rules, ctx)
    pieces, excluded, tools = _select(plan.steps, ctx, scope)
    pieces += _context_texts(ctx)
    budget = ctx.token_budget or rules.token_budget
    if budget is not None:
        pieces = _fit(plan, ctx, pieces, budget, count, excluded)
    return AssembledPrompt.from_pieces(
        rules.name,
        rules.version,
        plan.agent.name,
        pieces,
        excluded=excluded,
        tools=tools,
        counter=count,
        separator=rules.separator,
        budget=budget,
        notes=_tool_notes(rules, ctx),
    )


def _tool_notes(rules: CatalogRules, ctx: Context) -> tuple[str, ...]:
    """A note for each enabled tool the catalog knows nothing of: most likely a typo."""
    notes = []
    for name in ctx.tools:
        if name in rules.tool_names or name in ctx.tool_info:
            continue
        close = close_matches(name, rules.tool_names, n=1)
        guess = f"; did you mean {close[0]!r}?" if close else ""
        notes.append(
            f"tool {name!r} matches no part and no agent's tools of {rules.name} "
            f"{rules.version}{guess}"
        )
    return tuple(notes)


def _scope(plan: AgentPlan, context: Context) -> dict[str, Any]:
    """What conditions and bodies read: the context, ``agent``, the variables (the
    context's over their defaults), the definitions and the bindings."""
    rules = plan.rules
    scope: dict[str, Any] = {name: getattr(context, name) for name in _CONTEXT_FIELDS}
    scope["agent"] = plan.agent
    scope.update(rules.defaults)
    for name, value in context.variables.items():
        declared = rules.types.get(name)
        if declared is None:
            known = ", ".join(sorted(rules.defaults)) or "none"
            raise ContextError(
                f"unknown variable {name!r} for catalog {rules.name}",
                key=f"variables.{name}",
                hint=f"declared variables: {known}",
            )
        if not fits_type(value, declared):
            raise ContextError(
                f"variable {name!r} must be of type {declared}, got {value!r}",
                key=f"variables.{name}",
            )
        scope[name] = tuple(value) if declared == "list" else value
    define(rules.definitions, scope)
    if rules.bindings:
        scope["bindings"] = rules.resolve_bindings(scope)
    return scope


def _check_overrides(rules: CatalogRules, context: Context) -> None:
    for slot in context.overrides:
        if slot not in rules.slots:
            known = ", ".join(rules.slots) or "none"
            raise ContextError(
                f"catalog {rules.name} has no slot {slot!r}",
                key=f"overrides.{slot}",
                hint=f"slots of this catalog: {known}",
            )


def _select(
    steps: Sequence[_Step], ctx: Context, scope: Scope
) -> tuple[list[Piece], list[Excluded], list[Tool]]:
    """Walk the plan: the pieces of the prompt, the parts left out and the tools."""
    pieces: list[Piece] = []
    excluded: list[Excluded] = []
    tools: list[Tool] = []
    done_slots: set[str] = set()
    overrides = ctx.overrides
    custom = ctx.custom_prompt is not None
    for step in steps:
        if step.left is not None:
            excluded.append(step.left)
        elif custom and step.kind != "tool":
            excluded.append(step.if_custom)
        elif step.slot is not None and step.slot in overrides:
            if step.slot not in done_slots:
                done_slots.add(step.slot)
                pieces += _override(step, overrides[step.slot])
            excluded.append(step.if_overridden)
        elif not step.always and not _evaluate(step.part, scope):
            excluded.append(step.if_false)
        elif step.piece is not None:
            pieces.append(step.piece)
        else:
            body = step.body if step.body is not None else _render(step.part, step.render, scope)
            if not body:
                excluded.append(step.if_empty)
            elif step.kind == "tool":
                tools.append((step.tool_name, body, step.part.id))
            else:
                pieces.append(step.with_text(body))
    return pieces, excluded, tools


def _override(step: _Step, text: str) -> list[Piece]:
    """The context's text for the slot of ``step``, placed where that slot's first part stood."""
    text = _trim(text)
    if not text:
        return []
    why = f"slot {step.slot!r} replaced by the context"
    return [Piece(f"override:{step.slot}", step.kind, step.order, "session", text, why)]


def _context_texts(ctx: Context) -> list[Piece]:
    """The custom prompt and the appended text the context supplies, when not blank."""
    found = []
    custom = _trim(ctx.custom_prompt or "")
    if custom:
        why = "custom prompt from the context"
        found.append(Piece("context:custom-prompt", "system", 0, "session", custom, why))
    append = _trim(ctx.append or "")
    if append:
        why = "appended by the context"
        found.append(Piece("context:append", "system", 1 << 31, "session", append, why))
    return found


def _evaluate(part: CompiledPart, scope: Scope) -> bool:
    try:
        return bool(part.condition.evaluate(scope))
    except CatalogError as exc:
        raise exc.located(file=part.path, key=f"part {part.id!r} when") from None


def _render(part: CompiledPart, render: Callable[[Scope], str], scope: Scope) -> str:
    try:
        return _trim(render(scope))
    except CatalogError as exc:
        raise exc.located(file=part.path, key=f"part {part.id!r}") from None


def _trim(text: str) -> str:
    return text.lstrip("\n").rstrip()


def _fit(
    plan: AgentPlan,
    ctx: Context,
    pieces: list[Piece],
    budget: int,
    count: TokenCounter,
    excluded: list[Excluded],
) -> list[Piece]:
    """Drop optional pieces until the prompt fits ``budget``; see the module docstring."""
    rules = plan.rules
    sizes = [count(p.text) for p in pieces]
    gap = count(rules.separator)

    def total(kept: list[int]) -> int:
        return sum(sizes[i] for i in kept) + gap * max(len(kept) - 1, 0)

    kept = list(range(len(pieces)))
    if total(kept) <= budget:
        return pieces
    required = [i for i in kept if pieces[i].required]
    need = total(required)
    if need > budget:
        whole = total(kept)
        if len(required) == len(kept):  # nothing may go: the prompt itself is over
            problem = (
                f"the system prompt is {whole} {count.name} tokens, {whole - budget} over the "
                f"budget of {budget}; none of its parts may be dropped"
            )
            hint = (
                "raise the budget or shorten the prompt (`catalog tokens` shows where its "
                "tokens go); a catalog lets a part go under a budget with `required = false`"
            )
        else:
            names = ", ".join(f"{pieces[i].id} ({sizes[i]})" for i in required)
            problem = (
                f"the system prompt is {whole} {count.name} tokens; its required parts alone "
                f"need {need} {count.name} tokens, {need - budget} over the budget of {budget}; "
                f"required: {names}"
            )
            hint = "raise the budget, shorten those parts, or let some go with `required = false`"
        from_context = ctx.token_budget is not None
        raise BudgetError(
            f"catalog {rules.name} {rules.version}, agent {plan.agent.name}: {problem}",
            file=None if from_context else rules.manifest_file,
            key="token_budget" if from_context else "catalog.token_budget",
            hint=hint,
        )
    by_priority = sorted(
        (i for i in kept if not pieces[i].required), key=lambda i: (pieces[i].priority, -i)
    )
    for index in by_priority:
        if total(kept) <= budget:
            break
        kept.remove(index)
        piece = pieces[index]
        excluded.append(
            (
                piece.id,
                piece.kind,
                "budget",
                f"dropped to fit the token budget of {budget} "
                f"(priority {piece.priority}, {sizes[index]} tokens)",
            )
        )
    return [pieces[i] for i in kept]


def reminders(
    plan: AgentPlan, context: Context | Mapping[str, Any] | None = None
) -> tuple[Reminder, ...]:
    """The ``reminder`` parts of ``plan``'s agent whose conditions hold, rendered, in order."""
    scope = _scope(plan, coerce_context(context))
    found = []
    for part in plan.reminders:
        if _evaluate(part, scope):
            text = _render(part, part.render, scope)
            if text:
                found.append(Reminder(part.id, text, part.decl.order))
    return tuple(found)
