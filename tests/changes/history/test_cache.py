"""The history index is kept by the manifests' hashes: in memory and in the user's own
cache folder, never in a catalog's; a file there is read only when it is this user's
and checked all the same."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import catalog.changes.history.catalog_history as opening
from catalog import clear_caches
from catalog.changes.history import cache, open_history
from catalog.io.catalog_path import CatalogPath
from tests._support.history_story import STORY, write_history


@pytest.fixture(autouse=True)
def _fresh_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every open starts as a new process would: nothing kept in memory, nothing said,
    an empty cache folder."""
    clear_caches()
    monkeypatch.setattr(cache, "_warned", set())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def cached_file() -> Path:
    """The one index file in the cache folder."""
    (found,) = cache.cache_folder().iterdir()
    return found


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_history(tmp_path / "catalogs", STORY, "story")
    return tmp_path / "catalogs"


def no_building(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make building an index record its key instead of building."""
    built: list[str] = []

    def refuse(name: str, key: str, *args: Any) -> Any:
        built.append(key)
        raise AssertionError("the index was built again")

    monkeypatch.setattr(opening, "build_index", refuse)
    return built


def answers(root: Path) -> list[tuple[str, str]]:
    history = open_history("story", paths=[root])
    return [(e.version, e.change) for e in history.log("rules-v2").entries]


def test_the_index_is_built_once_and_read_back(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = answers(root)
    written = cached_file()
    assert json.loads(written.read_text(encoding="utf-8"))["versions"][0] == "1.0.0"
    assert written.name == json.loads(written.read_text(encoding="utf-8"))["key"] + ".json"
    assert not (root / "story" / "_cache").exists()  # nothing written in a catalog folder
    clear_caches()
    no_building(monkeypatch)
    assert answers(root) == first
    # The cache folder is no version.
    catalog_path = CatalogPath([root], use_env=False)
    assert [str(r.version) for r in catalog_path.versions("story")] == list(STORY)


def test_a_new_version_or_an_edited_manifest_builds_again(root: Path) -> None:
    answers(root)
    keys = {path.stem for path in cache.cache_folder().iterdir()}
    write_history(root, {"1.7.0": STORY["1.6.0"][:1]}, "story")
    assert answers(root)[-1] == ("1.7.0", "removed")
    (after,) = {path.stem for path in cache.cache_folder().iterdir()} - keys
    data = json.loads((cache.cache_folder() / f"{after}.json").read_text(encoding="utf-8"))
    assert data["versions"][-1] == "1.7.0"
    manifest = root / "story" / "1.7.0" / "catalog.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n# a comment\n", "utf-8")
    answers(root)
    assert len(list(cache.cache_folder().iterdir())) == 3


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: "not json at all",
        lambda data: json.dumps({**data, "format": 99}),
        lambda data: json.dumps({**data, "key": "0" * 64}),
        lambda data: json.dumps({**data, "runs": [[10**6, 0, 1], *data["runs"]]}),
        lambda data: json.dumps({**data, "runs": [[0, 0, 2], [0, 1, 3], *data["runs"]]}),
        lambda data: json.dumps({**data, "tokenizers": []}),
        lambda data: json.dumps({**data, "renames": [[0, "a", "b", 1.0]]}),
        lambda data: json.dumps({**data, "records": [["x", 1, 2]]}),
        lambda data: json.dumps({**data, "extra": True}),
    ],
    ids=["garbage", "format", "key", "record", "overlap", "tokenizers", "step", "types", "extra"],
)
def test_a_damaged_cache_is_built_again_and_replaced(root: Path, damage: Any) -> None:
    first = answers(root)
    written = cached_file()
    good = json.loads(written.read_text(encoding="utf-8"))
    written.write_text(damage(good), encoding="utf-8")
    clear_caches()
    assert answers(root) == first
    assert json.loads(written.read_text(encoding="utf-8")) == good


def test_links_and_files_in_the_way_are_left_alone(root: Path, tmp_path: Path) -> None:
    first = answers(root)
    written = cached_file()
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("keep me\n", encoding="utf-8")
    written.unlink()
    written.symlink_to(elsewhere)
    clear_caches()
    assert answers(root) == first
    assert elsewhere.read_text(encoding="utf-8") == "keep me\n"
    assert written.is_symlink()


def test_a_fifo_for_the_cache_file_is_neither_read_nor_written(root: Path) -> None:
    answers(root)
    written = cached_file()
    written.unlink()
    os.mkfifo(written)
    clear_caches()
    assert answers(root)[0] == ("1.0.0", "added")  # would block on reading or writing it
    assert not written.is_file()


def test_no_file_without_cache_and_none_in_catalog_folders(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_history("story", paths=[root], cache=False).log("intro")
    assert not cache.cache_folder().exists() or not list(cache.cache_folder().iterdir())
    bundled = Path(opening.__file__).resolve().parents[2] / "parts" / "coding-agent"
    open_history("coding-agent", catalog_path=CatalogPath(use_env=False)).log(kind="tool")
    assert not (bundled / "_cache").exists()
    assert not (root / "story" / "_cache").exists()
    # In memory, within a process, the index is kept all the same.
    built = no_building(monkeypatch)
    open_history("coding-agent", catalog_path=CatalogPath(use_env=False))
    assert built == []


def test_the_cache_folder_keeps_the_newest_files(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "MAX_CACHE_FILES", 2)
    for index in range(4):
        write_history(root, {f"2.{index}.0": STORY["1.6.0"]}, "story")
        answers(root)
    assert len(list(cache.cache_folder().iterdir())) == 2
