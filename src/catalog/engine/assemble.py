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

The evaluation budget (:func:`catalog.lang.values.charge`) is one for a whole
assembly, shared by its definitions, conditions and bodies, so that what one
assembly evaluates is bounded whatever the number of its parts.

Token figures are counted when first read, with the catalog's tokenizer
unless ``counter=`` says otherwise (see :mod:`catalog.tokens`): an assembly
without a budget counts nothing.

Everything that does not depend on the context is worked out once, in each
agent's plan (:mod:`catalog.engine.plan`: which parts the agent never gets,
what is fixed for it substituted, which bodies are plain text ready to copy,
the reasons), so :func:`assemble` only evaluates what is left of the
conditions and renders what is left of the bodies. This module knows
compiled parts and plans, not the :class:`~catalog.engine.catalog.Catalog`
that holds them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from catalog.engine.definitions import define
from catalog.engine.groups import TAKEN, retell
from catalog.engine.plan import (
    AgentPlan,
    CatalogRules,
    Made,
    Reads,
    Step,
    Walk,
    trim,
)
from catalog.engine.prompt import (
    AssembledPrompt,
    Chosen,
    ExcludedPart,
    Origin,
    Reminder,
    ToolDescription,
)
from catalog.errors import BudgetError, CatalogError, ContextError
from catalog.lang.values import SEARCHED_FREELY, Scope, one_budget
from catalog.schema.context import Context, coerce_context
from catalog.schema.manifest import fits_type
from catalog.text.suggest import guess
from catalog.tokens import TokenCounter, get_counter

__all__ = ["assemble", "reminders"]


def assemble(
    plan: AgentPlan,
    context: Context | Mapping[str, Any] | None = None,
    *,
    counter: str | TokenCounter | Callable[[str], int] | None = None,
) -> AssembledPrompt:
    """Assemble for ``plan``'s agent under ``context``; see the module docstring. Its
    conditions, definitions and bodies spend one evaluation budget together."""
    return one_budget(_assemble, plan, context, counter)


def _assemble(
    plan: AgentPlan,
    context: Context | Mapping[str, Any] | None,
    counter: str | TokenCounter | Callable[[str], int] | None,
) -> AssembledPrompt:
    rules = plan.rules
    ctx = coerce_context(context)
    count = get_counter(counter, tokenizer=rules.tokenizer)
    scope = _scope(plan, ctx, plan.prompt_reads)
    _check_overrides(rules, ctx)
    replacing = ctx.custom_prompt is not None or bool(ctx.overrides)
    pieces, excluded, tools = _select(plan.steps if replacing else plan.usual, ctx, scope)
    if plan.groups:
        excluded = retell(excluded, scope[TAKEN], plan.groups)
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


_TOOL_NOTES = 10
"""Most unknown tools named in notes one by one (each with its closest spelling); the
rest are counted in one more note, so that a context listing thousands costs no more
than the set lookups."""


def _tool_notes(rules: CatalogRules, ctx: Context) -> tuple[str, ...]:
    """A note for each enabled tool the catalog knows nothing of (most likely a typo),
    each name once; past :data:`_TOOL_NOTES` of them, one note counts the rest."""
    if rules.tool_names.issuperset(ctx.tools):
        return ()
    unknown = [
        name
        for name in dict.fromkeys(ctx.tools)
        if name not in rules.tool_names and name not in ctx.tool_info
    ]
    where = f"{rules.name} {rules.version}"
    notes = []
    for name in unknown[:_TOOL_NOTES]:
        close = guess(name, rules.tool_names, n=1)
        notes.append(
            f"tool {name!r} matches no part and no agent's tools of {where}"
            + (f"; {close}" if close else "")
        )
    more = len(unknown) - _TOOL_NOTES
    if more > 0:
        tools = "tool matches" if more == 1 else "tools match"
        notes.append(f"{more} more {tools} no part and no agent's tools of {where}")
    return tuple(notes)


def _scope(plan: AgentPlan, context: Context, reads: Reads) -> dict[str, Any]:
    """What conditions and bodies read: the context, ``agent``, the variables (the
    context's over their defaults), the definitions and the bindings; of the context
    and the defaults, what ``reads`` names."""
    rules = plan.rules
    scope = reads.scope(context)
    scope["agent"] = plan.agent
    scope.update(plan.constants)
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
    define(plan.definitions, scope)
    if rules.bindings:
        scope["bindings"] = rules.resolve_bindings(scope)
    if plan.groups:
        scope[TAKEN] = {}
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
    walk: Walk, ctx: Context, scope: Scope
) -> tuple[list[Chosen], list[ExcludedPart], list[ToolDescription]]:
    """Walk the plan: the pieces of the prompt, the parts left out and the tools."""
    pieces: list[Chosen] = []
    excluded: list[ExcludedPart] = []
    tools: list[ToolDescription] = []
    done_slots: set[str] = set()
    overrides = ctx.overrides
    custom = ctx.custom_prompt is not None
    replacing = custom or bool(overrides)
    for step in walk.steps:
        if step.before:
            excluded += step.before
        if step.members:
            _members(step, scope, pieces, excluded, tools)
            continue
        if replacing:
            if custom and step.kind != "tool":
                excluded.append(step.if_custom)
                continue
            slot = step.slot
            if slot is not None and slot in overrides:
                if slot not in done_slots:
                    done_slots.add(slot)
                    pieces += _override(step, overrides[slot])
                excluded.append(step.if_overridden)
                continue
        condition = step.condition
        if condition is not None:
            try:
                holds = condition(scope)
            except CatalogError as exc:
                raise _placed(exc, step, " when") from None
            if not holds:
                excluded.append(step.if_false)
                continue
        if step.pieces:
            pieces += step.pieces
            continue
        try:
            made = step.made if step.known else step.give(scope)
        except CatalogError as exc:
            raise _placed(exc, step, "") from None
        if made is None:
            excluded.append(step.if_empty)
        elif isinstance(made, tuple):
            pieces.append(made)
        else:
            tools.append(made)
    excluded += walk.after
    return pieces, excluded, tools


