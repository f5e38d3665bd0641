"""What a new user mistypes: every unknown name is answered with the closest known ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import NotFoundError
from tests.conftest import run_cli as run


def run_usage(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run a command line whose words do not parse: it exits as argparse does."""
    with pytest.raises(SystemExit) as info:
        run(capsys, *args)
    out, err = capsys.readouterr()
    return int(str(info.value.code)), out, err


@pytest.mark.parametrize(
    "command",
    [
        ["show", "dmeo"],
        ["assemble", "dmeo"],
        ["tokens", "dmeo"],
        ["lock", "dmeo"],
        ["validate", "dmeo"],
        ["variables", "dmeo"],
        ["diff", "demo@1.0.0", "dmeo@1.0.0"],
    ],
)
def test_a_misspelt_catalog_name_names_the_closest_catalog(
    cli_demo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, out, err = run(capsys, *command, "--path", str(cli_demo))
    assert (code, out) == (2, "")
    assert "no catalog named 'dmeo'" in err
    assert "hint: did you mean 'demo'? available catalogs: " in err
    assert "add folders with --path or CATALOG_PATH" in err


@pytest.mark.parametrize("command", [["assemble", "demo"], ["tokens", "demo"], ["lock", "demo"]])
def test_a_misspelt_agent_names_the_closest_agent_in_every_command(
    cli_demo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, out, err = run(capsys, *command, "--agent", "explor", "--path", str(cli_demo))
    assert (code, out) == (2, "")
    assert "catalog demo 1.0.0 has no agent 'explor'" in err
    assert "hint: did you mean 'explore'? agents: explore, main" in err


def test_json_errors_carry_the_same_guess(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "assemble", "demo", "--agent", "explor", "--path", str(cli_demo), "--format", "json"
    )
    assert code == 2
    assert json.loads(err)["hint"] == "did you mean 'explore'? agents: explore, main"


def test_a_misspelt_part_id_names_the_closest_part(cli_demo: Path) -> None:
    cat = load_dir(cli_demo / "demo" / "1.0.0")
    with pytest.raises(NotFoundError) as caught:
        cat.part("intr")
    assert caught.value.hint == "did you mean 'intro'? `catalog show` lists the parts"


def test_a_misspelt_option_is_told_by_its_command_with_the_closest_option(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_usage(capsys, "assemble", "demo", "--path", str(cli_demo), "--explian")
    assert (code, out) == (2, "")
    assert err.startswith("usage: catalog assemble ")
    assert "catalog assemble: error: unrecognized arguments: --explian\n" in err
    assert "  hint: did you mean '--explain'? see `catalog assemble --help`\n" in err


def test_a_stray_word_of_a_sub_command_is_told_by_that_sub_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_usage(capsys, "release", "list", "extra", "--format", "json")
    assert code == 2
    error = json.loads(err)
    assert error["error"] == "unrecognized arguments: extra"
    assert error["hint"] == "see `catalog release list --help`"


def test_every_usage_error_in_text_ends_with_its_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_usage(capsys, "schema", "foo")
    assert code == 2
    assert "argument manifest|context: invalid choice: 'foo'" in err
    assert "which" not in err
    assert err.endswith("  hint: see `catalog schema --help`\n")


def test_a_commands_option_before_the_command_says_where_it_goes(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--agent", "explore", "assemble", "demo", "--path", str(cli_demo))
    assert (code, out) == (2, "")
    assert "'--agent' is not an option before the command" in err
    assert "'explore' is not a command" not in err
    assert "hint: put it after the command's name: catalog assemble ... --agent" in err


def test_a_misspelt_global_option_names_the_global_one(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--form", "json", "list")
    assert code == 2
    assert "'--form' is not an option before the command" in err
    assert "hint: did you mean '--format'?" in err
    assert run(capsys, "--format=json", "--path", str(cli_demo), "list")[0] == 0


def test_a_misspelt_set_key_names_the_closest_and_where_to_find_the_others(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "assemble", "demo", "--set", "tols=Bash", "--path", str(cli_demo))
    assert (code, out) == (2, "")
    assert "--set tols: no such variable or context field" in err
    assert "did you mean 'tools'" in err
    assert "`catalog variables demo@1.0.0` lists the catalog's variables" in err
    assert "`catalog schema context` the context's fields" in err
    code, out, err = run(capsys, "assemble", "demo", "--set", "qqq=1", "--path", str(cli_demo))
    assert code == 2
    assert "did you mean" not in err
    assert "token_budget" not in err  # the context's fields are not all listed
