"""The `catalog` command: output, exit codes, and no traceback for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog.cli import main
from tests.conftest import run_cli as run
from tests.conftest import write_catalog


@pytest.fixture
def root(make_catalog: Callable[..., Path], catalogs_root: Path) -> Path:
    make_catalog(
        "demo",
        "1.0.0",
        [
            {"id": "intro", "body": "Hello {{ env.os }}."},
            {"id": "grep", "when": '"Grep" in tools', "body": "Grep docs."},
            {"id": "plan", "when": "plan_mode", "body": "Plan first."},
            {
                "id": "bash",
                "kind": "tool",
                "name": "Bash",
                "agents": ["*"],
                "when": '"Bash" in tools',
                "body": "Runs commands.",
            },
        ],
        variables=[{"name": "plan_mode", "type": "bool"}],
    )
    make_catalog("demo", "1.1.0", [{"id": "intro", "body": "Newer."}])
    return catalogs_root


def test_assemble_prints_the_prompt(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "assemble",
        "demo@1.0.0",
        "--path",
        str(root),
        "--tools",
        "Grep,Bash",
        "--set",
        "env.os=Linux",
        "--set",
        "plan_mode=true",
    )
    assert code == 0
    assert out == "Hello Linux.\n\nGrep docs.\n\nPlan first.\n"


def test_assemble_newest_by_default(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "assemble", "demo", "--path", str(root))[1] == "Newer.\n"


def test_assemble_json(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "assemble",
        "demo@~=1.0.0",
        "--path",
        str(root),
        "--tools",
        "Bash",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert code == 0
    assert data["text"] == "Hello ."
    assert data["tools"][0]["name"] == "Bash"
    assert {e["id"]: e["reason"] for e in data["excluded"]} == {
        "grep": "condition",
        "plan": "condition",
    }


def test_assemble_explain_goes_to_stderr(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "assemble", "demo@1.0.0", "--path", str(root), "--explain")
    assert code == 0
    assert out == "Hello .\n"
    assert "grep" in err and "is false" in err


def test_assemble_with_context_file(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = tmp_path / "ctx.toml"
    ctx.write_text('tools = ["Grep"]\n[env]\nos = "Darwin"\n[variables]\nplan_mode = true\n')
    code, out, _ = run(capsys, "assemble", "demo@1.0.0", "--path", str(root), "--context", str(ctx))
    assert code == 0
    assert out == "Hello Darwin.\n\nGrep docs.\n\nPlan first.\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["assemble", "nope"], "no catalog named 'nope'"),
        (["assemble", "demo@>=9"], "available versions: 1.0.0, 1.1.0"),
        (["assemble", "demo@1.0.0", "--agent", "ghost"], "no agent 'ghost'"),
        (["assemble", "demo@1.0.0", "--set", "plan_mode=maybe"], "not a valid bool"),
        (["assemble", "demo@1.0.0", "--set", "novalue"], "not KEY=VALUE"),
        (["assemble", "demo@1.0.0", "--set", "plan_mod=true"], "did you mean 'plan_mode'?"),
        (["assemble", "demo@1.0.0", "--set", "tools=3"], "tools"),
        (["assemble", "demo@1.0.0", "--context", "/no/such/file.toml"], "does not exist"),
        (["show", "demo@~~1"], "not a PEP 440"),
    ],
)
def test_bad_input_exits_2_with_a_message(
    root: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run(capsys, *args, "--path", str(root))
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert err.startswith("catalog: error: ")


def test_bad_context_file(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ctx = tmp_path / "bad.json"
    ctx.write_text('{"tools": [1, 2], "envv": {}}')
    code, _, err = run(capsys, "assemble", "demo@1.0.0", "--path", str(root), "--context", str(ctx))
    assert code == 2
    assert str(ctx) in err and "tools" in err


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["assemble"])
    assert info.value.code == 2


def test_list(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--path", str(root), "--format", "json")
    assert code == 0
    rows = {r["name"]: r for r in json.loads(out)}
    assert rows["demo"]["versions"] == ["1.0.0", "1.1.0"]
    assert "coding-agent" in rows


def test_show(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "demo@1.0.0", "--path", str(root))
    assert code == 0
    assert "demo 1.0.0" in out
    assert "variable plan_mode: bool = false" in out  # the effective default, as written in TOML
    assert '"Grep" in tools' in out


LONG_ID = "system-prompt-" + "very-long-imported-part-name-" * 2 + "ninety-characters0"


def _columns(line: str) -> list[int]:
    """Where each cell of a table line starts (cells are two spaces apart)."""
    starts, at = [], 0
    for cell in line.split("  "):
        if cell.strip():
            starts.append(at + len(cell) - len(cell.lstrip()))
        at += len(cell) + 2
    return starts


def test_show_and_list_stay_aligned_for_long_ids_and_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(LONG_ID) == 90
    long_name = "an-imported-catalog-with-a-long-name"
    for index in range(8):
        write_catalog(tmp_path, long_name, f"2.1.{index}", [{"id": "short", "body": "S."}])
    parts = [
        {"id": "a", "body": "A.", "order": 5, "when": '"Bash" in tools'},
        {"id": LONG_ID, "body": "Long." * 100, "order": 12345},
    ]
    write_catalog(tmp_path, "x", "1.0.0", parts, catalog={"summary": "Short."})
    code, out, _ = run(capsys, "show", "x", "--path", str(tmp_path))
    assert code == 0
    header, first, second = out.split("\n\n", 1)[1].splitlines()
    assert header.split() == ["order", "id", "kind", "stability", "tokens", "agents", "/", "when"]
    assert _columns(first)[1:4] == _columns(second)[1:4] == _columns(header)[1:4]
    assert first.index("main /") == second.index("main /")  # after the numbers, too
    # Numbers right-aligned: the orders and the token counts end where their headers do.
    ends = {
        len(row[: row.index(cut)].rstrip())
        for row, cut in [(first, "main /"), (second, "main /"), (header, "agents /")]
    }
    assert len(ends) == 1
    assert first.index("a ") - 2 == second.index(LONG_ID) - 2 == len("order")

    code, out, _ = run(capsys, "list", "--path", str(tmp_path))
    assert code == 0
    lines = out.splitlines()
    assert f"{long_name}  2.1.0, 2.1.1, ..., 2.1.6, 2.1.7 (8)" in out
    assert len({_columns(line)[1] for line in lines}) == 1  # one versions column
    starts = {
        line.index(summary)
        for line in lines
        for summary in ["Short.", "System prompt,"]
        if summary in line
    }
    assert len(starts) == 1  # one summary column


def test_validate_ok_and_broken(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "demo", "--path", str(root))
    assert "demo@1.0.0" in out and "demo@1.1.0" in out
    (root / "demo" / "1.1.0" / "intro.md").write_text("tampered")
    code, out, _ = run(capsys, "validate", "demo", "--path", str(root))
    assert code == 1
    assert "demo@1.1.0: error:" in out and "sha256" in out


def test_validate_a_missing_folder_is_bad_input(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate", str(tmp_path / "nowhere"))
    assert code == 2
    assert out == ""
    assert "does not exist" in err


def test_validate_takes_a_version_folder_named_without_a_slash(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root / "demo")
    code, out, _ = run(capsys, "validate", "1.0.0")
    assert code == 0
    assert out.startswith("1.0.0: ")


def test_list_shows_every_catalog_when_one_manifest_is_broken(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (root / "demo" / "1.1.0" / "catalog.toml").write_text("[catalog\n")
    code, out, err = run(capsys, "list", "--path", str(root))
    assert code == 2
    assert out.startswith("coding-agent ")
    assert "\ndemo          1.0.0, 1.1.0" in out
    assert err.startswith("catalog: error: ") and "catalog.toml:1:9: invalid TOML" in err


def test_validate_warns_on_stale_tokens(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "demo@1.1.0", "--path", str(root))
    assert "stale" in out  # the fixture writes len/4 estimates, not exact counts
    assert code == 0
    assert run(capsys, "validate", "demo@1.1.0", "--strict", "--path", str(root))[0] == 1


def test_stamp_fixes_hashes_and_tokens(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = root / "demo" / "1.1.0"
    manifest = folder / "catalog.toml"
    manifest.write_text("# keep me\n" + manifest.read_text())
    (folder / "intro.md").write_text("Rewritten body.")
    assert run(capsys, "stamp", "--check", str(folder))[0] == 1
    code, out, _ = run(capsys, "stamp", str(folder))
    assert code == 0 and "intro.sha256" in out
    assert manifest.read_text().startswith("# keep me\n")
    assert run(capsys, "stamp", "--check", str(folder))[0] == 0
    code, out, _ = run(capsys, "validate", str(folder), "--strict")
    assert code == 0, out


@pytest.mark.parametrize(
    ("old", "new", "key", "line", "words"),
    [
        ('name = "demo"', 'name = "demo"\ntokenizer = "nope"', "catalog.tokenizer", 3, "'nope'"),
        ('file = "intro.md"', 'file = "gone.md"', "part[0].file", 7, "'gone.md' does not exist"),
        ('file = "intro.md"', 'file = "../../x.md"', "part[0].file", 7, "outside the catalog"),
        ('file = "intro.md"\n', "", "part[0]", 5, "neither `file` nor `from`"),
    ],
)
def test_stamp_errors_name_the_key_and_line(
    root: Path,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    key: str,
    line: int,
    words: str,
) -> None:
    manifest = root / "demo" / "1.1.0" / "catalog.toml"
    (root / "x.md").write_text("outside")
    text = manifest.read_text()
    assert old in text
    manifest.write_text(text.replace(old, new, 1))
    code, _, err = run(capsys, "stamp", str(manifest.parent))
    assert code == 2
    assert err.startswith(f"catalog: error: {manifest}:{line}: {key}: ")
    assert words in err
    assert manifest.read_text() == text.replace(old, new, 1)


def test_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", "manifest")
    schema = json.loads(out)
    assert code == 0
    assert "part" in schema["properties"]
    context = json.loads(run(capsys, "schema", "context")[1])
    assert "tools" in context["properties"]


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["list"], 0),
        (["show", "demo@1.0.0"], 0),
        (["assemble", "demo@1.0.0"], 0),
        (["tokens", "demo@1.0.0"], 0),
        (["variables", "demo@1.0.0"], 0),
        (["diff", "demo@1.0.0", "demo@1.1.0"], 1),
        (["validate", "demo@1.0.0"], 0),
        (["schema", "context"], 0),
    ],
)
def test_path_works_with_every_command(
    root: Path, capsys: pytest.CaptureFixture[str], args: list[str], status: int
) -> None:
    code, out, err = run(capsys, *args, "--path", str(root))
    assert code == status, err
    assert out


def test_python_dash_m(root: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "catalog", "assemble", "demo@1.0.0", "--path", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout == "Hello .\n"


def test_the_program_exits_with_the_status(root: Path) -> None:
    # catalog.__main__.main is the console script's entry and python -m catalog's.
    code = (
        "import sys; from catalog.__main__ import main\n"
        f"sys.argv = ['catalog', 'assemble', 'demo@9.9', '--path', {str(root)!r}]\n"
        "status = main()\n"
        "print(status, file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stderr.splitlines()[-1] == "2"
    assert "no version of 'demo' satisfies" in result.stderr


def test_bad_input_via_subprocess_has_no_traceback(root: Path) -> None:
    (root / "demo" / "1.0.0" / "catalog.toml").write_text("[catalog\n")
    result = subprocess.run(
        [sys.executable, "-m", "catalog", "assemble", "demo@1.0.0", "--path", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "catalog.toml:1" in result.stderr
