"""What a new user mistypes: every unknown name is answered with the closest known ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import NotFoundError
from tests.conftest import run_cli as run


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
