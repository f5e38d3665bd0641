"""`check_catalog`: stale token estimates and turn parts that break the cache prefix."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog import CatalogError, load_dir
from catalog.io.stamp import stamp_folder
from catalog.io.validate import check_catalog
from tests.conftest import run_cli

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
    lines = Path(problems[0].where).read_text().splitlines()
    assert problems[0].line is not None
    assert lines[problems[0].line - 1] == "tokens = 40"


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
    lines = Path(problem.where).read_text().splitlines()
    assert problem.line is not None
    assert lines[problem.line - 1] == 'tokenizer = "o200k_base"'


def test_the_chars_tokenizer_is_checked_and_stamped_with_length_over_4(
    make_catalog: Callable[..., Path],
) -> None:
    # 11 characters -> ceil(11 / 4) = 3
    folder = make_catalog(catalog={"tokenizer": "chars"}, parts=[{"id": "a", "body": HELLO}])
    manifest = folder / "catalog.toml"
    manifest.write_text(manifest.read_text().replace("tokens = 2", "tokens = 9"))
    (problem,) = check_catalog(load_dir(folder))
    assert "estimate 9 is stale, the body has 3 chars/4 tokens" in problem.message
    assert [(s.key, s.old, s.new) for s in stamp_folder(folder)] == [("tokens", "9", "3")]
    assert check_catalog(load_dir(folder)) == []


def test_stamp_with_a_tokenizer_not_available_offline_names_the_line(
    make_catalog: Callable[..., Path],
) -> None:
    folder = make_catalog(catalog={"tokenizer": "o200k_base"}, parts=[{"id": "a", "body": HELLO}])
    with pytest.raises(CatalogError, match="not available offline") as info:
        stamp_folder(folder)
    error = info.value
    assert error.file == str(folder / "catalog.toml")
    lines = (folder / "catalog.toml").read_text().splitlines()
    assert error.line is not None and lines[error.line - 1] == 'tokenizer = "o200k_base"'


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
    assert "for agent(s) main:" in problem.message
    lines = Path(problem.where).read_text().splitlines()
    assert problem.line is not None
    assert lines[problem.line - 1] == "order = 20"


def test_a_turn_part_shared_by_agents_is_one_warning(make_catalog: Callable[..., Path]) -> None:
    cat = load_dir(
        make_catalog(
            parts=[
                {"id": "clock", "order": 10, "stability": "turn", "agents": ["*"], "body": HELLO},
                {"id": "rules", "order": 20, "agents": ["main", "a2"], "body": HELLO},
                {"id": "notes", "order": 30, "agents": ["a1"], "body": HELLO},
            ],
            agents=[{"name": "a1"}, {"name": "a2"}],
        )
    )
    problems = check_catalog(cat, count_tokens=False)
    assert [p.message.split(":")[0] for p in problems] == [
        "part 'clock' (stability turn, order 10) comes before static part(s) rules, notes "
        "for agent(s) main, a1, a2"
    ]


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


def test_cli_prints_the_manifest_line_of_each_warning(
    make_catalog: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(parts=[{"id": "intro", "body": HELLO, "tokens": 7}])
    code, out, _ = run_cli(capsys, "validate", str(folder))
    line = (folder / "catalog.toml").read_text().splitlines().index("tokens = 7") + 1
    assert out.splitlines()[0] == (
        f"{folder}: warning: {folder}/catalog.toml:{line}: part 'intro': token estimate 7 is "
        f"stale, the body has 2 cl100k_base tokens (run `catalog stamp {folder}`)"
    )
    assert code == 0


# A manifest as the README writes it: by hand, the bodies not stamped yet.
UNSTAMPED = """\
[catalog]
name = "my-agent"
version = "1.0.0"

[[part]]
id = "identity"
file = "identity.md"
order = 10

[[part]]
id = "git-safety"
file = "git-safety.md"
order = 20
when = '"Bash" in tools'
"""


@pytest.fixture
def unstamped(tmp_path: Path) -> Path:
    folder = tmp_path / "my-catalogs" / "my-agent" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(UNSTAMPED, encoding="utf-8")
    (folder / "identity.md").write_text("You are careful.\n", encoding="utf-8")
    (folder / "git-safety.md").write_text("Never force-push.\n", encoding="utf-8")
    return folder


def test_validate_lists_every_problem_at_its_line_and_says_what_to_run(
    unstamped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = unstamped / "catalog.toml"
    code, out, _ = run_cli(capsys, "validate", str(unstamped))
    assert code == 1
    label = f"{unstamped}: error: {manifest}"
    assert out.splitlines() == [
        f"{label}:5: part[0].tokens: missing required key 'tokens'",
        f"{label}:5: part[0].sha256: missing required key 'sha256'",
        f"{label}:10: part[1].tokens: missing required key 'tokens'",
        f"{label}:10: part[1].sha256: missing required key 'sha256'",
        f"  hint: parts are not stamped yet: run `catalog stamp {unstamped}` to record each "
        "body's sha256 and tokens (with --path for an overlay's base), then try again",
        "4 error(s), 0 warning(s)",
    ]
    code, out, _ = run_cli(capsys, "validate", str(unstamped), "--format", "json")
    (entry,) = json.loads(out)["catalogs"]
    assert [(p["line"], p["message"].split(":")[0]) for p in entry["problems"]] == [
        (5, "part[0].tokens"),
        (5, "part[0].sha256"),
        (10, "part[1].tokens"),
        (10, "part[1].sha256"),
    ]
    assert [p["hint"] is not None for p in entry["problems"]] == [False, False, False, True]


def test_the_next_step_the_error_gives_makes_the_catalog_work(
    unstamped: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(unstamped.parents[1])
    code, _, err = run_cli(capsys, "assemble", "my-agent", "--path", ".", "--tools", "Bash")
    assert code == 2
    command = err.split("run `", 1)[1].split("`", 1)[0]
    assert command == f"catalog stamp {Path('my-agent', '1.0.0')}"
    assert run_cli(capsys, *command.split()[1:])[0] == 0
    code, out, _ = run_cli(capsys, "assemble", "my-agent", "--path", ".", "--tools", "Bash")
    assert (code, out) == (0, "You are careful.\n\nNever force-push.\n")
