"""``--fail-on`` bounds: how much a prompt may grow, in tokens or in cost, before CI fails.

A bound is ``WHAT:+AMOUNT`` or ``WHAT:+PERCENT%``: ``tokens:+500`` (a prompt's
system text and tools together gain more than 500 tokens), ``tokens:+5%``,
``cost:+10%`` (a conversation's cached cost on any model the catalog names
grows by more than 10 %), ``cost:+0.01`` (by more than a cent). A prompt that
is new grows from nothing: it exceeds every percentage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Final, Literal

from catalog.errors import ReviewError
from catalog.review.compare import PromptChange, Review

__all__ = ["Bound", "exceeded", "parse_bound"]

_FORM: Final = re.compile(r"(tokens|cost):\+?([0-9]+(?:\.[0-9]+)?)(%?)")
_HINT: Final = "write tokens:+500, tokens:+5%, cost:+10% or cost:+0.01"


@dataclass(frozen=True, slots=True)
class Bound:
    """Growth beyond which a review fails: of ``tokens`` or ``cost``, an amount or a
    percentage of the value before."""

    what: Literal["tokens", "cost"]
    amount: Decimal
    percent: bool
    text: str

    def breaks(self, old: Decimal, new: Decimal) -> bool:
        """Whether going from ``old`` to ``new`` grows beyond the bound."""
        growth = new - old
        if not self.percent:
            return growth > self.amount
        if not old:
            return new > 0
        return 100 * growth / old > self.amount


def parse_bound(text: str) -> Bound:
    """The bound ``text`` writes (see the module's docstring)."""
    found = _FORM.fullmatch(text.strip())
    if found is None:
        raise ReviewError(f"--fail-on {text!r} is not a bound", hint=_HINT)
    what, amount, percent = found.groups()
    try:
        value = Decimal(amount)
    except InvalidOperation:  # the pattern admits only numbers; kept for the type checker
        raise ReviewError(f"--fail-on {text!r} is not a bound", hint=_HINT) from None
    return Bound("tokens" if what == "tokens" else "cost", value, bool(percent), text.strip())


def _tokens(prompt: PromptChange) -> tuple[Decimal, Decimal]:
    return (
        Decimal(prompt.old_tokens + prompt.old_tools_tokens),
        Decimal(prompt.new_tokens + prompt.new_tools_tokens),
    )


def exceeded(result: Review, bounds: list[Bound]) -> list[str]:
    """A sentence for every prompt (and model) whose growth breaks one of ``bounds``."""
    broken = []
    for version in result.versions:
        for prompt in version.prompts:
            where = f"{version.label}, context {prompt.context}, agent {prompt.agent}"
            for bound in bounds:
                if bound.what == "tokens":
                    old, new = _tokens(prompt)
                    if bound.breaks(old, new):
                        broken.append(f"{where}: {old} -> {new} tokens breaks {bound.text}")
                    continue
                for cost in prompt.costs:
                    if cost.new is None:
                        continue
                    before = cost.old.cost_cached if cost.old else Decimal(0)
                    if bound.breaks(before, cost.new.cost_cached):
                        broken.append(
                            f"{where}, {cost.model}: ${before} -> ${cost.new.cost_cached} "
                            f"per conversation breaks {bound.text}"
                        )
    return broken
