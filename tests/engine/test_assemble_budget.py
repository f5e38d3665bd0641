"""Token budgets: what fits is kept whole, what does not is trimmed part by part.

Counted with ``counter=len`` so that every figure below is a length written by hand:
a part of ``"A" * 10`` costs 10 tokens and the default separator ``"\\n\\n"`` costs 2
between each two parts kept (none before the first, none after the last)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from catalog import BudgetError, Catalog, load_dir
from catalog.engine.prompt import ExcludedPart

_HINT_ALL_REQUIRED = (
    "raise the budget or shorten the prompt (`catalog tokens` shows where its tokens go); "
    "a catalog lets a part go under a budget with `required = false`"
)
_HINT_SOME_REQUIRED = (
    "raise the budget, shorten those parts, or let some go with `required = false`"
)


def _dropped(part: str, budget: int, priority: int, tokens: int) -> ExcludedPart:
    """The exclusion a part dropped to fit ``budget`` is recorded with."""
    why = f"dropped to fit the token budget of {budget} (priority {priority}, {tokens} tokens)"
    return ExcludedPart(part, "system", "budget", why)


@pytest.fixture
def three(make_catalog: Callable[..., Path]) -> Catalog:
    """Three optional parts of 10 tokens, all of priority 0: 34 tokens with separators."""
    return load_dir(
        make_catalog(
            parts=[
                {"id": "a", "order": 10, "body": "A" * 10},
                {"id": "b", "order": 20, "body": "B" * 10},
                {"id": "c", "order": 30, "body": "C" * 10},
            ]
        )
    )


def _ids(prompt: Any) -> list[str]:
    return [part.id for part in prompt.parts]


# ------------------------------------------------------------------ what fits


def test_a_prompt_that_fits_exactly_is_kept_whole(three: Catalog) -> None:
    # 10 + 2 + 10 + 2 + 10 = 34: the separators count, and a total equal to the
    # budget fits.
    prompt = three.assemble({"token_budget": 34}, counter=len)
    assert _ids(prompt) == ["a", "b", "c"]
    assert prompt.excluded == ()
    assert prompt.text == "A" * 10 + "\n\n" + "B" * 10 + "\n\n" + "C" * 10
    assert (prompt.tokens, prompt.budget) == (34, 34)


def test_one_token_over_drops_the_latest_part_and_its_separator(three: Catalog) -> None:
    # 34 > 33: c goes (equal priorities: the latest first), leaving 10 + 2 + 10 = 22.
    prompt = three.assemble({"token_budget": 33}, counter=len)
    assert _ids(prompt) == ["a", "b"]
    assert prompt.excluded == (_dropped("c", 33, 0, 10),)
    assert prompt.text == "A" * 10 + "\n\n" + "B" * 10
    assert prompt.tokens == 22


def test_trimming_stops_as_soon_as_the_prompt_fits_exactly(three: Catalog) -> None:
    # Without c the prompt is 22 tokens, exactly the budget: b stays.
    prompt = three.assemble({"token_budget": 22}, counter=len)
    assert _ids(prompt) == ["a", "b"]
    assert prompt.excluded == (_dropped("c", 22, 0, 10),)


def test_trimming_goes_on_while_the_prompt_is_over(three: Catalog) -> None:
    # 22 > 21 without c; without b too, a alone is 10 tokens (no separator left).
    prompt = three.assemble({"token_budget": 21}, counter=len)
    assert _ids(prompt) == ["a"]
    assert prompt.excluded == (_dropped("c", 21, 0, 10), _dropped("b", 21, 0, 10))
    assert (prompt.text, prompt.tokens) == ("A" * 10, 10)


def test_a_lone_part_costs_no_separator(make_catalog: Callable[..., Path]) -> None:
    # One part of 10 tokens under a budget of 10: it fits, nothing is dropped.
    cat = load_dir(make_catalog(parts=[{"id": "only", "body": "O" * 10}]))
    prompt = cat.assemble({"token_budget": 10}, counter=len)
    assert _ids(prompt) == ["only"]
    assert prompt.excluded == ()
    assert prompt.tokens == 10


def test_the_separator_is_counted_with_the_catalogs_counter(
    make_catalog: Callable[..., Path],
) -> None:
    # A 7-character separator between two parts of 3 and 4 tokens: 3 + 7 + 4 = 14.
    cat = load_dir(
        make_catalog(
            catalog={"separator": "\n-----\n"},
            parts=[
                {"id": "one", "order": 10, "body": "abc"},
                {"id": "two", "order": 20, "body": "defg"},
            ],
        )
    )
    assert _ids(cat.assemble({"token_budget": 14}, counter=len)) == ["one", "two"]
    trimmed = cat.assemble({"token_budget": 13}, counter=len)
    assert _ids(trimmed) == ["one"]
    assert trimmed.excluded == (_dropped("two", 13, 0, 4),)
    # A separator longer than the budget costs nothing once one part is left.
    assert _ids(cat.assemble({"token_budget": 5}, counter=len)) == ["one"]


# ------------------------------------------------------------------ which part goes


@pytest.fixture
def ranked(make_catalog: Callable[..., Path]) -> Callable[[int], Any]:
    """A required part and four optional ones of two priorities, each of its own size."""
    cat = load_dir(
        make_catalog(
            parts=[
                {"id": "early-low", "order": 10, "priority": 1, "body": "e" * 3},
                {"id": "core", "order": 20, "required": True, "body": "R" * 8},
                {"id": "early-high", "order": 30, "priority": 5, "body": "h" * 4},
                {"id": "late-low", "order": 40, "priority": 1, "body": "l" * 5},
                {"id": "late-high", "order": 50, "priority": 5, "body": "H" * 6},
            ]
        )
    )

    def assemble(budget: int) -> Any:
        return cat.assemble({"token_budget": budget}, counter=len)

    return assemble


def test_lowest_priority_goes_first_and_among_equals_the_latest(
    ranked: Callable[[int], Any],
) -> None:
    # Whole: 3 + 8 + 4 + 5 + 6 = 26 and 4 separators: 34 tokens.
    assert _ids(ranked(34)) == ["early-low", "core", "early-high", "late-low", "late-high"]
    # 33: late-low (priority 1, placed after early-low) goes: 34 - 5 - 2 = 27.
    prompt = ranked(33)
    assert _ids(prompt) == ["early-low", "core", "early-high", "late-high"]
    assert prompt.excluded == (_dropped("late-low", 33, 1, 5),)
    # 26: then early-low: 27 - 3 - 2 = 22; priority 5 parts stay.
    prompt = ranked(26)
    assert _ids(prompt) == ["core", "early-high", "late-high"]
    assert prompt.excluded == (_dropped("late-low", 26, 1, 5), _dropped("early-low", 26, 1, 3))
    assert prompt.tokens == 22
    # 21: then late-high (priority 5, the later one): 22 - 6 - 2 = 14.
    prompt = ranked(21)
    assert _ids(prompt) == ["core", "early-high"]
    assert prompt.excluded[-1] == _dropped("late-high", 21, 5, 6)
    assert prompt.tokens == 14


def test_a_required_part_is_kept_when_optional_ones_must_all_go(
    ranked: Callable[[int], Any],
) -> None:
    # The required part alone is 8 tokens, exactly the budget: every optional part
    # goes, lowest priority first, the later first among equals, and no error.
    prompt = ranked(8)
    assert _ids(prompt) == ["core"]
    assert prompt.excluded == (
        _dropped("late-low", 8, 1, 5),
        _dropped("early-low", 8, 1, 3),
        _dropped("late-high", 8, 5, 6),
        _dropped("early-high", 8, 5, 4),
    )
    assert (prompt.text, prompt.tokens) == ("R" * 8, 8)


def test_a_dropped_part_keeps_its_kind(make_catalog: Callable[..., Path]) -> None:
    # A sub-agent's own `agent` part is dropped like any other, and says it is one.
    cat = load_dir(
        make_catalog(
            parts=[
                {"id": "self", "kind": "agent", "agents": ["explore"], "body": "S" * 6},
                {"id": "rules", "agents": ["explore"], "required": True, "body": "r" * 4},
            ],
            agents=[{"name": "explore", "description": "searches"}],
        )
    )
    prompt = cat.assemble({"token_budget": 5}, "explore", counter=len)
    assert _ids(prompt) == ["rules"]
    why = "dropped to fit the token budget of 5 (priority 0, 6 tokens)"
    assert prompt.excluded[-1] == ExcludedPart("self", "agent", "budget", why)


# ------------------------------------------------------------------ what cannot fit


def _over(cat: Catalog, context: Mapping[str, Any] | None = None) -> BudgetError:
    with pytest.raises(BudgetError) as info:
        cat.assemble(context, counter=len)
    return info.value


def _budget_line(folder: Path) -> int:
    """The line of ``token_budget`` in the version's manifest, found by reading it."""
    lines = (folder / "catalog.toml").read_text(encoding="utf-8").splitlines()
    [number] = [n for n, line in enumerate(lines, 1) if line.startswith("token_budget =")]
    return number


