"""The cache economics: the cached prefix and the rest, both costs, the warnings."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from catalog import load_dir
from catalog.review.economics import cache_warnings, conversation_cost, split
from catalog.review.prices import load_prices


def test_the_prefix_holds_the_tools_and_the_parts_before_the_first_turn_part(
    make_catalog: Callable[..., Path],
) -> None:
    folder = make_catalog(
        "split",
        "1.0.0",
        [
            {"id": "a", "order": 10, "body": "a" * 40},  # 10 tokens
            {"id": "b", "order": 20, "stability": "session", "body": "b" * 80},  # 20
            {"id": "c", "order": 30, "stability": "turn", "body": "c" * 12},  # 3
            {"id": "d", "order": 40, "body": "d" * 4},  # 1, stable but after a turn part
            {"id": "t", "kind": "tool", "name": "T", "order": 50, "body": "t" * 20},  # 5
        ],
        catalog={"tokenizer": "chars"},
    )
    prompt = load_dir(folder).assemble({})
    found = split(prompt)
    # Three separators ("\n\n") of 1 token each: those after a and b are in the prefix
    # (10 + 1 + 20 + 1, and the tools' 5), the one after c in the rest (3 + 1 + 1).
    assert (found.prefix_tokens, found.volatile_tokens, found.tools_tokens) == (37, 5, 5)
    assert (found.last_cached_part, found.first_volatile_part) == ("b", "c")
    assert found.prefix_tokens + found.volatile_tokens == prompt.tokens + 5


def test_no_turn_part_means_the_whole_prompt_is_the_prefix(
    make_catalog: Callable[..., Path],
) -> None:
    folder = make_catalog(
        "whole", "1.0.0", [{"id": "a", "body": "a" * 8}], catalog={"tokenizer": "chars"}
    )
    found = split(load_dir(folder).assemble({}))
    assert (found.prefix_tokens, found.volatile_tokens) == (2, 0)


def test_a_turn_part_first_leaves_nothing_to_cache(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        "first", "1.0.0", [{"id": "now", "stability": "turn", "body": "x" * 8000}],
        catalog={"tokenizer": "chars"},
    )  # fmt: skip
    prompt = load_dir(folder).assemble({})
    cost = conversation_cost(split(prompt), load_prices().model("claude-sonnet-4-5"), turns=5)
    assert cost.cost_cached == cost.cost_uncached == Decimal("0.03")  # 5 * 2000 * 3e-6
    assert "first part changes every turn" in cost.reason


def test_more_stability_changes_than_breakpoints_are_warned(
    make_catalog: Callable[..., Path],
) -> None:
    stabilities = ["static", "session", "static", "session", "static", "session"]
    folder = make_catalog(
        "zigzag",
        "1.0.0",
        [
            {"id": f"p{n}", "order": n, "stability": s, "body": "z" * 8000}
            for n, s in enumerate(stabilities)
        ],
        catalog={"tokenizer": "chars"},
    )
    warnings = cache_warnings(
        load_dir(folder).assemble({}), load_prices().model("claude-sonnet-4-5")
    )
    assert warnings == [
        "the prompt changes stability 5 times (6 blocks), but a request carries at most 4 "
        "cache breakpoints: order the parts static, then session, then turn",
        "part 'p1' (session) comes before 2 more stable part(s) ('p2'...): their 4000 tokens "
        "are cached for one conversation only, never shared by the next; give it a higher "
        "order",
    ]


def test_a_session_part_before_a_static_one_is_warned(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        "mixed",
        "1.0.0",
        [
            {"id": "who", "order": 10, "stability": "session", "body": "w" * 400},
            {"id": "rules", "order": 20, "body": "r" * 8000},
        ],
        catalog={"tokenizer": "chars"},
    )
    prompt = load_dir(folder).assemble({})
    [warning] = cache_warnings(prompt, load_prices().model("claude-sonnet-4-5"))
    assert warning == (
        "part 'who' (session) comes before 1 more stable part(s) ('rules'...): their 2000 "
        "tokens are cached for one conversation only, never shared by the next; give it a "
        "higher order"
    )
