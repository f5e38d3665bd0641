"""The result of an assembly, and its cache-ready forms.

:class:`AssembledPrompt` is what :meth:`catalog.Catalog.assemble` returns:
the text, the parts in it with their spans, the parts left out with the
reason, the tool descriptions, and token figures counted only when read.
:class:`Reminder` is what :meth:`catalog.Catalog.reminders` returns.

Cache-ready output: an assembled prompt split where its stability changes.

A prompt cache reuses the longest unchanged prefix of a request. Parts carry
how often they change (``static`` < ``session`` < ``turn``), so the prompt
can be cut into blocks, one per run of parts of equal stability, and a cache
breakpoint placed where a longer-lived prefix ends.

Breakpoint rule: a block gets one when the prefix up to it is about to become
more volatile (the next block is of a less stable class than every block so
far) and on the last block. A prefix can only be static, session or turn, so
that gives at most three breakpoints, within Anthropic's limit of four per
request, leaving at least one for the caller's messages. With
``max_breakpoints`` lower, the longest-lived ones are kept (static prefix,
then session, then the whole prompt).

The blocks' texts joined give exactly :attr:`AssembledPrompt.text`: the
separator between two blocks ends the earlier block.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, Final, Literal, TypeAlias, TypeVar

from catalog.errors import ContextError, UsageError
from catalog.tokens import CharCounter, TokenCounter

__all__ = [
    "CACHE_TTLS",
    "MAX_BREAKPOINTS",
    "MAX_PROMPT_CHARS",
    "OPENAI_ROLES",
    "AssembledPrompt",
    "CacheBlock",
    "Chosen",
    "ExcludedPart",
    "ExclusionReason",
    "Origin",
    "Reminder",
    "ToolDescription",
    "UsedPart",
    "anthropic_system",
    "cache_blocks",
    "check_prompt_size",
    "openai_message",
    "share_of",
]

ExclusionReason = Literal[
    "agent", "condition", "group", "empty", "overridden", "custom-prompt", "channel", "budget"
]
_CHARS: Final = CharCounter()
_TEXT: Final = operator.itemgetter(1)

# Anthropic accepts at most four cache_control breakpoints in one request.
MAX_BREAKPOINTS = 4
CACHE_TTLS = ("5m", "1h")
"""The cache lifetimes Anthropic's ``cache_control`` accepts."""
OPENAI_ROLES = ("system", "developer")
"""The roles an OpenAI chat message carrying instructions may have."""
_RANK = {"static": 0, "session": 1, "turn": 2}

MAX_PROMPT_CHARS: Final = 2_000_000
"""The longest prompt handed on (characters, about half a million tokens, past any
model's window): ``catalog assemble``, the server and every prompt store refuse a
longer one rather than print, send or keep it."""


def check_prompt_size(
    text: str,
    *,
    hint: str = "send a smaller context: the files and variables it carries make the prompt",
) -> None:
    """Refuse a prompt longer than :data:`MAX_PROMPT_CHARS` (a
    :class:`~catalog.errors.ContextError`: the context made it), with ``hint`` saying
    how the caller makes a smaller one."""
    if len(text) > MAX_PROMPT_CHARS:
        raise ContextError(
            f"the assembled prompt has {len(text):,} characters, over the limit of "
            f"{MAX_PROMPT_CHARS:,}",
            hint=hint,
        )


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a piece of the prompt comes from: a part, or a text the context supplies
    (``id``), with what layout and budgets need of it (``required`` ones are never
    dropped to fit a budget; among the others the lowest ``priority`` goes first)."""

    id: str
    kind: str
    order: int
    stability: str
    why: str
    required: bool = True
    priority: int = 0


Chosen: TypeAlias = tuple[Origin, str]
"""A text chosen for the prompt, before budgets and layout: a part's rendered body or
a text the context supplies, with its :class:`Origin` (a part's origin is made once,
with its plan; each render only pairs it with the text)."""


@dataclass(frozen=True)
class _Counted:
    """A text whose token count is computed on first read, so assembling counts nothing.

    The text and the counter are set by :func:`_counting` when the prompt lays
    itself out; they are not constructor arguments.
    """

    _text: str = field(default="", init=False, repr=False, compare=False)
    _counter: TokenCounter = field(default=_CHARS, init=False, repr=False, compare=False)

    @cached_property
    def tokens(self) -> int:
        """Tokens of the text, by the prompt's counter."""
        return self._counter(self._text)


