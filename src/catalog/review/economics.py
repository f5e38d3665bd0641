"""What prompt caching saves on one conversation, by a documented model.

A request sends the tools array, then the system prompt. Assembly cuts the
prompt into blocks where the parts' stability changes and puts a cache
breakpoint where the prefix is about to become more volatile
(:func:`catalog.engine.prompt.cache_blocks`). The **cached prefix** P is the
tools and every part before the first ``turn`` part (those change every
turn, so nothing after them is read from the cache); the rest is V. Over N
turns at an input price of p per token:

* without caching: ``N·(P+V)·p``
* with caching: ``p·(w·P + V + (N-1)·(r·P + V))``, w the write multiplier
  (1.25 for the 5-minute cache, 2 for the 1-hour one), r the read one (0.1),

provided P reaches the model's minimum cacheable length; below it nothing is
cached and both costs are equal. Amounts are :class:`~decimal.Decimal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from catalog.engine.prompt import CACHE_TTLS, AssembledPrompt
from catalog.review.prices import ModelPrice

__all__ = ["CACHE_TTLS", "CacheSplit", "Cost", "cache_warnings", "conversation_cost", "split"]

_MILLION: Final = Decimal(1_000_000)
_RANK: Final = {"static": 0, "session": 1, "turn": 2}


@dataclass(frozen=True, slots=True)
class CacheSplit:
    """A prompt's tokens as caching sees them: the cached prefix (tools and the parts
    before the first ``turn`` part), the volatile rest, and the part the prefix ends
    with (None when it holds no part)."""

    prefix_tokens: int
    volatile_tokens: int
    tools_tokens: int
    last_cached_part: str | None
    first_volatile_part: str | None


def split(prompt: AssembledPrompt) -> CacheSplit:
    """The cached prefix and the volatile rest of ``prompt``, in its counter's tokens.

    The separator after a part counts with the part, so the prefix and the rest add
    up to the prompt's :attr:`~AssembledPrompt.tokens` plus its tools.
    """
    parts = prompt.parts
    tools = sum(tool.tokens for tool in prompt.tools)
    cut = next((i for i, part in enumerate(parts) if part.stability == "turn"), len(parts))
    separators = prompt.separator_tokens // (len(parts) - 1) if len(parts) > 1 else 0
    cached = sum(part.tokens for part in parts[:cut])
    cached += separators * (cut if cut < len(parts) else max(cut - 1, 0))
    return CacheSplit(
        tools + cached,
        prompt.tokens - cached,
        tools,
        parts[cut - 1].id if cut else None,
        parts[cut].id if cut < len(parts) else None,
    )


@dataclass(frozen=True, slots=True)
class Cost:
    """One conversation's input cost for a model, cached and not, and why caching
    saves nothing when it does not (``reason`` empty otherwise)."""

    model: ModelPrice
    prefix_tokens: int
    volatile_tokens: int
    turns: int
    ttl: str
    cost_uncached: Decimal
    cost_cached: Decimal
    reason: str

    @property
    def saving(self) -> Decimal:
        """What caching saves over the conversation."""
        return self.cost_uncached - self.cost_cached

    @property
    def saving_percent(self) -> Decimal:
        """The saving as a share of the uncached cost, one decimal (0 when it is free)."""
        if not self.cost_uncached:
            return Decimal(0)
        return (100 * self.saving / self.cost_uncached).quantize(Decimal("0.1"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: amounts as exact decimal strings (a float would round them)."""
        return {
            "model": self.model.id,
            "model_name": self.model.name,
            "cached_prefix_tokens": self.prefix_tokens,
            "volatile_tokens": self.volatile_tokens,
            "turns": self.turns,
            "ttl": self.ttl,
            "price_per_mtok": str(self.model.input_per_mtok),
            "min_cacheable_tokens": self.model.min_cacheable_tokens,
            "write_multiplier": str(self.model.write(self.ttl)),
            "read_multiplier": str(self.model.read),
            "cost_uncached": str(self.cost_uncached),
            "cost_cached": str(self.cost_cached),
            "saving": str(self.saving),
            "saving_percent": str(self.saving_percent),
            "no_saving_because": self.reason or None,
        }


def conversation_cost(cache: CacheSplit, model: ModelPrice, *, turns: int, ttl: str = "5m") -> Cost:
    """The input cost of ``turns`` turns sending the prompt ``cache`` describes."""
    per_token = model.input_per_mtok / _MILLION
    prefix, volatile = Decimal(cache.prefix_tokens), Decimal(cache.volatile_tokens)
    uncached = turns * (prefix + volatile) * per_token
    reason = ""
    if cache.prefix_tokens == 0:
        reason = "the prompt has no cacheable prefix: its first part changes every turn"
    elif cache.prefix_tokens < model.min_cacheable_tokens:
        reason = (
            f"the cached prefix is {cache.prefix_tokens} tokens, under the minimum of "
            f"{model.min_cacheable_tokens} {model.name} caches: nothing is cached"
        )
    if reason or turns == 0:
        cached = uncached
    else:
        write, read = model.write(ttl), model.read
        cached = per_token * (write * prefix + volatile + (turns - 1) * (read * prefix + volatile))
    return Cost(
        model, cache.prefix_tokens, cache.volatile_tokens, turns, ttl, uncached, cached, reason
    )


def cache_warnings(prompt: AssembledPrompt, model: ModelPrice) -> list[str]:
    """What keeps ``prompt`` from caching well on ``model``: a breakpoint whose prefix is
    under the model's minimum, more stability changes than breakpoints a request may
    carry, stable parts after a part that changes every turn."""
    warnings = []
    tools = sum(tool.tokens for tool in prompt.tools)
    blocks = prompt.cache_blocks(max_breakpoints=min(model.max_breakpoints, 4))
    counted = tools
    by_id = {part.id: part for part in prompt.parts}
    for block in blocks:
        counted += sum(by_id[part].tokens for part in block.parts)
        if block.breakpoint and block.stability != "turn" and counted < model.min_cacheable_tokens:
            warnings.append(
                f"the cache block ending with part {block.parts[-1]!r} ({block.stability}) "
                f"holds a prefix of about {counted} tokens, under the minimum of "
                f"{model.min_cacheable_tokens} {model.name} caches: it is not cached"
            )
    if len(blocks) > model.max_breakpoints:
        warnings.append(
            f"the prompt changes stability {len(blocks) - 1} times ({len(blocks)} blocks), "
            f"but a request carries at most {model.max_breakpoints} cache breakpoints: order "
            "the parts static, then session, then turn"
        )
    warnings.extend(_volatile_first(prompt))
    return warnings


_LOST: Final = {
    "turn": "their {tokens} tokens are paid in full every turn",
    "session": "their {tokens} tokens are cached for one conversation only, never shared "
    "by the next",
}


def _volatile_first(prompt: AssembledPrompt) -> list[str]:
    """A warning for the first ``turn`` part, and the first ``session`` part, that comes
    before parts more stable than itself."""
    found = []
    parts = prompt.parts
    for stability, lost in _LOST.items():
        first = next((i for i, p in enumerate(parts) if p.stability == stability), None)
        if first is None:
            continue
        rank = _RANK[stability]
        stable = [p for p in parts[first + 1 :] if _RANK[p.stability] < rank]
        if stable:
            tokens = sum(part.tokens for part in stable)
            found.append(
                f"part {parts[first].id!r} ({stability}) comes before {len(stable)} more "
                f"stable part(s) ({stable[0].id!r}...): {lost.format(tokens=tokens)}; "
                "give it a higher order"
            )
    return found
