"""A review and a cost as text and as JSON.

Amounts print in dollars to four places (a conversation's prompt costs cents);
JSON carries them as exact decimal strings.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

from catalog.review.compare import ModelCost, PromptChange, Review, VersionChange
from catalog.review.economics import Cost

__all__ = [
    "cost_change",
    "cost_lines",
    "money",
    "priced",
    "render_json",
    "render_text",
    "signed",
    "tokens_change",
]

_PLACES: Final = Decimal("0.0001")
_TTL_WORDS: Final = {"5m": "5-minute", "1h": "1-hour"}


def money(amount: Decimal) -> str:
    """``$0.0241``: dollars to four places, rounded half up (``$0.0000``, never
    ``$-0.0000``, for a loss of less than half a hundredth of a cent)."""
    shown = amount.quantize(_PLACES, ROUND_HALF_UP)
    return f"${shown if shown else abs(shown)}"


def signed(number: int) -> str:
    """``+12``, ``-3`` or ``0``."""
    return f"{number:+d}" if number else "0"


def cost_lines(cost: Cost) -> list[str]:
    """The figures of one conversation's cost and the formula each comes from."""
    model = cost.model
    write, read = model.write(cost.ttl), model.read
    lines = [
        f"{model.name} ({model.id}), {_TTL_WORDS.get(cost.ttl, cost.ttl)} cache",
        f"  cached prefix P   {cost.prefix_tokens} tokens "
        f"(minimum cached: {model.min_cacheable_tokens})",
        f"  volatile rest V   {cost.volatile_tokens} tokens",
        f"  turns N           {cost.turns}",
        f"  input price p     ${model.input_per_mtok} per million tokens "
        f"(cache write x{write}, read x{read})",
        f"  without caching   {money(cost.cost_uncached):<10} N*(P+V)*p",
        f"  with caching      {money(cost.cost_cached):<10} "
        f"p*({write}*P + V + (N-1)*({read}*P + V))",
        f"  saving            {money(cost.saving)} ({cost.saving_percent}%)",
    ]
    if cost.reason:
        lines.append(f"  no saving: {cost.reason}")
    return lines


def tokens_change(old: int, new: int) -> str:
    """``3744 -> 3800 (+56)``."""
    return f"{old} -> {new} ({signed(new - old)})"


def cost_change(cost: ModelCost, *, why: bool = True) -> str:
    """One model's cached cost per conversation before and after, with the change (and,
    with ``why``, why caching saves nothing where it does not)."""
    if cost.problem:
        return f"{cost.model}: {cost.problem}"
    old, new = cost.old, cost.new
    sides = " -> ".join(money(side.cost_cached) if side else "none" for side in (old, new))
    change = ""
    if old is not None and new is not None and old.cost_cached:
        growth = 100 * (new.cost_cached - old.cost_cached) / old.cost_cached
        change = f" ({growth.quantize(Decimal('0.1'), ROUND_HALF_UP):+}%)"
    either = new or old
    turns = f" per {either.turns}-turn conversation" if either and why else ""
    unsaved = [side.reason for side in (old, new) if side is not None and side.reason]
    if unsaved and why:
        return f"{cost.model}: {sides}{turns}{change}; no saving: {unsaved[-1]}"
    return f"{cost.model}: {sides}{turns}{change}" + (" (not cached)" if unsaved else "")


def _prompt_text(prompt: PromptChange) -> list[str]:
    head = (
        f"  context {prompt.context}, agent {prompt.agent}: {prompt.status}, tokens "
        f"{tokens_change(prompt.old_tokens, prompt.new_tokens)}"
    )
    if prompt.old_tools_tokens or prompt.new_tools_tokens:
        head += f", tools {tokens_change(prompt.old_tools_tokens, prompt.new_tools_tokens)}"
    lines = [head]
    lines.extend(f"    + {part}: {why}" for part, why in prompt.parts_in)
    lines.extend(f"    - {part}: {why}" for part, why in prompt.parts_out)
    lines.extend(f"    {cost_change(cost)}" for cost in prompt.costs)
    lines.extend(f"    note: {note}" for note in prompt.notes)
    for diff in (prompt.system_diff, prompt.tools_diff):
        if diff and prompt.status == "changed":
            lines.extend(f"    {line}" for line in diff.split("\n"))
    return lines


def _version_head(version: VersionChange) -> str:
    where = f" in {version.root}/" if version.root else ""
    kind = {"added": "new catalog", "removed": "catalog removed"}.get(version.catalog_status)
    status = kind or {"added": "new version", "removed": "version removed"}.get(
        version.status, "changed"
    )
    if version.status == "added" and version.old_version and kind is None:
        status += f", compared with {version.old_version}"
    if version.through is not None:
        status += f" {version.through.sentence}"
    return f"{version.label}{where}: {status}"


def render_text(result: Review) -> str:
    """The review for a terminal: each version, then each prompt with its diffs."""
    lines = [f"catalog review {result.base} .. {result.head}"]
    if not result.versions:
        lines.append("no catalog changed")
    for version in result.versions:
        lines.append("")
        lines.append(_version_head(version))
        if version.error:
            lines.append(f"  error: {version.error}")
        if not version.error and all(p.status == "unchanged" for p in version.prompts):
            lines.append("  files changed; no reviewed prompt did")
        for prompt in version.prompts:
            if prompt.status != "unchanged":
                lines.extend(_prompt_text(prompt))
    if priced(result):
        lines.extend(["", f"costs: {result.priced}"])
    return "\n".join(lines) + "\n"


def priced(result: Review) -> bool:
    """Whether any prompt of the review was priced."""
    return any(prompt.costs for version in result.versions for prompt in version.prompts)


def _cost_json(cost: ModelCost) -> dict[str, Any]:
    return {
        "model": cost.model,
        "problem": cost.problem or None,
        "before": cost.old.to_dict() if cost.old else None,
        "after": cost.new.to_dict() if cost.new else None,
    }


def _through_json(version: VersionChange) -> dict[str, Any] | None:
    through = version.through
    if through is None:
        return None
    return {"base": through.base, "changed": through.changed, "depth": through.depth}


def render_json(result: Review) -> dict[str, Any]:
    """The review as JSON-ready data (amounts as exact decimal strings)."""
    return {
        "base": result.base,
        "head": result.head,
        "changed": result.changed,
        "priced": result.priced,
        "errors": result.errors,
        "versions": [
            {
                "root": version.root,
                "catalog": version.catalog,
                "status": version.status,
                "catalog_status": version.catalog_status,
                "old_version": version.old_version,
                "new_version": version.new_version,
                "error": version.error or None,
                "through": _through_json(version),
                "prompts": [
                    {
                        "context": prompt.context,
                        "agent": prompt.agent,
                        "status": prompt.status,
                        "old_tokens": prompt.old_tokens,
                        "new_tokens": prompt.new_tokens,
                        "delta": prompt.delta,
                        "old_tools_tokens": prompt.old_tools_tokens,
                        "new_tools_tokens": prompt.new_tools_tokens,
                        "tools_delta": prompt.tools_delta,
                        "parts_in": [{"id": i, "why": w} for i, w in prompt.parts_in],
                        "parts_out": [{"id": i, "why": w} for i, w in prompt.parts_out],
                        "system_diff": prompt.system_diff,
                        "tools_diff": prompt.tools_diff,
                        "costs": [_cost_json(cost) for cost in prompt.costs],
                        "notes": list(prompt.notes),
                    }
                    for prompt in version.prompts
                ],
            }
            for version in result.versions
        ],
    }
