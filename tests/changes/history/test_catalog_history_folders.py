"""A part's history refuses the version folders loading refuses, with loading's own error.

``catalog diff`` loads a version only when its manifest's ``version`` is its folder's
name and its ``name`` the catalog folder's; ``log``, ``blame`` and ``grep`` used to
list such a folder anyway (``v1.7.0`` shown as a version ``diff`` could not load).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from catalog.changes.history import open_history
from catalog.changes.history.cache import cache_folder
from catalog.errors import ManifestError
from tests._support.history_story import STORY, write_history
from tests.conftest import run_cli as run

HISTORY_COMMANDS = [
    ("log", "story", "intro"),
    ("blame", "story", "intro"),
    ("grep", "Hello", "story"),
]


def copy_version(root: Path, folder: str, old: str, new: str) -> Path:
    """Copy story 1.6.0 to ``folder``, replacing the manifest line ``old`` by ``new``;
    the copied manifest's path."""
    target = root / "story" / folder
    shutil.copytree(root / "story" / "1.6.0", target)
    manifest = target / "catalog.toml"
    text = manifest.read_text(encoding="utf-8")
    assert old in text
    manifest.write_text(text.replace(old, new), encoding="utf-8")
    return manifest


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_history(tmp_path / "catalogs", STORY, "story")
    return tmp_path / "catalogs"


def line_of(manifest: Path, text: str) -> int:
    return manifest.read_text(encoding="utf-8").splitlines().index(text) + 1


@pytest.mark.parametrize("command", HISTORY_COMMANDS, ids=lambda c: c[0])
def test_a_folder_named_v_and_its_version_is_refused_as_diff_refuses_it(
    root: Path, command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = copy_version(root, "v1.7.0", 'version = "1.6.0"', 'version = "1.7.0"')
    message = "version '1.7.0' does not match its folder 'v1.7.0'"
    line = line_of(manifest, 'version = "1.7.0"')
    located = f"{manifest}:{line}"
    code, out, err = run(capsys, "diff", "story@1.6.0", "story@1.7.0", "--path", str(root))
    assert (code, out) == (2, "")
    assert message in err and located in err
    code, out, err = run(capsys, *command, "--path", str(root))
    assert (code, out) == (2, "")
    assert message in err and located in err
    assert "hint: rename the folder or fix the version" in err
    assert "Traceback" not in err


def test_a_catalog_name_that_is_not_its_folder_is_refused(root: Path) -> None:
    manifest = copy_version(root, "1.7.0", 'name = "story"', 'name = "other"')
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace('version = "1.6.0"', 'version = "1.7.0"'),
        encoding="utf-8",
    )
    with pytest.raises(ManifestError) as info:
        open_history("story", paths=[root], cache=False)
    assert info.value.message.startswith("name 'other' does not match its catalog folder 'story'")
    line = line_of(manifest, 'name = "other"')
    assert (info.value.file, info.value.line) == (str(manifest), line)


def test_a_cached_index_does_not_let_a_misnamed_folder_through(root: Path) -> None:
    manifest = copy_version(root, "v1.7.0", 'version = "1.6.0"', 'version = "1.7.0"')
    folder = manifest.parent
    folder.rename(root / "story" / "1.7.0")
    history = open_history("story", paths=[root])  # builds and writes the cache
    assert history.versions[-1] == "1.7.0"
    assert any(cache_folder().glob("*.json"))
    (root / "story" / "1.7.0").rename(folder)
    with pytest.raises(ManifestError) as info:
        open_history("story", paths=[root])
    assert info.value.message == "version '1.7.0' does not match its folder 'v1.7.0'"


def test_matching_folders_are_listed_as_before(root: Path) -> None:
    copy_version(root, "1.7.0", 'version = "1.6.0"', 'version = "1.7.0"')
    history = open_history("story", paths=[root], cache=False)
    assert history.versions == (
        "1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0",
    )  # fmt: skip
