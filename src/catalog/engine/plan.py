"""Compiled parts and the plan of each agent: what assembling can work out in advance.

:func:`plan_agents` turns a catalog's compiled parts into one
:class:`AgentPlan` per agent. What does not depend on the agent is worked out
once per part when the catalog is compiled; an agent's own plan is made the
first time it is looked up, and specialised to that agent by partial
evaluation:

- ``part``, ``agent`` and the definitions that read nothing else are fixed
  for the plan, so they are substituted into each condition and body that
  reads them and everything they decide is computed then
  (:mod:`catalog.lang.compiler`): the tool parts' shared
  ``part.name in tools and (not agent.is_subagent or part.name in
  agent.tools)`` becomes ``"Bash" in tools`` for the main agent;
- a condition that becomes constant is not evaluated again: a part it
  excludes is left out of the steps an ordinary assembly walks (with its
  reason recorded in its place), and a body that becomes constant is text
  ready to copy;
- what is left to render is remembered by the values it reads
  (:mod:`catalog.lang.memo`).

Overrides and a custom prompt replace parts whatever their conditions say,
so an assembly that has them walks every step the agent is given. A plan
made with ``specialise=False`` substitutes nothing, computes nothing in
advance and remembers nothing: the reference the tests hold the specialised
plans to.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from catalog.engine.definitions import Definition, Locate
from catalog.engine.groups import Place, alternative
from catalog.engine.prompt import Chosen, ExcludedPart, Origin, ToolDescription
from catalog.errors import CatalogError
from catalog.lang.compiler import Expression, ExpressionCache, compile_expression
from catalog.lang.memo import remember
from catalog.lang.shapes import Shape
from catalog.lang.template import Template, compile_template
from catalog.lang.values import Run, Scope
from catalog.schema.context import CONTROL_FIELDS, Context
from catalog.schema.manifest import MAIN_AGENT, AgentDecl, BindingDecl, PartDecl

__all__ = [
    "CONTEXT_NAMES",
    "TO_EXCLUDED",
    "TO_PIECES",
    "TO_TOOLS",
    "AgentInfo",
    "AgentPlan",
    "CatalogRules",
    "CompiledPart",
    "Made",
    "Member",
    "PartInfo",
    "Reads",
    "Step",
    "Walk",
    "plan_agents",
    "trim",
]

_NO_SCOPE: Final[Scope] = types.MappingProxyType({})
CONTEXT_NAMES: Final = tuple(name for name in Context.model_fields if name not in CONTROL_FIELDS)
"""The context fields conditions and bodies read; the rest steer assembly."""


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

    @classmethod
    def of(cls, decl: PartDecl) -> PartInfo:
        """The view of the part ``decl`` declares."""
        return cls(decl.id, decl.tool_name, decl.kind)


@dataclass(frozen=True, eq=False, slots=True)
class CompiledPart:
    """One part, ready to assemble: its declaration, body and compiled forms.

    ``condition`` and ``template`` are compiled for every agent, with ``part``
    bound when they read it. ``missing`` is true only in a catalog loaded
    without checking its bodies (``check_hashes=False``, for
    :func:`catalog.io.lockfile.verify`) whose body file ``path`` does not exist:
    the body is then empty.
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
    version for messages, tokenizer, separator, budget (``locate`` places an error in the
    manifest, at its line), slots, variables (defaults
    and types), ``[[binding]]``s and definitions, all fixed when it is compiled; and
    the names conditions and bodies may read (with their shapes), to specialise them."""

    name: str
    version: str
    tokenizer: str
    separator: str
    token_budget: int | None
    locate: Locate
    slots: tuple[str, ...]
    defaults: Mapping[str, Any]
    types: Mapping[str, str]
    bindings: tuple[tuple[BindingDecl, Expression | None], ...]
    definitions: tuple[Definition, ...]
    tool_names: frozenset[str]
    names: Mapping[str, Shape] = field(default_factory=dict)

    def resolve_bindings(self, scope: Mapping[str, Any]) -> dict[str, Any]:
        """The value of every binding under ``scope``: what ``bindings`` holds in bodies."""
        resolved: dict[str, Any] = {}
        for decl, expression in self.bindings:
            resolved[decl.name] = scope.get("files") if expression is None else expression(scope)
        return resolved


Made = Chosen | ToolDescription
"""What a part gives an assembly: a piece of the prompt (a reminder's too), or a tool
description."""


@dataclass(frozen=True, slots=True)
class Step:
    """What assembling one part for one agent needs.

    ``condition`` is None when the part's condition holds whatever the context.
    ``give`` gives what the part gives under a scope (None when its body renders
    blank); when that is known without a context, ``known`` is set and ``made``
    holds it. ``reads`` names what the condition and the body read from the
    scope. ``before`` holds the parts left out for good just before this one in
    the prompt order, with their reasons. ``member`` is ``(value, name)`` when
    the condition holds exactly when the known value is in that name (``"Read"
    in tools``). In a plan's usual walk, a step whose piece is used whatever the
    context carries it in ``pieces``, with those of such steps that follow it
    directly; and a run of steps whose bodies are known and whose conditions test
    one name is one step whose ``members`` are those steps (:class:`Member`).
    """

    part: CompiledPart
    kind: str
    order: int
    slot: str | None
    tool_name: str
    condition: Run | None
    known: bool
    made: Made | None
    give: Callable[[Scope], Made | None]
    reads: frozenset[str]
    why: str
    if_false: ExcludedPart
    if_empty: ExcludedPart
    if_custom: ExcludedPart
    if_overridden: ExcludedPart
    before: tuple[ExcludedPart, ...] = ()
    pieces: tuple[Chosen, ...] = ()
    member: tuple[object, str] | None = None
    members: tuple[Member, ...] = ()


TO_PIECES: Final = 0
TO_TOOLS: Final = 1
TO_EXCLUDED: Final = 2


@dataclass(frozen=True, slots=True)
class Member:
    """One step of a batch whose conditions test one name (:attr:`Step.members`):
    the ``value`` looked for in that name and, when it is there, what the step
    gives (``given``) and where that goes (``to``: :data:`TO_PIECES`,
    :data:`TO_TOOLS`, or :data:`TO_EXCLUDED` for a body that renders blank),
    worked out with the plan so that the batch's walk only looks values up."""

    value: object
    step: Step
    to: int
    given: Made | ExcludedPart

    @classmethod
    def of(cls, value: object, step: Step) -> Member:
        """The member for ``step`` (whose body is known) looking for ``value``."""
        made = step.made
        if made is None:
            return cls(value, step, TO_EXCLUDED, step.if_empty)
        return cls(value, step, TO_PIECES if isinstance(made, tuple) else TO_TOOLS, made)


def _giving(
    decl: PartDecl, why: str, render: Callable[[Scope], str]
) -> Callable[[Scope], Made | None]:
    """What the part of ``decl`` gives with the body ``render`` renders, trimmed."""
    ident, tool = decl.id, decl.tool_name
    origin = Origin(ident, decl.kind, decl.order, decl.stability, why, decl.required, decl.priority)
    is_tool = decl.kind == "tool"

    def give(scope: Scope) -> Made | None:
        text = trim(render(scope))
        if not text:
            return None
        if is_tool:
            return ToolDescription(tool, text, ident)
        return (origin, text)

    return give


def _size(made: Made | None) -> int:
    """The characters of what a part gives, to bound how much is remembered."""
    if made is None:
        return 0
    return len(made[1] if isinstance(made, tuple) else made.description)


@dataclass(frozen=True, slots=True)
class Walk:
    """The steps an assembly walks, in prompt order, and the parts left out for good
    after the last of them."""

    steps: tuple[Step, ...]
    after: tuple[ExcludedPart, ...]


@dataclass(frozen=True, slots=True)
class Reads:
    """What one kind of assembly (the prompt, or the reminders) puts in its scope: the
    context's fields and the variables' defaults that its conditions, bodies,
    definitions and bindings read."""

    fields: tuple[str, ...]
    defaults: Mapping[str, Any]
    _read: Callable[[Context], tuple[Any, ...]] = field(repr=False, compare=False)

    @classmethod
    def of(cls, fields: tuple[str, ...], defaults: Mapping[str, Any]) -> Reads:
        """What reads ``fields`` of a context (at once) and ``defaults``."""
        if len(fields) > 1:
            return cls(fields, defaults, operator.attrgetter(*fields))
        if fields:
            one = operator.attrgetter(fields[0])
            return cls(fields, defaults, lambda context: (one(context),))
        return cls(fields, defaults, lambda context: ())

    def scope(self, context: Context) -> dict[str, Any]:
        """The fields of ``context`` it reads, by name, with the defaults."""
        scope = dict(zip(self.fields, self._read(context), strict=True))
        scope.update(self.defaults)
        return scope


@dataclass(frozen=True, eq=False, slots=True)
class AgentPlan:
    """Everything an assembly for one agent can work out in advance, built once, the
    first time the agent's plan is looked up (see :func:`plan_agents`).

    ``steps`` walks every part the agent is given (what overrides and a custom
    prompt need); ``usual`` leaves out those whose condition is false for this
    agent whatever the context. ``constants`` are the values fixed for the plan
    (``agent`` and the definitions that read nothing else) and ``definitions`` the
    rest, which every assembly evaluates. ``prompt_reads`` and ``reminder_reads`` say
    what an assembly of the prompt, and of the reminders, puts in its scope: each
    reads only its own parts' names (most variables of a catalog feed its
    reminders alone). ``groups`` gives the group and the place in the prompt order
    of each part of a group the agent is given (:mod:`catalog.engine.groups`).
    """

    rules: CatalogRules
    agent: AgentInfo
    steps: Walk
    usual: Walk
    reminders: tuple[Step, ...]
    constants: Mapping[str, Any]
    definitions: tuple[Definition, ...]
    prompt_reads: Reads
    reminder_reads: Reads
    groups: Mapping[str, Place] = field(default_factory=dict)


def plan_agents(
    rules: CatalogRules,
    agents: Sequence[AgentInfo],
    parts: Sequence[CompiledPart],
    *,
    specialise: bool = True,
) -> Mapping[str, AgentPlan]:
    """The plan of each of ``agents`` (by name) for ``parts`` (in prompt order), each
    made when first looked up; specialised to its agent unless ``specialise`` is false
    (see the module docstring)."""
    agent_map = {agent.name: agent for agent in agents}
    return _Plans(rules, agent_map, tuple(_step(p) for p in parts), specialise)


class _Plans(Mapping[str, AgentPlan]):
    """Each agent's plan, made when first looked up: a command assembles one agent
    of a catalog's many. The same plan comes back every time, whichever thread
    asks; two threads asking at once may each make it, and one is kept."""

    def __init__(
        self,
        rules: CatalogRules,
        agents: Mapping[str, AgentInfo],
        steps: tuple[Step, ...],
        specialise: bool,
    ) -> None:
        self._rules = rules
        self._agents = agents
        self._steps = steps
        self._specialise = specialise
        self._made: dict[str, AgentPlan] = {}

    def __getitem__(self, name: str) -> AgentPlan:
        plan = self._made.get(name)
        if plan is None:
            made = _plan(self._rules, self._agents[name], self._steps, self._specialise)
            plan = self._made.setdefault(name, made)
        return plan

    def __iter__(self) -> Iterator[str]:
        return iter(self._agents)

    def __len__(self) -> int:
        return len(self._agents)


def _never(scope: Scope) -> bool:
    """The condition of a part that is never used by a plan's agent."""
    return False


def _plan(
    rules: CatalogRules, agent: AgentInfo, shared: Sequence[Step], specialise: bool
) -> AgentPlan:
    """``agent``'s plan from the steps shared by every agent (see :func:`plan_agents`)."""
    constants, definitions = _constants(rules, agent) if specialise else ({}, rules.definitions)
    specialiser = _Specialiser(rules, constants) if specialise else None
    name = agent.name
    reasons: dict[tuple[str, ...], str] = {}
    steps: list[Step] = []
    reminders: list[Step] = []
    gone: list[ExcludedPart] = []  # left out for good before the next step, in every walk
    usual = _UsualWalk()
    groups: dict[str, Place] = {}
    for place, step in enumerate(shared):
        decl = step.part.decl
        given = decl.for_agent(name)
        if given and specialiser is not None:
            step = specialiser.step(step)
        if given and decl.group is not None:
            groups[decl.id] = (decl.group, place)
            if step.condition is not _never:
                taking = alternative(step.condition, decl.group, decl.id)
                step = replace(step, condition=taking, member=None)
        if given and step.kind == "reminder":
            reminders.append(step)
        if not given or step.kind == "reminder":
            gone.append(_left_out(decl, name, reasons))
            usual.drop(gone[-1])
            continue
        steps.append(replace(step, before=tuple(gone)))
        gone = []
        usual.add(step)
    return AgentPlan(
        rules,
        agent,
        Walk(tuple(steps), tuple(gone)),
        usual.walk(),
        tuple(reminders),
        constants,
        definitions,
        _reads(rules, steps, definitions, specialise),
        _reads(rules, reminders, definitions, specialise),
        groups,
    )


class _UsualWalk:
    """Builds a plan's usual walk step by step (see :class:`Step`): the parts left out
    for good are recorded where they stand, a step used whatever the context joins
    the fixed pieces of the step before it, and a step testing the name the batch
    before it tests joins that batch. What a step gathers is kept in lists until the
    next step starts, so building costs linear time in the number of parts."""

    def __init__(self) -> None:
        self._steps: list[Step] = []
        self._dropped: list[ExcludedPart] = []  # left out before the next step
        self._pieces: list[Chosen] = []  # of the last step
        self._members: list[Member] = []  # of the last step, a batch

    def drop(self, excluded: ExcludedPart) -> None:
        """A part left out for good at this place of the walk."""
        self._dropped.append(excluded)

    def add(self, step: Step) -> None:
        """The next step the agent is given."""
        fixed = _fixed(step)
        if step.condition is _never:
            self.drop(step.if_false)
        elif fixed is not None and self._pieces and not self._dropped:
            self._pieces.append(fixed)
        elif step.member is not None and step.known:
            value, searched = step.member
            batch = (None, searched)
            last = self._steps[-1] if self._steps else None
            if last is None or last.member != batch or not self._members or self._dropped:
                self._start(replace(step, member=batch))
            self._members.append(Member.of(value, step))
        else:
            self._start(step)
            if fixed is not None:
                self._pieces.append(fixed)

    def walk(self) -> Walk:
        """The walk built so far."""
        self._close()
        return Walk(tuple(self._steps), tuple(self._dropped))

    def _start(self, step: Step) -> None:
        self._close()
        self._steps.append(replace(step, before=tuple(self._dropped)))
        self._dropped = []

    def _close(self) -> None:
        """Gives the last step what it gathered."""
        if self._steps and (self._pieces or self._members):
            last = self._steps[-1]
            self._steps[-1] = replace(
                last,
                pieces=(*last.pieces, *self._pieces),
                members=(*last.members, *self._members),
            )
        self._pieces = []
        self._members = []


def _fixed(step: Step) -> Chosen | None:
    """The piece ``step`` gives whatever the context, if it does."""
    if step.condition is None and isinstance(step.made, tuple):
        return step.made
    return None


def _reads(
    rules: CatalogRules,
    steps: Sequence[Step],
    definitions: Sequence[Definition],
    specialise: bool,
) -> Reads:
    """What assembling ``steps`` reads from the scope, with the definitions and
    bindings it evaluates; everything when the plan is not ``specialise``d."""
    if not specialise:
        return Reads.of(CONTEXT_NAMES, rules.defaults)
    names = frozenset().union(*(step.reads for step in steps))
    names |= frozenset().union(*(definition.names for definition in definitions))
    for _decl, expression in rules.bindings:
        names |= {"files"} if expression is None else expression.names
    return Reads.of(
        tuple(name for name in CONTEXT_NAMES if name in names),
        {k: v for k, v in rules.defaults.items() if k in names},
    )


def _left_out(decl: PartDecl, agent: str, reasons: dict[tuple[str, ...], str]) -> ExcludedPart:
    """Why a part is never in ``agent``'s prompt: it is a reminder, or not given to the
    agent (``reasons`` keeps the sentences made so far: most parts share a few lists)."""
    if decl.kind == "reminder":
        return ExcludedPart(decl.id, decl.kind, "channel", "a reminder: see reminders()")
    reason = reasons.get(decl.agents)
    if reason is None:
        reason = reasons[decl.agents] = f"not given to agent {agent} ({', '.join(decl.agents)})"
    return ExcludedPart(decl.id, decl.kind, "agent", reason)


def _constants(
    rules: CatalogRules, agent: AgentInfo
) -> tuple[dict[str, Any], tuple[Definition, ...]]:
    """What is fixed for ``agent``'s plan (``agent`` and the definitions that read
    nothing else), and the definitions left to evaluate for each assembly. A
    definition that fails is left to fail there, as written."""
    constants: dict[str, Any] = {"agent": agent}
    left: list[Definition] = []
    for definition in rules.definitions:
        if definition.names <= constants.keys():
            try:
                constants[definition.name] = definition.evaluate(constants)
                continue
            except CatalogError:
                pass
        left.append(definition)
    return constants, tuple(left)


def _step(part: CompiledPart) -> Step:
    """The step of ``part`` for any agent it is given to, with nothing substituted."""
    decl = part.decl
    ident = (decl.id, decl.kind)
    condition: Run | None = part.condition.evaluate
    if not part.condition.names and bool(part.condition(_NO_SCOPE)):
        condition = None
    why = "always" if decl.when == "true" else f"when {decl.when!r} is true"
    if_false = f"when {decl.when!r} is false"
    if decl.group is not None:
        why, if_false = f"group {decl.group}: taken ({why})", f"group {decl.group}: {if_false}"
    give = _giving(decl, why, part.render)
    known = part.template is None or part.template.is_static
    return Step(
        part=part,
        kind=decl.kind,
        order=decl.order,
        slot=decl.slot if decl.kind != "tool" else None,
        tool_name=decl.tool_name,
        condition=condition,
        known=known,
        made=give(_NO_SCOPE) if known else None,
        give=give,
        reads=part.condition.names | (part.template.names if part.template else frozenset()),
        why=why,
        if_false=ExcludedPart(*ident, "condition", if_false),
        if_empty=ExcludedPart(*ident, "empty", "rendered blank"),
        if_custom=ExcludedPart(*ident, "custom-prompt", "replaced by the custom prompt"),
        if_overridden=ExcludedPart(*ident, "overridden", f"slot {decl.slot!r} overridden"),
    )


class _Specialiser:
    """Specialises the steps of one agent's plan to its ``constants``: substitutes
    them, with ``part``, into conditions and bodies that read them (compiling each
    expression of the plan's bodies once), settles what becomes constant, and
    remembers what each other body gives by what it reads."""

    def __init__(self, rules: CatalogRules, constants: Mapping[str, Any]) -> None:
        self._names = rules.names
        self._constants = constants
        self._expressions = ExpressionCache()

    def step(self, step: Step) -> Step:
        part = step.part
        decl = part.decl
        template = part.template
        reads = part.condition.names | (template.names if template is not None else frozenset())
        fixed = self._constants
        if "part" in reads:
            fixed = {**fixed, "part": PartInfo.of(decl)}
        expression = part.condition
        if expression.names & fixed.keys():
            expression = compile_expression(decl.when, self._names, fixed, condition=True)
        condition, names = self._settled(expression), expression.names
        member = expression.membership if condition is expression.evaluate else None
        if step.known or template is None or condition is _never:  # its body never renders
            return replace(step, condition=condition, reads=names, member=member)
        if decl.template and template.names & fixed.keys():
            expressions = self._expressions if fixed is self._constants else None
            template = compile_template(part.body, self._names, expressions, fixed)
        give = _giving(decl, step.why, template.render)
        changed = replace(step, condition=condition, give=give, reads=names | template.names)
        if not template.names:
            try:
                return replace(changed, known=True, made=give(_NO_SCOPE), reads=names)
            except CatalogError:
                return changed  # the error comes when assembling, as written
        if template.reads and {path[0] for path in template.reads} == template.names:
            # Remembered by the values it reads.
            return replace(changed, give=remember(give, template.reads, _size))
        return changed

    def _settled(self, condition: Expression) -> Run | None:
        """The run of a (specialised) ``condition``: None when it holds whatever the
        context, :func:`_never` when it never does, else its closure, remembered by
        what it reads when it calls functions (``len(mcp_servers) > 0``). One that
        fails without reading anything is left to fail when assembling, as written."""
        evaluate = condition.evaluate
        if condition.names:
            if not condition.builds:
                return evaluate  # as cheap as a look-up: "Bash" in tools
            return remember(lambda scope: bool(evaluate(scope)), condition.reads, _one)
        try:
            holds = bool(evaluate(_NO_SCOPE))
        except CatalogError:
            return evaluate
        return None if holds else _never


def _one(holds: bool) -> int:
    return 1


def trim(text: str) -> str:
    """A body as the prompt uses it: no leading blank lines, no trailing whitespace."""
    return text.lstrip("\n").rstrip()