def _override(step: Step, text: str) -> list[Chosen]:
    """The context's text for the slot of ``step``, placed where that slot's first part stood."""
    text = trim(text)
    if not text:
        return []
    why = f"slot {step.slot!r} replaced by the context"
    return [(Origin(f"override:{step.slot}", step.kind, step.order, "session", why), text)]


def _context_texts(ctx: Context) -> list[Chosen]:
    """The custom prompt and the appended text the context supplies, when not blank."""
    found: list[Chosen] = []
    custom = ctx.custom_prompt and trim(ctx.custom_prompt)
    if custom:
        why = "custom prompt from the context"
        found.append((Origin("context:custom-prompt", "system", 0, "session", why), custom))
    append = ctx.append and trim(ctx.append)
    if append:
        why = "appended by the context"
        origin = Origin("context:append", "system", 1 << 31, "session", why)
        found.append((origin, append))
    return found


def _members(
    batch: Step,
    scope: Scope,
    pieces: list[Chosen],
    excluded: list[ExcludedPart],
    tools: list[ToolDescription],
) -> None:
    """The steps of ``batch``, each used when its value is in one name (the tool parts'
    ``"Read" in tools``): a short tuple is searched for each directly, and what each
    gives goes where its :class:`~catalog.engine.plan.Member` says."""
    assert batch.member is not None
    container = scope.get(batch.member[1])
    # Where each member's gift goes, by its `to`: TO_PIECES, TO_TOOLS, TO_EXCLUDED.
    to: tuple[Callable[[Any], None], ...] = (pieces.append, tools.append, excluded.append)
    left_out = excluded.append
    if type(container) is tuple and len(container) <= SEARCHED_FREELY:
        for member in batch.members:
            if member.value in container:
                to[member.to](member.given)
            else:
                left_out(member.step.if_false)
        return
    for member in batch.members:
        if _holds(member.step, scope):
            to[member.to](member.given)
        else:
            left_out(member.step.if_false)


def _holds(step: Step, scope: Scope) -> bool:
    """Whether the condition of ``step`` holds under ``scope``; an error names the part."""
    try:
        return step.condition is None or bool(step.condition(scope))
    except CatalogError as exc:
        raise _placed(exc, step, " when") from None


def _given(step: Step, scope: Scope) -> Made | None:
    """What ``step`` gives under ``scope``; an error names the part."""
    try:
        return step.made if step.known else step.give(scope)
    except CatalogError as exc:
        raise _placed(exc, step, "") from None


def _placed(exc: CatalogError, step: Step, where: str) -> CatalogError:
    """``exc``, raised by the condition (``where`` is " when") or the body of ``step``,
    placed in the part's file and key."""
    return exc.located(file=step.part.path, key=f"part {step.part.id!r}{where}")


def _fit(
    plan: AgentPlan,
    ctx: Context,
    pieces: list[Chosen],
    budget: int,
    count: TokenCounter,
    excluded: list[ExcludedPart],
) -> list[Chosen]:
    """Drop optional pieces until the prompt fits ``budget``; see the module docstring."""
    rules = plan.rules
    sizes = [count(text) for _, text in pieces]
    gap = count(rules.separator)

    def total(kept: list[int]) -> int:
        return sum(sizes[i] for i in kept) + gap * max(len(kept) - 1, 0)

    kept = list(range(len(pieces)))
    if total(kept) <= budget:
        return pieces
    required = [i for i in kept if pieces[i][0].required]
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
            names = ", ".join(f"{pieces[i][0].id} ({sizes[i]})" for i in required)
            problem = (
                f"the system prompt is {whole} {count.name} tokens; its required parts alone "
                f"need {need} {count.name} tokens, {need - budget} over the budget of {budget}; "
                f"required: {names}"
            )
            hint = "raise the budget, shorten those parts, or let some go with `required = false`"
        message = f"catalog {rules.name} {rules.version}, agent {plan.agent.name}: {problem}"
        if ctx.token_budget is not None:
            raise BudgetError(message, key="token_budget", hint=hint)
        raise rules.locate(BudgetError(message, key="catalog.token_budget", hint=hint))
    by_priority = sorted(
        (i for i in kept if not pieces[i][0].required),
        key=lambda i: (pieces[i][0].priority, -i),
    )
    for index in by_priority:
        if total(kept) <= budget:
            break
        kept.remove(index)
        origin = pieces[index][0]
        excluded.append(
            ExcludedPart(
                origin.id,
                origin.kind,
                "budget",
                f"dropped to fit the token budget of {budget} "
                f"(priority {origin.priority}, {sizes[index]} tokens)",
            )
        )
    return [pieces[i] for i in kept]


def reminders(
    plan: AgentPlan, context: Context | Mapping[str, Any] | None = None
) -> tuple[Reminder, ...]:
    """The ``reminder`` parts of ``plan``'s agent whose conditions hold, rendered, in
    order; under one evaluation budget, as an assembly."""
    return one_budget(_reminders, plan, context)


def _reminders(
    plan: AgentPlan, context: Context | Mapping[str, Any] | None
) -> tuple[Reminder, ...]:
    scope = _scope(plan, coerce_context(context), plan.reminder_reads)
    found = []
    for step in plan.reminders:
        if _holds(step, scope):
            made = _given(step, scope)
            if isinstance(made, tuple):
                origin, text = made
                found.append(Reminder(origin.id, text, origin.order))
    return tuple(found)
