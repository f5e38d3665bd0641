"""A changed body's error names the exact command that records its new hash."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import ManifestError
from catalog.io.manifests import stamp_command
from tests.conftest import run_cli, write_catalog


@pytest.mark.parametrize("root", ["catalogs", "my catalogs"])
def test_a_changed_body_names_the_stamp_command(tmp_path: Path, root: str) -> None:
    folder = write_catalog(tmp_path / root, "mybot", parts=[{"id": "intro", "body": "Hi."}])
    (folder / "intro.md").write_text("Hello.", encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    assert caught.value.hint == (
        "the body changed since the manifest was written: review it, then run "
        f"`catalog stamp {shlex.quote(str(folder))}` to record the new hash"
    )


def test_the_command_named_is_one_that_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_catalog(
        tmp_path / "my catalogs", "mybot", parts=[{"id": "intro", "body": "Hi."}]
    )
    (folder / "intro.md").write_text("Hello.", encoding="utf-8")
    words = shlex.split(stamp_command(folder))
    assert words[:2] == ["catalog", "stamp"]
    assert run_cli(capsys, *words[1:])[0] == 0
    assert load_dir(folder).part("intro").body == "Hello."
