"""Prompt stores, new shapes: processes racing to create one SQLite file, and a path
holding a NUL character."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path
from typing import Any

import pytest

from catalog.conversations.connect import open_store
from catalog.conversations.sqlite import SQLiteStore
from catalog.errors import SessionError

WORKERS = 6
WRITES = 20


def _race(url: str, worker: int, barrier: Any, results: Any) -> None:
    """Open ``url`` at the same moment as the other workers, then write templates."""
    try:
        barrier.wait(timeout=60)
        store = open_store(url)
        try:
            for index in range(WRITES):
                store.set_template(f"cat{worker}", f"text {index}")
        finally:
            store.close()
        results.put("ok")
    except Exception as exc:  # reported to the test, which shows it
        results.put(repr(exc))


@pytest.mark.slow
def test_processes_creating_one_store_at_once_lose_nothing(tmp_path: Path) -> None:
    """Six processes open a store whose file and folders do not exist yet, at one
    moment: each creates what is missing or finds it made (the schema in one write
    transaction, the folders tolerating each other), none fails, every last write is
    kept, and the file and its new folders are its owner's alone."""
    folder = tmp_path / "new" / "deeper"
    url = f"sqlite:///{folder / 'p.sqlite'}"
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(WORKERS), context.Queue()
    processes = [
        context.Process(target=_race, args=(url, worker, barrier, results))
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    assert outcomes == ["ok"] * WORKERS
    store = open_store(url)
    try:
        assert [store.get_template(f"cat{w}") for w in range(WORKERS)] == [
            f"text {WRITES - 1}"
        ] * WORKERS
    finally:
        store.close()
    assert stat.S_IMODE((folder / "p.sqlite").stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("url", ["sqlite:////tmp/x\0y/p.sqlite", "/tmp/x\0y"])
def test_a_store_path_with_a_nul_is_a_session_error(url: str) -> None:
    """The system calls refuse such a path with ValueError, which escaped as a
    traceback where an OSError is a SessionError naming the store."""
    with pytest.raises(SessionError, match="NUL character"):
        open_store(url)
    with pytest.raises(SessionError, match="cannot open the prompt store"):
        SQLiteStore("/tmp/x\0y")
