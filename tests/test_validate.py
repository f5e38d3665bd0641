"""`check_catalog`: stale token estimates and turn parts that break the cache prefix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from catalog import load_dir
from catalog.validate import check_catalog

# cl100k_base: "hello world" is 2 tokens.
HELLO = "hello world"


def test_stale_token_estimate_is_a_warning(make_catalog: Callable[..., Path]) -> None:
    cat = load_dir(
        make_catalog(
            parts=[
                {"id": "fresh", "body": HELLO, "tokens": 2},
                {"id": "stale", "body": HELLO, "tokens": 40},
            ]
        )
    )
    problems = check_catalog(cat)
    assert [p.severity for p in problems] == ["warning"]
    assert "'stale'" in problems[0].message
    assert "estimate 40 is stale" in problems[0].message
    assert "2 cl100k_base tokens" in problems[0].message
    assert problems[0].where.endswith("catalog.toml")


def test_estimates_for_an_unavailable_tokenizer_are_not_checked(
    make_catalog: Callable[..., Path],
) -> None:
    cat = load_dir(
        make_catalog(
            catalog={"tokenizer": "o200k_base"}, parts=[{"id": "a", "body": HELLO, "tokens": 99}]
        )
    )
    (problem,) = check_catalog(cat)
    assert problem.severity == "warning"
    assert "'o200k_base' is not available offline" in problem.message


def test_turn_part_before_static_parts_is_a_warning(make_catalog: Callable[..., Path]) -> None:
    cat = load_dir(
        make_catalog(
            parts=[
                {"id": "intro", "order": 10, "body": HELLO, "tokens": 2},
                {"id": "clock", "order": 20, "stability": "turn", "body": HELLO, "tokens": 2},
                {"id": "rules", "order": 30, "body": HELLO, "tokens": 2},
                {"id": "more", "order": 40, "body": HELLO, "tokens": 2},
            ],
        )
    )
    (problem,) = check_catalog(cat)
    assert problem.severity == "warning"
    assert "'clock'" in problem.message
    assert "rules, more" in problem.message
    assert "agent main" in problem.message


def test_turn_parts_last_or_for_other_agents_are_fine(make_catalog: Callable[..., Path]) -> None:
    cat = load_dir(
        make_catalog(
            parts=[
                {"id": "intro", "order": 10, "body": HELLO, "tokens": 2},
                # only the sub-agent gets this turn part; the static part after it is main's
                {
                    "id": "sub-clock",
                    "order": 20,
                    "stability": "turn",
                    "agents": ["explore"],
                    "body": HELLO,
                    "tokens": 2,
                },
                {"id": "rules", "order": 30, "body": HELLO, "tokens": 2},
                # reminders are not part of the prompt
                {
                    "id": "nudge",
                    "kind": "reminder",
                    "order": 5,
                    "stability": "turn",
                    "body": HELLO,
                    "tokens": 2,
                },
                {"id": "clock", "order": 90, "stability": "turn", "body": HELLO, "tokens": 2},
            ],
            agents=[{"name": "explore"}],
        )
    )
    assert check_catalog(cat) == []
