"""Options go anywhere among a command's words, also before an optional positional
(``catalog log NAME --path DIR PART``), as docs/cli.md says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli, write_catalog


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for version, body in (("1.0.0", "Be brief."), ("1.1.0", "Be very brief.")):
        write_catalog(tmp_path, "mybot", version, parts=[{"id": "style", "body": body}])
    return tmp_path


@pytest.mark.parametrize(
    "words",
    [
        ["log", "mybot", "style", "--path", "{root}"],
        ["log", "mybot", "--path", "{root}", "style"],
        ["log", "--path", "{root}", "mybot", "style"],
        ["--path", "{root}", "log", "mybot", "--format", "text", "style"],
    ],
)
def test_log_takes_its_options_anywhere(
    root: Path, capsys: pytest.CaptureFixture[str], words: list[str]
) -> None:
    code, out, err = run_cli(capsys, *(word.format(root=root) for word in words))
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "mybot: style: 2 changes"


def test_an_option_between_optional_positionals_elsewhere(
    root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lock = tmp_path / "x.lock"
    code, _, err = run_cli(capsys, "lock", "--path", str(root), "-o", str(lock), "mybot")
    assert (code, err) == (0, f"locked mybot 1.1.0 in {lock}\n")
    code, out, _ = run_cli(capsys, "validate", "mybot@1.0.0", "--path", str(root), "mybot@1.1.0")
    assert code == 0  # both versions checked (their stale token estimates are warnings)
    assert [line.split(":")[0] for line in out.splitlines()[:2]] == ["mybot@1.0.0", "mybot@1.1.0"]


def test_a_stray_word_is_still_unrecognized(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "log", "mybot", "--path", str(root), "style", "extra")
    assert exit_.value.code == 2
    assert "catalog log: error: unrecognized arguments: extra" in capsys.readouterr().err
