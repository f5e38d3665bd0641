"""Which catalog a command uses: the user's --path folders before the bundled set."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import catalog
from tests.conftest import run_cli as run


@pytest.fixture
def edited_copy(tmp_path: Path) -> Path:
    """A copy of the bundled coding-agent 1.1.0 under ``mycats`` with one body edited."""
    bundled = Path(catalog.__file__).parent / "parts" / "coding-agent" / "1.1.0"
    mycats = tmp_path / "mycats"
    shutil.copytree(bundled, mycats / "coding-agent" / "1.1.0")
    return mycats


def test_validate_checks_the_copy_not_the_bundled_catalog(
    edited_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = edited_copy / "coding-agent" / "1.1.0" / "main-system-prompt.md"
    body.write_text(body.read_text(encoding="utf-8") + "Edited.\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", "coding-agent@1.1.0", "--path", str(edited_copy))
    assert code == 1
    assert "main-system-prompt" in out and "sha256" in out
    assert run(capsys, "validate", "coding-agent@1.1.0")[0] == 0


def test_assemble_and_show_use_the_copy_once_stamped(
    edited_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = edited_copy / "coding-agent" / "1.1.0"
    body = folder / "main-system-prompt.md"
    body.write_text("You are a test double.\n", encoding="utf-8")
    assert run(capsys, "stamp", str(folder))[0] == 0
    code, out, _ = run(capsys, "assemble", "coding-agent@1.1.0", "--path", str(edited_copy))
    assert code == 0
    assert out.startswith("You are a test double.\n")
    code, out, _ = run(capsys, "show", "coding-agent@1.1.0", "--path", str(edited_copy))
    assert code == 0
    assert f"from: {folder}\n" in out
    code, out, _ = run(capsys, "assemble", "coding-agent@1.1.0")
    assert not out.startswith("You are a test double.")


def test_list_says_a_file_is_not_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "somefile").write_text("x")
    code, out, err = run(capsys, "list", "--path", str(tmp_path / "somefile"))
    assert code == 2
    assert "is a file, not a folder" in err
    assert out == ""


def test_a_copied_catalog_hides_the_bundled_versions_of_its_name(
    edited_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    versions = [str(r.version) for r in catalog.CatalogPath([edited_copy]).versions("coding-agent")]
    assert versions == ["1.1.0"]
    code, _, err = run(capsys, "show", "coding-agent@1.0.0", "--path", str(edited_copy))
    assert code == 2
    assert "available versions: 1.1.0" in err
    assert f"'coding-agent' in bundled is hidden by path {edited_copy}" in err
    assert run(capsys, "show", "coding-agent@1.0.0")[0] == 0
