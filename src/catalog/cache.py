"""Cache-ready output: an assembled prompt split where its stability changes.

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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from catalog.errors import UsageError

if TYPE_CHECKING:
    from catalog.assemble import AssembledPrompt

__all__ = [
    "CACHE_TTLS",
    "MAX_BREAKPOINTS",
    "OPENAI_ROLES",
    "CacheBlock",
    "anthropic_system",
    "cache_blocks",
    "openai_message",
]

# Anthropic accepts at most four cache_control breakpoints in one request.
MAX_BREAKPOINTS = 4
CACHE_TTLS = ("5m", "1h")
"""The cache lifetimes Anthropic's ``cache_control`` accepts."""
OPENAI_ROLES = ("system", "developer")
"""The roles an OpenAI chat message carrying instructions may have."""
_RANK = {"static": 0, "session": 1, "turn": 2}


@dataclass(frozen=True)
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
