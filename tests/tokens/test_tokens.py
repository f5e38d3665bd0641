"""Token counting: counters, the default, lazy figures, totals and budgets."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from catalog import BudgetError, Catalog, UsageError, load_dir
from catalog.tokens import (
    MEMO_BYTES,
    CharCounter,
    TiktokenCounter,
    get_counter,
    memo_bytes,
)


def test_char_counter_rounds_up() -> None:
    assert CharCounter()("abcdefghi") == 3
    assert CharCounter()("") == 0
    assert CharCounter().name == "chars/4"


def test_tiktoken_counts_offline() -> None:
    # cl100k_base encodes "hello world" as [15339, 1917].
    assert TiktokenCounter()("hello world") == 2
    assert TiktokenCounter()("hello world") == 2  # memoised path gives the same


def test_the_count_memo_is_bounded_by_the_bytes_of_its_texts() -> None:
    """Distinct large texts (a server's clients each sending their own) keep the memo
    under its byte bound, while a repeated text is still remembered; a text over a
    sixteenth of the bound is counted, never kept."""
    size = 900_000
    texts = [f"{n} " + "a " * (size // 2) for n in range(MEMO_BYTES * 5 // 4 // size)]
    counted = []
    for number, text in enumerate(texts):
        counter = "claude" if number % 8 == 0 else "cl100k_base"  # one memo for both
        counted.append(get_counter(counter)(text))
        assert counted[-1] > 0
        assert memo_bytes() <= MEMO_BYTES
    assert memo_bytes() >= MEMO_BYTES - 2 * size  # full: the bound is what holds it back
    kept = memo_bytes()
    latest = "claude" if (len(texts) - 1) % 8 == 0 else "cl100k_base"
    assert get_counter(latest)(texts[-1]) == counted[-1]
    assert memo_bytes() == kept  # the latest text is remembered, not added again
    assert get_counter("cl100k_base")("b " * (MEMO_BYTES // 16)) > 0
    assert memo_bytes() == kept


def test_get_counter_resolves_every_form() -> None:
    assert get_counter("chars") == CharCounter()
    assert get_counter("cl100k_base") == TiktokenCounter("cl100k_base")
    assert get_counter(None, tokenizer="cl100k_base") == TiktokenCounter("cl100k_base")
    assert get_counter(None, tokenizer="o200k_base") == CharCounter()
    assert get_counter(None) == CharCounter()

    def words(text: str) -> int:
        return len(text.split())

    custom = get_counter(words)
    assert custom.name == "words"
    assert custom("a b c") == 3
    # a lambda's name would say nothing: it is labelled "custom"
    assert get_counter(lambda text: 1).name == "custom"


def test_an_encoding_that_would_need_the_network_is_refused() -> None:
    with pytest.raises(UsageError, match="not available offline") as info:
        get_counter("o200k_base")
    assert "cl100k_base" in str(info.value)
    assert isinstance(info.value, ValueError)
    with pytest.raises(UsageError, match="not a token counter"):
        get_counter(42)  # type: ignore[arg-type]


@pytest.fixture
def small(make_catalog: Callable[..., Path]) -> Catalog:
    return load_dir(
        make_catalog(
            parts=[
                {"id": "intro", "body": "hello world"},
                {"id": "env", "stability": "session", "body": "cwd: {{ env.cwd }}"},
                {"id": "bash", "kind": "tool", "name": "Bash", "body": "Runs commands."},
            ]
        )
    )


def test_default_counter_is_the_catalogs_tokenizer(small: Catalog) -> None:
    prompt = small.assemble({"env": {"cwd": "/src"}})
    assert prompt.counter == "cl100k_base"
    assert prompt.parts[0].tokens == 2


def test_a_tokenizer_not_available_offline_falls_back_to_chars(
    make_catalog: Callable[..., Path],
) -> None:
    cat = load_dir(
        make_catalog(catalog={"tokenizer": "o200k_base"}, parts=[{"id": "a", "body": "12345678"}])
    )
    prompt = cat.assemble()
    assert prompt.counter == "chars/4"
    assert prompt.parts[0].tokens == 2


def test_figures_are_counted_only_when_read(small: Catalog) -> None:
    seen: list[str] = []

    def spy(text: str) -> int:
        seen.append(text)
        return len(text)

    prompt = small.assemble({"env": {"cwd": "/src"}}, counter=spy)
    assert seen == []
    assert prompt.parts[1].tokens == len("cwd: /src")
    assert seen == ["cwd: /src"]
    assert prompt.counter == "spy"


def test_total_counts_parts_and_separators(small: Catalog) -> None:
    # With one token per character the total must equal the text's length.
    prompt = small.assemble({"env": {"cwd": "/src"}, "tools": ["Bash"]}, counter=len)
    assert prompt.tokens == len(prompt.text)
    assert prompt.separator_tokens == 2
    assert [t.tokens for t in prompt.tools] == [len("Runs commands.")]
    data = prompt.to_dict()
    assert data["parts"][0]["tokens"] == len("hello world")
    assert data["tools"][0]["tokens"] == len("Runs commands.")


# ------------------------------------------------------------------ budgets


@pytest.fixture
def budgeted(make_catalog: Callable[..., Path]) -> Callable[..., Catalog]:
    """Five 10-character parts; with counter=len each costs 10, each separator 2."""

    def make(budget: int | None = None) -> Catalog:
        catalog = {"token_budget": budget} if budget else None
        return load_dir(
            make_catalog(
                catalog=catalog,
                parts=[
                    {"id": "identity", "order": 10, "required": True, "body": "I" * 10},
                    {"id": "a", "order": 20, "priority": 5, "body": "A" * 10},
                    {"id": "b", "order": 30, "priority": 1, "body": "B" * 10},
                    {
                        "id": "c",
                        "order": 40,
                        "priority": 1,
                        "stability": "session",
                        "body": "C" * 10,
                    },
                    {"id": "d", "order": 50, "priority": 5, "body": "D" * 10},
                ],
            )
        )

    return make


@pytest.mark.parametrize(
    ("budget", "kept", "dropped"),
    [
        (58, ["identity", "a", "b", "c", "d"], []),
        # lowest priority first; of b and c (both 1) the later one goes first
        (50, ["identity", "a", "b", "d"], ["c"]),
        (40, ["identity", "a", "d"], ["c", "b"]),
        # then priority 5: d (later) before a
        (25, ["identity", "a"], ["c", "b", "d"]),
        (10, ["identity"], ["c", "b", "d", "a"]),
    ],
)
def test_budget_drops_optional_parts_lowest_priority_first(
    budgeted: Callable[..., Catalog], budget: int, kept: list[str], dropped: list[str]
) -> None:
    prompt = budgeted(budget).assemble(counter=len)
    assert [p.id for p in prompt.parts] == kept
    assert [(p.id, p.reason) for p in prompt.excluded] == [(i, "budget") for i in dropped]
    assert prompt.tokens <= budget
    assert prompt.budget == budget
    for left in prompt.excluded:
        assert f"budget of {budget}" in left.why


def test_layout_is_recomputed_after_drops(budgeted: Callable[..., Catalog]) -> None:
    prompt = budgeted(40).assemble(counter=len)
    assert prompt.text == "I" * 10 + "\n\n" + "A" * 10 + "\n\n" + "D" * 10
    assert [prompt.text[p.start : p.end] for p in prompt.parts] == ["I" * 10, "A" * 10, "D" * 10]
    assert prompt.static_prefix == prompt.text


def test_context_budget_replaces_the_catalogs(budgeted: Callable[..., Catalog]) -> None:
    cat = budgeted(10)
    prompt = cat.assemble({"token_budget": 50}, counter=len)
    assert [p.id for p in prompt.excluded] == ["c"]
    assert prompt.budget == 50
    assert budgeted().assemble({"token_budget": 40}, counter=len).budget == 40


def test_no_budget_drops_nothing(budgeted: Callable[..., Catalog]) -> None:
    prompt = budgeted().assemble(counter=len)
    assert len(prompt.parts) == 5
    assert prompt.budget is None


def test_required_parts_over_budget_raise_with_amount_and_names(
    budgeted: Callable[..., Catalog],
) -> None:
    with pytest.raises(BudgetError) as info:
        budgeted(9).assemble(counter=len)
    message = str(info.value)
    assert "need 10 len tokens, 1 over the budget of 9" in message
    assert "identity (10)" in message
    assert "catalog.toml" in message and "catalog.token_budget" in message


def test_context_texts_are_never_dropped(budgeted: Callable[..., Catalog]) -> None:
    cat = budgeted()
    prompt = cat.assemble({"append": "X" * 5, "token_budget": 17}, counter=len)
    assert [p.id for p in prompt.parts] == ["identity", "context:append"]
    with pytest.raises(BudgetError, match=r"identity \(10\), context:append \(20\)") as info:
        cat.assemble({"append": "X" * 20, "token_budget": 30}, counter=len)
    assert "token_budget" in str(info.value)


def test_budget_must_be_positive(make_catalog: Callable[..., Path]) -> None:
    from catalog import ContextError, ManifestError

    with pytest.raises(ManifestError, match=r"catalog\.token_budget"):
        load_dir(make_catalog(catalog={"token_budget": 0}, parts=[{"id": "a"}]))
    cat = load_dir(make_catalog(parts=[{"id": "a"}]))
    with pytest.raises(ContextError, match="token_budget"):
        cat.assemble({"token_budget": -1})


_LAZY = """
import sys
import catalog
assert "tiktoken" not in sys.modules, "import"
prompt = catalog.load("coding-agent", "1.1.0").assemble({"tools": ["Bash"]})
prompt.text, prompt.parts, prompt.fingerprint, prompt.anthropic_system()
assert "tiktoken" not in sys.modules, "assemble"
prompt.tokens
assert "tiktoken" in sys.modules, "tokens"
print("ok")
"""


@pytest.mark.slow
def test_tiktoken_is_loaded_only_when_a_figure_is_read() -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", _LAZY], capture_output=True, text=True)
    assert result.stdout == "ok\n", result.stderr


def test_a_kind_whose_parts_are_all_required_makes_over_budget_an_error(
    make_catalog: Callable[..., Path],
) -> None:
    """``[defaults.system] required = true``: nothing is dropped, the error gives the
    prompt's total and the budget; a part that says ``required = false`` may still go."""
    parts = [
        {"id": "one", "order": 10, "body": "1" * 10},
        {"id": "two", "order": 20, "body": "2" * 10},
    ]
    strict = load_dir(
        make_catalog("strict", parts=parts, extra={"defaults": {"system": {"required": True}}})
    )
    assert strict.assemble({"token_budget": 22}, counter=len).tokens == 22
    with pytest.raises(BudgetError) as info:
        strict.assemble({"token_budget": 21}, counter=len)
    assert info.value.message == (
        "catalog strict 1.0.0, agent main: the system prompt is 22 len tokens, 1 over the "
        "budget of 21; none of its parts may be dropped"
    )
    loose = [parts[0], {**parts[1], "required": False}]
    mixed = load_dir(
        make_catalog("mixed", parts=loose, extra={"defaults": {"system": {"required": True}}})
    )
    fitted = mixed.assemble({"token_budget": 21}, counter=len)
    assert [p.id for p in fitted.parts] == ["one"]
    assert [(e.id, e.reason) for e in fitted.excluded] == [("two", "budget")]
