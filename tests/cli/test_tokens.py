"""`catalog tokens`: the per-part table, JSON, budgets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.cli._tokens import table
from tests.conftest import run_cli as run


@pytest.fixture
def root(make_catalog: Callable[..., Path], catalogs_root: Path) -> Path:
    make_catalog(
        "demo",
        "1.0.0",
        [
            {"id": "intro", "order": 10, "required": True, "body": "hello world"},
            {"id": "long", "order": 20, "body": "hello world " * 10},
            {"id": "grep", "order": 30, "when": '"Grep" in tools', "body": "Use Grep."},
            {
                "id": "bash",
                "kind": "tool",
                "name": "Bash",
                "order": 40,
                "when": '"Bash" in tools',
                "body": "Runs commands.",
            },
        ],
    )
    return catalogs_root


def test_json_rows_in_order_with_shares(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "tokens",
        "demo",
        "--path",
        str(root),
        "--tools",
        "Grep,Bash",
        "--counter",
        "chars",
        "--format",
        "json",
    )
    assert code == 0
    data = json.loads(out)
    # chars/4: 11 -> 3, 120 -> 30 (ceil), 9 -> 3; two "\n\n" separators -> 1 each
    assert [(p["id"], p["order"], p["tokens"]) for p in data["parts"]] == [
        ("intro", 10, 3),
        ("long", 20, 30),
        ("grep", 30, 3),
    ]
    assert data["separator_tokens"] == 2
    assert data["tokens"] == 38
    assert [p["share"] for p in data["parts"]] == [7.9, 78.9, 7.9]
    assert data["tools"] == [{"name": "Bash", "part": "bash", "tokens": 4}]
    assert data["counter"] == "chars/4"
    assert data["dropped"] == []


def test_text_table_has_a_bar_per_part_scaled_to_the_largest(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "tokens", "demo", "--path", str(root), "--counter", "chars")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "demo 1.0.0, agent main: 34 tokens (chars/4)"
    long_row = next(line for line in lines if " long " in line)
    intro_row = next(line for line in lines if " intro " in line)
    assert long_row.endswith("█" * 32) or long_row.endswith("#" * 32)
    assert long_row.split()[:3] == ["20", "long", "30"]
    assert intro_row.split()[:3] == ["10", "intro", "3"]
    assert lines[-1].split() == ["total", "34"]


def test_ascii_bars_when_the_terminal_is_not_unicode(root: Path) -> None:
    prompt = load_dir(root / "demo" / "1.0.0").assemble(counter="chars")
    text = table(prompt, unicode=False)
    assert "█" not in text
    assert "#" * 32 in text
    # 3 of 30 tokens -> 3.2 columns -> 3
    assert any(line.rstrip().endswith("  ###") for line in text.splitlines())


def test_budget_shows_dropped_parts(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "tokens",
        "demo",
        "--path",
        str(root),
        "--counter",
        "chars",
        "--set",
        "token_budget=10",
    )
    assert code == 0
    assert "budget 10" in out.splitlines()[0]
    assert "dropped to fit the budget:\n  - long:" in out


def test_budget_error_exits_2(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "tokens",
        "demo",
        "--path",
        str(root),
        "--counter",
        "chars",
        "--set",
        "token_budget=2",
    )
    assert code == 2
    assert "1 over the budget of 2" in err
    assert "Traceback" not in err


def test_unknown_counter_exits_2(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tokens", "demo", "--path", str(root), "--counter", "o200k_base")
    assert code == 2
    assert "not available offline" in err


def test_rows_follow_order_not_the_manifest_layout(
    make_catalog: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        "backwards",
        "1.0.0",
        [
            {"id": "zulu", "order": 30, "body": "last"},
            {"id": "alpha", "order": 20, "body": "middle"},
            {"id": "mike", "order": 10, "body": "first"},
        ],
    )
    code, out, _ = run(capsys, "tokens", str(folder), "--counter", "chars")
    assert code == 0
    rows = [line.split()[:2] for line in out.splitlines()[2:5]]
    assert rows == [["10", "mike"], ["20", "alpha"], ["30", "zulu"]]


def test_columns_stay_aligned_with_long_ids(make_catalog: Callable[..., Path]) -> None:
    long_id = "system-prompt-censoring-assistance-with-malicious-activities"
    folder = make_catalog(
        "long", "1.0.0", [{"id": "a", "body": "x" * 40}, {"id": long_id, "body": "y" * 8}]
    )
    header, first, second = table(load_dir(folder).assemble(counter="chars")).splitlines()[1:4]
    assert first.split()[:4] == ["10", "a", "10", "76.9%"]
    assert second.split()[:4] == ["20", long_id, "2", "15.4%"]
    # 10 + 2 + one separator = 13; the share column ends at one place on every line
    assert header.index("share") + 5 == first.index("%") + 1 == second.index("%") + 1
