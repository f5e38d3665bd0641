"""A version folder given on the command line: every command that takes one says, in the
same words, what the path is instead (missing, a file, a catalog's folder) and what to give."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli as run

COMMANDS = [
    ["show"],
    ["assemble"],
    ["lock"],
    ["validate"],
    ["stamp"],
    ["port", "--to", "demo@1.0.0"],
]


def _run(capsys: pytest.CaptureFixture[str], command: list[str], path: Path) -> tuple[int, str]:
    code, out, err = run(capsys, command[0], str(path), *command[1:])
    assert out == ""
    return code, err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_the_manifest_file_itself_is_refused_naming_its_folder(
    cli_demo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    manifest = cli_demo / "demo" / "1.0.0" / "catalog.toml"
    code, err = _run(capsys, command, manifest)
    assert code == 2
    assert f"error: {manifest}: a file, not a folder\n" in err
    assert f"hint: give the folder holding it: {manifest.parent}\n" in err
    assert "catalog.toml/catalog.toml" not in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_catalogs_folder_is_refused_naming_one_of_its_versions(
    cli_demo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    folder = cli_demo / "demo"
    code, err = _run(capsys, command, folder)
    assert code == 2
    assert f"error: {folder}: no catalog.toml in this folder\n" in err
    assert f"give one of its versions, e.g. {folder / '1.0.0'}\n" in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_missing_folder_is_said_to_be_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, err = _run(capsys, command, tmp_path / "nope")
    assert code == 2
    assert f"error: {tmp_path / 'nope'}: this folder does not exist\n" in err
    assert "hint: give the folder of one catalog version, the one holding catalog.toml" in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_another_file_is_a_file_not_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    body = tmp_path / "intro.md"
    body.write_text("Hello.\n", encoding="utf-8")
    code, err = _run(capsys, command, body)
    assert code == 2
    assert f"error: {body}: a file, not a folder\n" in err
    assert "hint: give the folder of one catalog version, the one holding catalog.toml" in err


@pytest.mark.parametrize("command", ["assemble", "validate", "stamp"])
def test_a_body_that_is_a_folder_is_said_to_be_a_folder_not_missing(
    cli_demo: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    folder = cli_demo / "demo" / "1.0.0"
    body = folder / "intro.md"
    body.unlink()
    body.mkdir()
    code, out, err = run(capsys, command, str(folder))
    assert code == (1 if command == "validate" else 2)
    assert f"{body}: cannot read the body of part 'intro': a folder, not a regular file" in (
        out + err
    )
    assert "does not exist" not in out + err