def _mixed(make: Callable[..., Path], budget: Mapping[str, Any] | None = None) -> Path:
    """Required parts of 12 and 20 tokens around an optional one of 7: the prompt is
    12 + 7 + 20 + 2 separators = 43 tokens, its required parts alone 12 + 20 + 2 = 34."""
    parts: Sequence[Mapping[str, Any]] = [
        {"id": "intro", "order": 10, "required": True, "body": "i" * 12},
        {"id": "extra", "order": 20, "body": "x" * 7},
        {"id": "rules", "order": 30, "required": True, "body": "r" * 20},
    ]
    return make(parts=parts, catalog=budget)


def test_required_parts_over_the_catalogs_budget_name_themselves_and_the_manifest(
    make_catalog: Callable[..., Path],
) -> None:
    folder = _mixed(make_catalog, {"token_budget": 30})
    error = _over(load_dir(folder))
    assert error.message == (
        "catalog demo 1.0.0, agent main: the system prompt is 43 len tokens; its required "
        "parts alone need 34 len tokens, 4 over the budget of 30; required: intro (12), "
        "rules (20)"
    )
    assert error.hint == _HINT_SOME_REQUIRED
    assert (error.file, error.key) == (str(folder / "catalog.toml"), "catalog.token_budget")
    assert error.line == _budget_line(folder)