_C = TypeVar("_C", bound=_Counted)


def _counting(item: _C, text: str, counter: TokenCounter) -> _C:
    """``item``, whose :attr:`~_Counted.tokens` will count ``text`` with ``counter``."""
    object.__setattr__(item, "_text", text)
    object.__setattr__(item, "_counter", counter)
    return item


@dataclass(frozen=True, slots=True)
class UsedPart(_Counted):
    """A part (or a context-supplied text) that made it into the prompt, with its span
    in :attr:`AssembledPrompt.text`.

    Assembly records what it chooses as ``(origin, text)`` pairs (:data:`Chosen`); the
    used parts are made from them when first read."""

    id: str
    kind: str
    order: int
    stability: str
    why: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ExcludedPart:
    """A part left out, with the reason code and a sentence saying why (a plan makes
    most of them once; an assembly records the ones that apply)."""

    id: str
    kind: str
    reason: ExclusionReason
    why: str


@dataclass(frozen=True, slots=True)
class ToolDescription(_Counted):
    """A tool description for the tools array of a request: the tool's name, its text
    and the part it comes from; ``tokens`` once the prompt has been read."""

    name: str
    description: str
    part_id: str


@dataclass(frozen=True, slots=True)
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
    # What the assembly chose, set by from_pieces; the fields above derive from it.
    _pieces: tuple[Chosen, ...] = field(default=(), init=False, repr=False)
    _left: tuple[ExcludedPart, ...] = field(default=(), init=False, repr=False)
    _tools: tuple[ToolDescription, ...] = field(default=(), init=False, repr=False)
    _counter: TokenCounter = field(default=_CHARS, init=False, repr=False, compare=False)
    _separator: str = field(default="\n\n", init=False, repr=False, compare=False)

    @classmethod
    def from_pieces(
        cls,
        catalog: str,
        version: str,
        agent: str,
        pieces: Sequence[Chosen],
        *,
        excluded: Sequence[ExcludedPart] = (),
        tools: Sequence[ToolDescription] = (),
        counter: TokenCounter = _CHARS,
        separator: str = "\n\n",
        budget: int | None = None,
        notes: Sequence[str] = (),
    ) -> AssembledPrompt:
        """The prompt made of the texts of ``pieces`` (each with the :class:`Origin` of
        the part or the context's text it comes from) joined by ``separator``, with the
        parts left out and the tool descriptions."""
        prompt = cls(
            catalog,
            version,
            agent,
            separator.join(map(_TEXT, pieces)),
            counter.name,
            budget,
            tuple(notes),
        )
        for name, value in (
            ("_pieces", tuple(pieces)),
            ("_left", tuple(excluded)),
            ("_tools", tuple(tools)),
            ("_counter", counter),
            ("_separator", separator),
        ):
            object.__setattr__(prompt, name, value)
        return prompt

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
        return self._left

    @cached_property
    def tools(self) -> tuple[ToolDescription, ...]:
        """Tool descriptions for the tools array (``tool`` parts whose condition holds)."""
        count = self._counter
        return tuple(
            _counting(
                ToolDescription(tool.name, tool.description, tool.part_id), tool.description, count
            )
            for tool in self._tools
        )

    @cached_property
    def _layout(self) -> tuple[tuple[UsedPart, ...], int]:
        used: list[UsedPart] = []
        position = 0
        static_prefix = 0
        in_static_prefix = True
        for origin, text in self._pieces:
            end = position + len(text)
            used.append(
                _counting(
                    UsedPart(
                        origin.id,
                        origin.kind,
                        origin.order,
                        origin.stability,
                        origin.why,
                        position,
                        end,
                    ),
                    text,
                    self._counter,
                )
            )
            if in_static_prefix and origin.stability == "static":
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
        """The text cut where stability changes, with breakpoints (see :func:`cache_blocks`)."""
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
        import json  # on first use: most commands never read or write JSON

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
        names = [p.id for p in self.parts] + [t.name for t in self.tools]
        width = max([28, *map(len, names), *(len(e.id) for e in self.excluded)])
        for used in self.parts:
            rows.append(f"  + {used.id:<{width}} {used.tokens:>6}  {used.why}")
        for tool in self.tools:
            rows.append(
                f"  T {tool.name:<{width}} {tool.tokens:>6}  tool description ({tool.part_id})"
            )
        for left in self.excluded:
            rows.append(f"  - {left.id:<{width}} {'':>6}  {left.why}")
        rows.extend(f"  ! {note}" for note in self.notes)
        return "\n".join(rows)


