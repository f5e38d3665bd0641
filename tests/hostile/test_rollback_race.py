"""A rollback checks and writes in one step, on both stores: a change by another writer
between the rollback's read of the history and its write makes it refused, never
restore a version other than the one it checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from catalog.conversations import Releases, ReleaseStore, ReleaseTarget, open_store
from catalog.conversations.releases import catalog_path_loader
from catalog.errors import SessionError
from tests._support.postgres_server import fresh_database, postgres_server, store, store_url
from tests.conftest import write_catalog

__all__ = ["fresh_database", "postgres_server", "store", "store_url"]


def _catalogs(root: Path, versions: tuple[str, ...]) -> Path:
    for version in versions:
        write_catalog(root, "demo", version, parts=[{"id": "who", "body": f"Demo {version}."}])
    return root


def test_a_rollback_that_lost_the_race_is_refused(
    store: ReleaseStore,
    store_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    # This server has 1.0.0 only; the other, on its own connection, has every version.
    here = Releases(store, load=catalog_path_loader([_catalogs(tmp_path / "a", ("1.0.0",))]))
    every = _catalogs(tmp_path / "b", ("1.0.0", "2.0.0", "3.0.0"))
    other_store = open_store(store_url)
    request.addfinalizer(other_store.close)
    there = Releases(other_store, load=catalog_path_loader([every]))
    there.set("production", "demo", "1.0.0", who="b")
    there.set("production", "demo", "2.0.0", who="b")

    # Between this rollback's read of the history (which checked that change #1,
    # 1.0.0, loads here) and its write, the other server sets 3.0.0: the change before
    # the latest is now #2, 2.0.0, which this server cannot load.
    write = store.rollback_release

    def interleaved(*args: Any, **kwargs: Any) -> Any:
        there.set("production", "demo", "3.0.0", who="b")
        return write(*args, **kwargs)

    monkeypatch.setattr(store, "rollback_release", interleaved)
    with pytest.raises(SessionError, match=r"changed while it was being rolled back") as caught:
        here.rollback("production", who="a")
    assert "#3" in str(caught.value) and "#2" in str(caught.value)
    history = there.history("production")
    assert [(c.number, c.action, c.target.version, c.who) for c in history] == [
        (1, "set", "1.0.0", "b"),
        (2, "set", "2.0.0", "b"),
        (3, "set", "3.0.0", "b"),
    ]


def test_a_rollback_names_the_change_it_undoes(store: ReleaseStore) -> None:
    for version in ("1.0.0", "2.0.0", "3.0.0"):
        store.set_release("p", ReleaseTarget("demo", version))
    with pytest.raises(SessionError, match="changed while"):
        store.rollback_release("p", expected=2)
    assert store.get_release("p").number == 3  # type: ignore[union-attr]
    back = store.rollback_release("p", expected=3)
    assert (back.number, back.target.version) == (4, "2.0.0")
