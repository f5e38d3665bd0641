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
:class:`~catalog.errors.BudgetError` names them and says by how much.

Token figures are counted when first read, with the catalog's tokenizer
unless ``counter=`` says otherwise (see :mod:`catalog.tokens`): an assembly
without a budget counts nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from catalog.cache import (
    MAX_BREAKPOINTS,
    CacheBlock,
    anthropic_system,
    cache_blocks,
    openai_message,
)
from catalog.context import CONTROL_FIELDS, Context, coerce_context
from catalog.errors import BudgetError, CatalogError, ContextError
from catalog.lang.values import Scope
from catalog.manifest.models import MAIN_AGENT, fits_type
from catalog.tokens import CharCounter, TokenCounter, get_counter

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
    "share_of",
]

ExclusionReason = Literal[
    "agent", "condition", "empty", "overridden", "custom-prompt", "channel", "budget"
]

# The context fields conditions and bodies read; the rest steer assembly.
_CONTEXT_FIELDS = tuple(name for name in Context.model_fields if name not in CONTROL_FIELDS)


class _Piece(NamedTuple):
    """A text chosen for the prompt, before budgets and layout."""

    id: str
    kind: str
    order: int
    stability: str
    text: str
    why: str
    required: bool = True
    priority: int = 0


@dataclass(frozen=True)
class _Counted:
    """A text whose token count is computed on first read, so assembling counts nothing."""

    _text: str = field(kw_only=True, repr=False, compare=False)
    _counter: TokenCounter = field(kw_only=True, repr=False, compare=False)

    @cached_property
    def tokens(self) -> int:
        """Tokens of the text, by the prompt's counter."""
        return self._counter(self._text)


@dataclass(frozen=True)
class UsedPart(_Counted):
    """A part (or a context-supplied text) that made it into the prompt."""

    id: str
    kind: str
    order: int
    stability: str
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
class ToolDescription(_Counted):
    """A tool description for the tools array of a request."""

    name: str
    description: str
    part_id: str


@dataclass(frozen=True)
class Reminder:
    """A reminder text to append to a user message."""

    id: str
    text: str
    order: int


