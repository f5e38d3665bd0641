"""``--set``: one reading for both spellings of a declared variable (``NAME=`` and
``variables.NAME=``), the JSON reading docs/cli.md states and the Python API shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import ContextError, load_dir
from tests.conftest import run_cli, write_catalog


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_catalog(
        tmp_path,
        "planner",
        parts=[
            {"id": "intro", "body": "Hello."},
            {"id": "plan", "when": "plan_mode", "body": "Plan only."},
            {"id": "files", "when": "len(modified_files) == 2", "body": "Two files."},
        ],
        variables=[
            {"name": "plan_mode", "type": "bool"},
            {"name": "modified_files", "type": "list"},
        ],
    )
    return tmp_path


@pytest.mark.parametrize("spelling", ["plan_mode", "variables.plan_mode"])
@pytest.mark.parametrize("word", ["no", "yes", "off", "1", "False"])
def test_a_bool_is_json_true_or_false_in_either_spelling(
    root: Path, capsys: pytest.CaptureFixture[str], spelling: str, word: str
) -> None:
    code, out, err = run_cli(capsys, "assemble", "planner", "--path", str(root), "--set",
                             f"{spelling}={word}")  # fmt: skip
    assert (code, out) == (2, "")
    assert err == (
        f"catalog: error: variables.plan_mode: --set {spelling}={word!r}: not a valid bool\n"
        "  hint: write true or false (values are read as JSON)\n"
    )


@pytest.mark.parametrize("spelling", ["plan_mode", "variables.plan_mode"])
def test_true_and_false_read_alike_in_either_spelling(
    root: Path, capsys: pytest.CaptureFixture[str], spelling: str
) -> None:
    base = ("assemble", "planner", "--path", str(root), "--set")
    assert run_cli(capsys, *base, f"{spelling}=true")[1] == "Hello.\n\nPlan only.\n"
    assert run_cli(capsys, *base, f"{spelling}=false")[1] == "Hello.\n"


@pytest.mark.parametrize("spelling", ["modified_files", "variables.modified_files"])
def test_a_list_reads_alike_in_either_spelling(
    root: Path, capsys: pytest.CaptureFixture[str], spelling: str
) -> None:
    base = ("assemble", "planner", "--path", str(root), "--set")
    assert run_cli(capsys, *base, f"{spelling}=a.py,b.py")[1] == "Hello.\n\nTwo files.\n"
    assert run_cli(capsys, *base, f'{spelling}=["a.py", "b.py"]')[1] == "Hello.\n\nTwo files.\n"


def test_the_python_api_refuses_the_same_words(root: Path) -> None:
    catalog = load_dir(root / "planner" / "1.0.0")
    with pytest.raises(ContextError, match="plan_mode"):
        catalog.assemble({"variables": {"plan_mode": "no"}})
    assert catalog.assemble({"variables": {"plan_mode": False}}).text == "Hello."
