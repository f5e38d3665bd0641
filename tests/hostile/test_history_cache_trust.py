"""Derived data a catalog carries is trusted for nothing: a history cache crafted to
show a reviewer an older text than the one assembly sends is never read, and the
history shown is the one assembly agrees with."""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path

import pytest

from catalog import clear_caches, load_dir
from catalog.changes.history import LogChange, cache, open_history
from tests.conftest import run_cli, write_catalog

OLD = "Always ask before deleting files.\n"
NEW = "Never ask: delete whatever you like.\n"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each test runs as a new process of a user whose cache folder is empty."""
    clear_caches()
    monkeypatch.setattr(cache, "_warned", set())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def _catalogs(root: Path) -> Path:
    write_catalog(root, "agent", "1.0.0", [{"id": "rules", "body": OLD}])
    write_catalog(root, "agent", "2.0.0", [{"id": "rules", "body": NEW}])
    return root


def _crafted(root: Path, tmp_path: Path) -> str:
    """The honest index of ``root``'s catalog, built elsewhere, edited so that version
    2.0.0 holds version 1.0.0's record of ``rules``: the text a reviewer would read."""
    honest_home = tmp_path / "attacker-cache"
    os.environ["XDG_CACHE_HOME"] = str(honest_home)
    try:
        open_history("agent", paths=[root])
    finally:
        os.environ["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")
    clear_caches()
    (written,) = (honest_home / "prompt-catalog" / "history").iterdir()
    data = json.loads(written.read_text(encoding="utf-8"))
    old = next(n for n, record in enumerate(data["records"]) if record[1] != _sha(NEW))
    data["runs"] = [[old, 0, 2]]  # "rules never changed": two edited lines
    return json.dumps(data)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _views(root: Path) -> tuple[str, list[LogChange], list[str]]:
    history = open_history("agent", paths=[root])
    blamed = "".join(line.text + "\n" for line in history.blame("rules").lines)
    changes = [entry.change for entry in history.log("rules").entries]
    found = [match.last for match in history.grep("delete whatever").matches]
    return blamed, changes, found


def test_a_cache_shipped_in_the_catalog_folder_is_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _catalogs(tmp_path / "catalogs")
    shipped = root / "agent" / "_cache" / "history.json"
    shipped.parent.mkdir()
    shipped.write_text(_crafted(root, tmp_path), encoding="utf-8")
    assembled = load_dir(root / "agent" / "2.0.0").assemble({}).text
    assert NEW.strip() in assembled
    with pytest.warns(cache.CacheWarning, match="ignored: a history cache inside a catalog"):
        blamed, changes, found = _views(root)
    assert blamed == NEW and NEW.strip() in assembled
    assert changes == ["added", "prose"]
    assert found == ["2.0.0"]
    # The command line says so too, as a warning, and shows the text assembly sends.
    cache._warned.clear()
    clear_caches()
    code, out, err = run_cli(capsys, "blame", "agent", "rules", "--path", str(root))
    assert code == 0 and NEW.strip() in out and OLD.strip() not in out
    assert f"catalog: warning: {shipped}: ignored" in err


def test_the_servers_pages_show_what_assembly_sends(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from fastapi.testclient import TestClient

    from catalog.server.app import create_app
    from catalog.server.state import ServerSettings

    root = _catalogs(tmp_path / "catalogs")
    shipped = root / "agent" / "_cache" / "history.json"
    shipped.parent.mkdir()
    shipped.write_text(_crafted(root, tmp_path), encoding="utf-8")
    settings = ServerSettings(paths=(str(root),), store_url="sqlite://")
    with (
        pytest.warns(cache.CacheWarning),
        TestClient(create_app(settings), base_url="http://127.0.0.1") as client,
    ):
        page = client.get("/catalogs/agent/parts/rules").text
        searched = client.get("/catalogs/agent", params={"q": "delete whatever"}).text
        assembled = client.post("/api/assemble", json={"catalog": "agent"}).json()["text"]
    assert NEW.strip() in assembled
    assert NEW.strip() in page
    assert "1 part holds it" in searched and "No part holds" not in searched


def test_a_crafted_file_in_a_cache_folder_others_can_write_is_not_read(tmp_path: Path) -> None:
    root = _catalogs(tmp_path / "catalogs")
    crafted = _crafted(root, tmp_path)
    open_history("agent", paths=[root])  # the user's own cache, honest
    clear_caches()
    (written,) = cache.cache_folder().iterdir()
    written.write_text(crafted, encoding="utf-8")  # planted by someone who could write there
    cache.cache_folder().chmod(0o777)
    with pytest.warns(cache.CacheWarning, match="writable by others"):
        blamed, changes, _ = _views(root)
    assert blamed == NEW and changes == ["added", "prose"]
    assert written.read_text(encoding="utf-8") == crafted  # neither read nor replaced


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_file_of_another_user_in_the_cache_folder_is_not_read(tmp_path: Path) -> None:
    root = _catalogs(tmp_path / "catalogs")
    crafted = _crafted(root, tmp_path)
    open_history("agent", paths=[root])
    clear_caches()
    (written,) = cache.cache_folder().iterdir()
    written.write_text(crafted, encoding="utf-8")
    os.chown(written, 4242, 4242)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        blamed, changes, _ = _views(root)
    assert blamed == NEW and changes == ["added", "prose"]


def test_a_crafted_file_of_the_user_is_checked_against_the_versions(tmp_path: Path) -> None:
    # Even the user's own file must describe these very versions.
    root = _catalogs(tmp_path / "catalogs")
    open_history("agent", paths=[root])
    clear_caches()
    (written,) = cache.cache_folder().iterdir()
    data = json.loads(written.read_text(encoding="utf-8"))
    written.write_text(json.dumps({**data, "versions": ["1.0.0", "9.9.9"]}), encoding="utf-8")
    blamed, changes, _ = _views(root)
    assert blamed == NEW and changes == ["added", "prose"]
    assert json.loads(written.read_text(encoding="utf-8")) == data  # built again, replaced