def share_of(tokens: int, total: int) -> float:
    """``tokens`` as a percentage of ``total``, one decimal (0 when the total is 0)."""
    return round(100 * tokens / total, 1) if total else 0.0


def _asdict(item: Any) -> dict[str, Any]:
    data = {f.name: getattr(item, f.name) for f in fields(item) if f.name[0] != "_"}
    if isinstance(item, _Counted):
        data["tokens"] = item.tokens
    return data


@dataclass(frozen=True, slots=True)
class CacheBlock:
    """A run of consecutive parts of one stability class."""

    text: str
    stability: str
    parts: tuple[str, ...]
    breakpoint: bool


def cache_blocks(
    prompt: AssembledPrompt, *, max_breakpoints: int = MAX_BREAKPOINTS
) -> tuple[CacheBlock, ...]:
    """Split ``prompt`` into blocks at stability changes and mark the breakpoints."""
    if not 0 <= max_breakpoints <= MAX_BREAKPOINTS:
        raise UsageError(
            f"max_breakpoints must be between 0 and {MAX_BREAKPOINTS}, not {max_breakpoints}",
            hint="Anthropic accepts at most four cache breakpoints per request",
        )
    runs: list[tuple[str, list[str], int, int]] = []  # stability, part ids, start, end
    for part in prompt.parts:
        if runs and runs[-1][0] == part.stability:
            runs[-1][1].append(part.id)
            runs[-1] = (part.stability, runs[-1][1], runs[-1][2], part.end)
        else:
            runs.append((part.stability, [part.id], part.start, part.end))
    # The volatility of the prefix ending with each run, and where it is about to grow.
    volatility: list[int] = []
    for stability, *_ in runs:
        volatility.append(max(_RANK[stability], volatility[-1] if volatility else 0))
    candidates = [
        index
        for index in range(len(runs))
        if index == len(runs) - 1 or volatility[index + 1] > volatility[index]
    ]
    chosen = set(sorted(candidates, key=lambda i: volatility[i])[:max_breakpoints])
    blocks = []
    for index, (stability, ids, start, _end) in enumerate(runs):
        end = runs[index + 1][2] if index + 1 < len(runs) else len(prompt.text)
        blocks.append(CacheBlock(prompt.text[start:end], stability, tuple(ids), index in chosen))
    return tuple(blocks)


def anthropic_system(
    prompt: AssembledPrompt,
    *,
    ttl: Literal["5m", "1h"] | None = None,
    max_breakpoints: int = MAX_BREAKPOINTS,
) -> list[dict[str, Any]]:
    """The ``system`` parameter of an Anthropic Messages API request, as text blocks.

    Blocks at breakpoints carry ``cache_control`` (``ephemeral``, with ``ttl``
    when given). An empty prompt gives an empty list.
    """
    if ttl is not None and ttl not in CACHE_TTLS:
        raise UsageError(
            f"ttl={ttl!r} is not a cache lifetime the Anthropic API accepts",
            hint=f"use one of {', '.join(map(repr, CACHE_TTLS))}, or None for the default (5m)",
        )
    control: dict[str, Any] = {"type": "ephemeral"}
    if ttl is not None:
        control["ttl"] = ttl
    system: list[dict[str, Any]] = []
    for block in cache_blocks(prompt, max_breakpoints=max_breakpoints):
        item: dict[str, Any] = {"type": "text", "text": block.text}
        if block.breakpoint:
            item["cache_control"] = dict(control)
        system.append(item)
    return system


def openai_message(
    prompt: AssembledPrompt, *, role: Literal["system", "developer"] = "system"
) -> dict[str, str]:
    """An OpenAI-style chat message holding the prompt.

    OpenAI caches request prefixes automatically, so the message is the text
    as assembled: its static parts already come first. Use ``developer`` for
    models that take instructions in that role.
    """
    if role not in OPENAI_ROLES:
        raise UsageError(
            f"role={role!r} is not a role for instructions",
            hint=f"use {' or '.join(map(repr, OPENAI_ROLES))}; a user message is not a prompt",
        )
    return {"role": role, "content": prompt.text}