@dataclass(frozen=True)
class AssembledPrompt:
    """The result of an assembly. Immutable; derived values are computed on first use.

    Assembly records only the chosen texts and the reasons; :attr:`parts`,
    :attr:`excluded`, :attr:`tools` and every token figure are built when
    first read, which keeps a warm assembly in the tens of microseconds.
    """

    catalog: str
    version: str
    agent: str
    text: str
    counter: str
    budget: int | None = None
    notes: tuple[str, ...] = ()
    _pieces: tuple[_Piece, ...] = field(default=(), kw_only=True, repr=False)
    _left: tuple[tuple[str, str, ExclusionReason, str], ...] = field(
        default=(), kw_only=True, repr=False
    )
    _tools: tuple[tuple[str, str, str], ...] = field(default=(), kw_only=True, repr=False)
    _counter: TokenCounter = field(default=CharCounter(), kw_only=True, repr=False, compare=False)
    _separator: str = field(default="\n\n", kw_only=True, repr=False, compare=False)

    @cached_property
    def parts(self) -> tuple[UsedPart, ...]:
        """The parts (and context-supplied texts) in the prompt, in order, with spans."""
        return self._layout[0]

    @cached_property
    def static_prefix_length(self) -> int:
        """Length of the leading text made only of ``static`` parts."""
        return self._layout[1]

    @cached_property
    def excluded(self) -> tuple[ExcludedPart, ...]:
        """The parts left out, each with its reason."""
        return tuple(ExcludedPart(*left) for left in self._left)

    @cached_property
    def tools(self) -> tuple[ToolDescription, ...]:
        """Tool descriptions for the tools array (``tool`` parts whose condition holds)."""
        count = self._counter
        return tuple(
            ToolDescription(name, text, part_id, _text=text, _counter=count)
            for name, text, part_id in self._tools
        )

    @cached_property
    def _layout(self) -> tuple[tuple[UsedPart, ...], int]:
        used: list[UsedPart] = []
        position = 0
        static_prefix = 0
        in_static_prefix = True
        for piece in self._pieces:
            end = position + len(piece.text)
            used.append(
                UsedPart(
                    piece.id,
                    piece.kind,
                    piece.order,
                    piece.stability,
                    piece.why,
                    position,
                    end,
                    _text=piece.text,
                    _counter=self._counter,
                )
            )
            if in_static_prefix and piece.stability == "static":
                static_prefix = end
            else:
                in_static_prefix = False
            position = end + len(self._separator)
        return tuple(used), static_prefix

    @cached_property
    def fingerprint(self) -> str:
        """sha256 of the text: equal fingerprints mean byte-identical prompts."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def static_prefix(self) -> str:
        """The leading text made only of ``static`` parts: the cache-stable prefix."""
        return self.text[: self.static_prefix_length]

    @cached_property
    def separator_tokens(self) -> int:
        """Tokens of the separators between the parts."""
        return max(len(self.parts) - 1, 0) * self._counter(self._separator) if self.parts else 0

    @cached_property
    def tokens(self) -> int:
        """Tokens of the text: the used parts plus separators, as counted by :attr:`counter`."""
        return sum(p.tokens for p in self.parts) + self.separator_tokens

    def cache_blocks(self, *, max_breakpoints: int = MAX_BREAKPOINTS) -> tuple[CacheBlock, ...]:
        """The text cut where stability changes, with breakpoints (see :mod:`catalog.cache`)."""
        return cache_blocks(self, max_breakpoints=max_breakpoints)

    def anthropic_system(
        self,
        *,
        ttl: Literal["5m", "1h"] | None = None,
        max_breakpoints: int = MAX_BREAKPOINTS,
    ) -> list[dict[str, Any]]:
        """Anthropic Messages API ``system`` blocks with ``cache_control`` breakpoints."""
        return anthropic_system(self, ttl=ttl, max_breakpoints=max_breakpoints)

    def openai_message(self, *, role: Literal["system", "developer"] = "system") -> dict[str, str]:
        """An OpenAI-style ``system`` (or ``developer``) chat message."""
        return openai_message(self, role=role)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with stable keys (see the README for their meaning)."""
        return {
            "catalog": self.catalog,
            "version": self.version,
            "agent": self.agent,
            "fingerprint": self.fingerprint,
            "counter": self.counter,
            "tokens": self.tokens,
            "budget": self.budget,
            "static_prefix_length": self.static_prefix_length,
            "text": self.text,
            "parts": [_asdict(p) for p in self.parts],
            "excluded": [_asdict(p) for p in self.excluded],
            "tools": [_asdict(t) for t in self.tools],
            "notes": list(self.notes),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def token_report(self) -> dict[str, Any]:
        """Where the tokens go, JSON-ready: per part (in prompt order) its tokens and
        share of the total in percent, the separators, the tools array and the
        parts dropped to fit the budget (``catalog tokens --format json``)."""
        total = self.tokens
        return {
            "catalog": self.catalog,
            "version": self.version,
            "agent": self.agent,
            "counter": self.counter,
            "tokens": total,
            "budget": self.budget,
            "separator_tokens": self.separator_tokens,
            "parts": [
                {
                    "id": p.id,
                    "order": p.order,
                    "kind": p.kind,
                    "stability": p.stability,
                    "tokens": p.tokens,
                    "share": share_of(p.tokens, total),
                }
                for p in self.parts
            ],
            "tools": [{"name": t.name, "part": t.part_id, "tokens": t.tokens} for t in self.tools],
            "dropped": [{"id": e.id, "why": e.why} for e in self.excluded if e.reason == "budget"],
        }

    def explain(self) -> str:
        """A table of every part: in or out, why, and what it costs."""
        budget = f" of a budget of {self.budget}" if self.budget is not None else ""
        rows = [
            f"{self.catalog} {self.version}, agent {self.agent}: {self.tokens} tokens{budget} "
            f"({self.counter}), fingerprint {self.fingerprint[:12]}"
        ]
        for used in self.parts:
            rows.append(f"  + {used.id:<28} {used.tokens:>6}  {used.why}")
        for tool in self.tools:
            rows.append(f"  T {tool.name:<28} {tool.tokens:>6}  tool description ({tool.part_id})")
        for left in self.excluded:
            rows.append(f"  - {left.id:<28} {'':>6}  {left.why}")
        rows.extend(f"  ! {note}" for note in self.notes)
        return "\n".join(rows)


def share_of(tokens: int, total: int) -> float:
    """``tokens`` as a percentage of ``total``, one decimal (0 when the total is 0)."""
    return round(100 * tokens / total, 1) if total else 0.0


def _asdict(item: Any) -> dict[str, Any]:
    data = {name: getattr(item, name) for name in item.__dataclass_fields__ if name[0] != "_"}
    if isinstance(item, _Counted):
        data["tokens"] = item.tokens
    return data


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
    catalog.resolve_definitions(scope)
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


_Left = tuple[str, str, ExclusionReason, str]


class _Step(NamedTuple):
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
    left: _Left | None
    always: bool
    body: str | None
    render: Callable[[Scope], str]
    piece: _Piece | None
    why: str
    if_false: _Left
    if_empty: _Left
    if_custom: _Left
    if_overridden: _Left

    def with_text(self, text: str) -> _Piece:
        decl = self.part.decl
        return _Piece(
            decl.id,
            decl.kind,
            decl.order,
            decl.stability,
            text,
            self.why,
            decl.required,
            decl.priority,
        )


class _Plan(NamedTuple):
    """Everything an assembly for one agent can work out in advance."""

    version: str
    steps: tuple[_Step, ...]


def _plan(catalog: Catalog, agent: str) -> _Plan:
    """The plan for ``agent``, cached on the catalog (which is immutable)."""
    plan = catalog._plans.get(agent)
    if plan is None:
        steps = tuple(_step(part, agent) for part in catalog.parts)
        plan = catalog._plans[agent] = _Plan(str(catalog.version), steps)
    return plan


def _step(part: CompiledPart, agent: str) -> _Step:
    decl = part.decl
    ident = (decl.id, decl.kind)
    left: _Left | None = None
    if decl.kind == "reminder":
        left = (*ident, "channel", "a reminder: see reminders()")
    elif not decl.for_agent(agent):
        left = (*ident, "agent", f"not given to agent {agent} ({', '.join(decl.agents)})")
    always = not part.condition.names and bool(part.condition({}))
    body = None
    if part.template is None or part.template.is_static:
        body = _trim(part.body)
    why = "always" if decl.when == "true" else f"when {decl.when!r} is true"
    step = _Step(
        part=part,
        kind=decl.kind,
        order=decl.order,
        slot=decl.slot if decl.kind != "tool" else None,
        tool_name=decl.tool_name,
        left=left,
        always=always,
        body=body,
        render=part.render if part.template is None else part.template.render,
        piece=None,
        why=why,
        if_false=(*ident, "condition", f"when {decl.when!r} is false"),
        if_empty=(*ident, "empty", "rendered blank"),
        if_custom=(*ident, "custom-prompt", "replaced by the custom prompt"),
        if_overridden=(*ident, "overridden", f"slot {decl.slot!r} overridden"),
    )
    if body and decl.kind != "tool":
        step = step._replace(piece=step.with_text(body))
    return step


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


def assemble(
    catalog: Catalog,
    context: Context | Mapping[str, Any] | None = None,
    agent: str = MAIN_AGENT,
    *,
    counter: str | TokenCounter | Callable[[str], int] | None = None,
) -> AssembledPrompt:
    """Assemble ``catalog`` for ``agent`` under ``context``; see the module docstring."""
    ctx = coerce_context(context)
    count = get_counter(counter, tokenizer=catalog.manifest.catalog.tokenizer)
    scope = _scope(catalog, ctx, agent)
    _check_overrides(catalog, ctx)
    pieces: list[_Piece] = []
    excluded: list[_Left] = []
    tools: list[tuple[str, str, str]] = []
    done_slots: set[str] = set()
    overrides = ctx.overrides
    custom = ctx.custom_prompt is not None
    plan = _plan(catalog, agent)
    for step in plan.steps:
        if step.left is not None:
            excluded.append(step.left)
            continue
        if custom and step.kind != "tool":
            excluded.append(step.if_custom)
            continue
        slot = step.slot
        if slot is not None and slot in overrides:
            if slot not in done_slots:
                done_slots.add(slot)
                text = _trim(overrides[slot])
                if text:
                    pieces.append(
                        _Piece(
                            f"override:{slot}",
                            step.kind,
                            step.order,
                            "session",
                            text,
                            f"slot {slot!r} replaced by the context",
                        )
                    )
            excluded.append(step.if_overridden)
            continue
        part = step.part
        if not step.always and not _evaluate(part, scope):
            excluded.append(step.if_false)
            continue
        if step.piece is not None:
            pieces.append(step.piece)
            continue
        body = step.body if step.body is not None else _render(part, step.render, scope)
        if not body:
            excluded.append(step.if_empty)
        elif step.kind == "tool":
            tools.append((step.tool_name, body, part.id))
        else:
            pieces.append(step.with_text(body))
    if custom:
        text = _trim(ctx.custom_prompt or "")
        if text:
            pieces.append(
                _Piece(
                    "context:custom-prompt",
                    "system",
                    0,
                    "session",
                    text,
                    "custom prompt from the context",
                )
            )
    if ctx.append is not None and _trim(ctx.append):
        pieces.append(
            _Piece(
                "context:append",
                "system",
                1 << 31,
                "session",
                _trim(ctx.append),
                "appended by the context",
            )
        )
    budget = ctx.token_budget or catalog.manifest.catalog.token_budget
    if budget is not None:
        pieces = _fit(catalog, ctx, agent, pieces, budget, count, excluded)
    return AssembledPrompt(
        catalog=catalog.name,
        version=plan.version,
        agent=agent,
        text=catalog.separator.join(p.text for p in pieces),
        counter=count.name,
        budget=budget,
        notes=_tool_notes(catalog, ctx),
        _pieces=tuple(pieces),
        _left=tuple(excluded),
        _tools=tuple(tools),
        _counter=count,
        _separator=catalog.separator,
    )


def _tool_notes(catalog: Catalog, ctx: Context) -> tuple[str, ...]:
    """A note for each enabled tool the catalog knows nothing of: most likely a typo."""
    unknown = [
        name for name in ctx.tools if name not in catalog.tool_names and name not in ctx.tool_info
    ]
    notes = []
    for name in unknown:
        close = difflib.get_close_matches(name, sorted(catalog.tool_names), n=1, cutoff=0.6)
        guess = f"; did you mean {close[0]!r}?" if close else ""
        notes.append(
            f"tool {name!r} matches no part and no agent's tools of {catalog.name} "
            f"{catalog.version}{guess}"
        )
    return tuple(notes)


def _fit(
    catalog: Catalog,
    ctx: Context,
    agent: str,
    pieces: list[_Piece],
    budget: int,
    count: TokenCounter,
    excluded: list[tuple[str, str, ExclusionReason, str]],
) -> list[_Piece]:
    """Drop optional pieces until the prompt fits ``budget``; see the module docstring."""
    sizes = [count(p.text) for p in pieces]
    gap = count(catalog.separator)

    def total(kept: list[int]) -> int:
        return sum(sizes[i] for i in kept) + gap * max(len(kept) - 1, 0)

    kept = list(range(len(pieces)))
    if total(kept) <= budget:
        return pieces
    required = [i for i in kept if pieces[i].required]
    need = total(required)
    if need > budget:
        names = ", ".join(f"{pieces[i].id} ({sizes[i]})" for i in required)
        from_context = ctx.token_budget is not None
        raise BudgetError(
            f"catalog {catalog.name} {catalog.version}, agent {agent}: the required parts alone "
            f"need {need} {count.name} tokens, {need - budget} over the budget of {budget}; "
            f"required: {names}",
            file=None if from_context else catalog.manifest_file,
            key="token_budget" if from_context else "catalog.token_budget",
            hint="raise the budget, shorten those parts, or let some go with `required = false`",
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
        text = _render(part, part.render, scope)
        if text:
            found.append(Reminder(decl.id, text, decl.order))
    return tuple(found)
