"""One command line: global options anywhere, JSON from every command, help for typos."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog.cli import COMMANDS, build_parser
from tests.conftest import run_cli as run


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_every_command_takes_format_json() -> None:
    commands = _subparsers()
    assert set(commands) == set(COMMANDS)
    for name, parser in commands.items():
        if name == "import":  # the format is chosen with the source format
            (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            parser = action.choices["piebald"]
        (option,) = [a for a in parser._actions if "--format" in a.option_strings]
        assert option.choices is not None and "json" in option.choices, name


@pytest.mark.parametrize(
    "args",
    [
        ["--path", "{root}", "list"],
        ["list", "--path", "{root}"],
        ["--format", "json", "--path", "{root}", "list"],
        ["--path", "{root}", "--format", "json", "list"],
        ["list", "--path", "{root}", "--format", "json"],
    ],
)
def test_global_options_before_or_after_the_command(
    cli_demo: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run(capsys, *(a.replace("{root}", str(cli_demo)) for a in args))
    assert (code, err) == (0, "")
    if "json" in args:
        (row,) = [row for row in json.loads(out) if row["name"] == "demo"]
        assert (row["source"], row["versions"]) == (f"path {cli_demo}", ["1.0.0"])
    else:
        assert "\ndemo " in out


def test_paths_before_and_after_the_command_add_up(
    cli_demo: Path,
    make_catalog: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    other = tmp_path / "other"
    shutil.copytree(cli_demo / "demo", other / "second")
    (other / "second" / "1.0.0" / "catalog.toml").write_text(
        (cli_demo / "demo" / "1.0.0" / "catalog.toml")
        .read_text()
        .replace('name = "demo"', 'name = "second"'),
    )
    code, out, _ = run(
        capsys, "--path", str(cli_demo), "list", "--path", str(other), "--format", "json"
    )
    assert code == 0
    assert {"demo", "second"} <= {row["name"] for row in json.loads(out)}


def test_the_format_after_the_command_wins(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "--format", "json", "show", "demo", "--path", str(cli_demo), "--format", "text"
    )
    assert code == 0
    assert out.startswith("demo 1.0.0")


def test_a_format_a_command_does_not_write_is_refused(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--format", "markdown", "list", "--path", str(cli_demo))
    assert (code, out) == (2, "")
    assert "--format markdown: `catalog list` writes text or json" in err
    code, _, err = run(
        capsys, "--format", "html", "diff", "demo@1.0.0", "demo@1.0.0", "--path", str(cli_demo)
    )
    assert code == 0 and err == ""


def test_color_is_global_too(
    cli_demo: Path, capsys: pytest.CaptureFixture[str], make_catalog: Callable[..., Path]
) -> None:
    make_catalog("demo", "1.1.0", [{"id": "intro", "body": "Hello there."}])
    code, out, _ = run(
        capsys, "--color", "always", "diff", "demo@1.0.0", "demo@1.1.0", "--path", str(cli_demo)
    )
    assert code == 1 and "\x1b[" in out
    code, out, _ = run(
        capsys,
        "--color",
        "always",
        "diff",
        "demo@1.0.0",
        "demo@1.1.0",
        "--path",
        str(cli_demo),
        "--color",
        "never",
    )
    assert code == 1 and "\x1b[" not in out


@pytest.mark.parametrize(
    ("typed", "suggested"), [("lst", "'list'"), ("asemble", "'assemble'"), ("verfy", "'verify'")]
)
def test_a_mistyped_command_gets_a_did_you_mean(
    capsys: pytest.CaptureFixture[str], typed: str, suggested: str
) -> None:
    code, out, err = run(capsys, "--path", ".", typed, "x")
    assert (code, out) == (2, "")
    assert err.startswith(f"catalog: error: '{typed}' is not a command\n")
    assert f"did you mean {suggested}?" in err


def test_an_unknown_word_far_from_any_command_lists_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "zzzzzz")
    assert code == 2
    assert "did you mean" not in err
    assert "commands: assemble, blame, completion, cost, diff" in err


def test_only_the_command_run_is_imported() -> None:
    code = (
        "import sys; from catalog.cli import COMMANDS, main; main(['list']); "
        "print(sorted(m for m in sys.modules if m.startswith('catalog.cli._') "
        "and m.removeprefix('catalog.cli._') in COMMANDS))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "['catalog.cli._list']"


def test_json_of_validate_stamp_and_lock(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = cli_demo / "demo" / "1.0.0"
    assert run(capsys, "stamp", str(folder))[0] == 0  # token estimates counted with cl100k_base
    code, out, _ = run(capsys, "validate", str(folder), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert (report["errors"], report["warnings"]) == (0, 0)
    assert report["catalogs"] == [{"catalog": str(folder), "ok": True, "problems": []}]

    (folder / "intro.md").write_text("Hello, edited.")
    code, out, _ = run(capsys, "validate", "demo", "--path", str(cli_demo), "--format", "json")
    assert code == 1
    (entry,) = json.loads(out)["catalogs"]
    assert entry["ok"] is False
    assert entry["problems"][0]["severity"] == "error"
    assert "sha256" in entry["problems"][0]["message"]

    code, out, _ = run(capsys, "stamp", str(folder), "--check", "--format", "json")
    assert code == 1
    stamped = json.loads(out)
    assert stamped["check"] is True and stamped["changed"] == len(stamped["changes"]) >= 1
    assert {c["part"] for c in stamped["changes"]} == {"intro"}
    assert run(capsys, "stamp", str(folder))[0] == 0

    code, out, _ = run(capsys, "lock", "demo", "--path", str(cli_demo), "--format", "json")
    assert code == 0
    lock = json.loads(out)
    assert lock["file"] is None
    assert lock["catalog"]["name"] == "demo" and lock["catalog"]["version"] == "1.0.0"
    assert set(lock["parts"]) == {"intro", "grep", "bash", "shell"}


def test_stamp_says_set_for_a_value_not_recorded_before(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = cli_demo / "demo" / "1.0.0" / "catalog.toml"
    lines = manifest.read_text().splitlines()
    manifest.write_text("\n".join(line for line in lines if not line.startswith("tokens")) + "\n")
    code, out, _ = run(capsys, "stamp", str(manifest.parent))
    assert code == 0
    assert "None" not in out
    assert f"{manifest.parent}: intro.tokens: set to " in out


def test_schema_without_an_argument_says_which_exist(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schema")
    assert (code, out) == (2, "")
    assert "catalog schema needs to know which schema to print" in err
    assert "`catalog schema manifest`" in err and "`catalog schema context`" in err
    assert "the following arguments are required" not in err
    code, out, _ = run(capsys, "--format", "json", "schema", "context")
    assert code == 0 and json.loads(out)["title"] == "Context"


def test_help_is_as_wide_as_columns_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    narrow = _subparsers()["assemble"].format_help().splitlines()
    monkeypatch.setenv("COLUMNS", "200")
    wide = _subparsers()["assemble"].format_help().splitlines()
    assert max(map(len, narrow)) <= 58  # argparse keeps two columns free
    assert max(map(len, wide)) > 100
    assert len(wide) < len(narrow)


def test_without_a_terminal_or_columns_help_is_80_wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest captures standard output, so it is no terminal here.
    for unusable in ("", "0", "wide"):
        monkeypatch.setenv("COLUMNS", unusable)
        lines = _subparsers()["assemble"].format_help().splitlines()
        assert 70 < max(map(len, lines)) <= 78


def test_the_top_level_epilog_keeps_its_line_breaks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    help_text = build_parser(only="list").format_help()
    epilog = build_parser(only="list").epilog
    assert epilog and "\n" in epilog.strip()
    assert epilog.strip() in help_text


# -- errors in JSON


def _json_error(err: str) -> dict[str, object]:
    """The one JSON object ``err`` holds, checked to have every field of an error."""
    (line,) = err.splitlines()
    data: dict[str, object] = json.loads(line)
    assert set(data) == {"error", "file", "line", "column", "key", "hint", "others"}
    return data


@pytest.mark.parametrize(
    "args",
    [
        ["show", "no-such-catalog"],
        ["assemble", "no-such-catalog"],
        ["tokens", "no-such-catalog"],
        ["variables", "no-such-catalog"],
        ["gather", "no-such-catalog"],
        ["lock", "no-such-catalog"],
        ["validate", "no-such-catalog"],
        ["diff", "no-such-catalog", "coding-agent"],
        ["verify", "no-such.lock"],
        ["stamp", "no-such-folder"],
        ["init", "Not A Name"],
        ["port", "no-such-folder", "--to", "coding-agent@1.2.0"],
        ["import", "piebald", "no-such-folder", "--name", "x"],
    ],
    ids=lambda args: args[0],
)
def test_with_format_json_an_error_is_a_json_object_on_stderr(
    args: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "--path", str(tmp_path), *args, "--format", "json")
    assert (code, out) == (2, "")
    data = _json_error(err)
    assert data["error"] and isinstance(data["error"], str)
    assert data["hint"]
    # The same error in text is the same words.
    code, _, text = run(capsys, "--path", str(tmp_path), *args)
    assert code == 2
    assert text.startswith("catalog: error: ") and str(data["error"]) in text


def test_a_json_error_places_every_problem_of_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "my-agent" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(
        '[catalog]\nname = "my-agent"\nversion = "1.0.0"\n\n'
        '[[part]]\nid = "a"\nfile = "a.md"\norder = 10\nwhen = "tols"\n'
    )
    manifest = str(folder / "catalog.toml")
    code, _, err = run(capsys, "--format", "json", "assemble", str(folder))
    assert code == 2
    data = _json_error(err)
    assert (data["file"], data["line"], data["key"]) == (manifest, 5, "part[0].tokens")
    assert data["others"] == [
        {
            "error": "missing required key 'sha256'",
            "file": manifest,
            "line": 5,
            "column": None,
            "key": "part[0].sha256",
            "hint": None,
        }
    ]
    (folder / "a.md").write_text("A.")
    assert run(capsys, "stamp", str(folder))[0] == 0
    code, _, err = run(capsys, "assemble", str(folder), "--format", "json")
    data = _json_error(err)
    assert (data["line"], data["column"], data["key"]) == (9, 9, "part[0].when")
    assert data["error"] == "unknown name 'tols'" and "did you mean 'tools'" in str(data["hint"])


def test_json_usage_errors_and_warnings(cli_demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run(capsys, "assemble", "--format", "json")
    err = capsys.readouterr().err
    assert info.value.code == 2
    data = _json_error(err)
    assert "required: NAME[@SPEC]|DIR" in str(data["error"])
    assert data["hint"] == "see `catalog assemble --help`"

    code, _, err = run(capsys, "--format=json", "lst")
    assert code == 2 and "did you mean 'list'" in str(_json_error(err)["hint"])
    # The last --format wins, as it does for the output.
    code, _, err = run(capsys, "--format", "json", "lst", "--format", "text")
    assert code == 2 and err.startswith("catalog: error: 'lst' is not a command")

    args = ("assemble", "demo", "--path", str(cli_demo), "--tools", "Bsh", "--format", "json")
    code, out, err = run(capsys, *args)
    assert code == 0 and json.loads(out)["notes"]
    (warning,) = [json.loads(line) for line in err.splitlines()]
    assert set(warning) == {"warning"} and "did you mean 'Bash'" in warning["warning"]