def test_required_parts_over_the_contexts_budget_point_at_the_context(
    make_catalog: Callable[..., Path],
) -> None:
    # The catalog's own budget (100) would do; the context's (33) replaces it.
    error = _over(load_dir(_mixed(make_catalog, {"token_budget": 100})), {"token_budget": 33})
    assert error.message == (
        "catalog demo 1.0.0, agent main: the system prompt is 43 len tokens; its required "
        "parts alone need 34 len tokens, 1 over the budget of 33; required: intro (12), "
        "rules (20)"
    )
    assert error.hint == _HINT_SOME_REQUIRED
    assert error.file is None
    assert error.key == "token_budget"


def test_required_parts_that_fit_only_without_the_optional_one_are_kept(
    make_catalog: Callable[..., Path],
) -> None:
    cat = load_dir(_mixed(make_catalog))
    prompt = cat.assemble({"token_budget": 34}, counter=len)
    assert _ids(prompt) == ["intro", "rules"]
    assert prompt.excluded == (_dropped("extra", 34, 0, 7),)


def test_a_prompt_of_required_parts_only_over_budget_is_an_error(
    make_catalog: Callable[..., Path],
) -> None:
    # 9 + 2 + 15 = 26 tokens, 5 over a budget of 21; nothing may go.
    folder = make_catalog(
        catalog={"token_budget": 21},
        parts=[
            {"id": "who", "order": 10, "body": "w" * 9},
            {"id": "how", "order": 20, "body": "h" * 15},
        ],
        extra={"defaults": {"system": {"required": True}}},
    )
    error = _over(load_dir(folder))
    assert error.message == (
        "catalog demo 1.0.0, agent main: the system prompt is 26 len tokens, 5 over the "
        "budget of 21; none of its parts may be dropped"
    )
    assert error.hint == _HINT_ALL_REQUIRED
    assert (error.file, error.key) == (str(folder / "catalog.toml"), "catalog.token_budget")
    assert error.line == _budget_line(folder)
    from_context = _over(load_dir(folder), {"token_budget": 25})
    assert from_context.message.endswith(
        "the system prompt is 26 len tokens, 1 over the budget of 25; none of its parts "
        "may be dropped"
    )
    assert (from_context.file, from_context.key) == (None, "token_budget")
    assert from_context.hint == _HINT_ALL_REQUIRED
