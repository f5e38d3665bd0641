"""Per-conversation prompts: construct, get, rebuild, stores, and real concurrent processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import (
    Catalog,
    NotFoundError,
    PromptStore,
    SessionError,
    Sessions,
    SQLiteStore,
    StoredPrompt,
    load_dir,
)


@pytest.fixture
def folder(make_catalog: Callable[..., Path]) -> Path:
    return make_catalog(
        parts=[
            {"id": "who", "body": "Conversation {{ session.id }} in {{ env.cwd }}."},
            {"id": "extra", "when": "note", "body": "{{ note }}"},
        ],
        variables=[{"name": "note", "type": "str"}],
        agents=[{"name": "helper"}],
    )


@pytest.fixture
def cat(folder: Path) -> Catalog:
    return load_dir(folder)


def test_construct_persists_and_get_returns_it(cat: Catalog) -> None:
    sessions = Sessions(cat)
    assert sessions.get("c1") is None
    made = sessions.construct("c1", {"env": {"cwd": "/a"}})
    assert made.text == "Conversation c1 in /a."
    assert (made.catalog, made.version, made.agent, made.revision) == ("demo", "1.0.0", "main", 0)
    assert (
        made.fingerprint
        == cat.assemble({"env": {"cwd": "/a"}, "session": {"id": "c1"}}).fingerprint
    )
    assert sessions.get("c1") == made


def test_an_existing_conversation_keeps_its_prompt(cat: Catalog) -> None:
    sessions = Sessions(cat)
    first = sessions.construct("c1", {"env": {"cwd": "/a"}})
    again = sessions.construct("c1", {"env": {"cwd": "/changed"}})
    assert again == first
    assert (
        sessions.construct("c2", {"env": {"cwd": "/changed"}}).text
        == "Conversation c2 in /changed."
    )


def test_a_context_with_its_own_session_keeps_it(cat: Catalog) -> None:
    made = Sessions(cat).construct("c1", {"session": {"id": "outer"}})
    assert made.text.startswith("Conversation outer in")


def test_rebuild_stores_without_and_returns_with_the_appended_text(cat: Catalog) -> None:
    sessions = Sessions(cat)
    sessions.construct("c1", {"env": {"cwd": "/a"}})
    sent = sessions.rebuild("c1", {"env": {"cwd": "/b"}}, append="  Compact now.\n")
    assert sent == "Conversation c1 in /b.\n\nCompact now."
    stored = sessions.get("c1")
    assert stored is not None
    assert (stored.text, stored.revision) == ("Conversation c1 in /b.", 1)
    assert sessions.rebuild("c1", {"env": {"cwd": "/b"}}) == "Conversation c1 in /b."
    assert sessions.get("c1").revision == 2  # type: ignore[union-attr]


def test_rebuild_of_an_unknown_conversation_constructs_it(cat: Catalog) -> None:
    sessions = Sessions(cat)
    assert sessions.rebuild("new", {}, append="x") == "Conversation new in .\n\nx"
    assert sessions.get("new").revision == 0  # type: ignore[union-attr]


def test_a_file_store_outlives_its_process_objects(cat: Catalog, tmp_path: Path) -> None:
    path = tmp_path / "prompts.sqlite"
    with SQLiteStore(path) as store:
        Sessions(cat, store).construct("c1", {"env": {"cwd": "/a"}})
    reopened = Sessions(cat, path)
    stored = reopened.get("c1")
    assert stored is not None and stored.text == "Conversation c1 in /a."


def test_sub_agent_sessions(cat: Catalog) -> None:
    assert Sessions(cat, agent="helper").construct("c1").agent == "helper"
    with pytest.raises(NotFoundError, match="no agent 'nobody'"):
        Sessions(cat, agent="nobody")


def test_bad_input_is_a_session_error(cat: Catalog, tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="must not be empty"):
        Sessions(cat).construct("")
    (tmp_path / "dir.sqlite").mkdir()
    with pytest.raises(SessionError, match="cannot open the prompt store"):
        SQLiteStore(tmp_path / "dir.sqlite")


class DictStore:
    """A store of our own, to show the protocol is all a store needs."""

    def __init__(self) -> None:
        self.rows: dict[str, StoredPrompt] = {}

    def get(self, conversation_id: str) -> StoredPrompt | None:
        return self.rows.get(conversation_id)

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        return self.rows.setdefault(prompt.conversation_id, prompt)

    def put(self, prompt: StoredPrompt) -> None:
        self.rows[prompt.conversation_id] = prompt


def test_any_store_implementing_the_protocol_works(cat: Catalog) -> None:
    store = DictStore()
    assert isinstance(store, PromptStore)
    sessions = Sessions(cat, store)
    sessions.construct("c1", {"variables": {"note": "hello"}})
    assert store.rows["c1"].text == "Conversation c1 in .\n\nhello"


# -- several real processes on one SQLite file

WORKERS = 4
PER_WORKER = 25


def _worker(folder: str, db: str, worker: int, queue: Any) -> None:
    try:
        queue.put(_work(folder, db, worker))
    except Exception as exc:  # reported to the parent, which fails the test with it
        queue.put(repr(exc))


def _work(folder: str, db: str, worker: int) -> dict[str, str]:
    cat = load_dir(folder)
    sessions = Sessions(cat, db)
    seen: dict[str, str] = {}
    for index in range(PER_WORKER):
        own = f"w{worker}-{index}"
        seen[own] = sessions.construct(own, {"env": {"cwd": f"/w{worker}"}}).text
        shared = f"shared-{index % 5}"
        seen[shared] = sessions.construct(shared, {"env": {"cwd": f"/w{worker}"}}).text
        neighbour = (worker + 1) % WORKERS
        other = sessions.get(f"w{neighbour}-{index}")
        expected = f"Conversation w{neighbour}-{index} in /w{neighbour}."
        if other is not None and other.text != expected:
            raise AssertionError(f"w{neighbour}-{index} read back as {other.text!r}")
    return seen


@pytest.mark.slow
def test_concurrent_processes_lose_nothing(folder: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "prompts.sqlite")
    SQLiteStore(db).close()
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    processes = [
        context.Process(target=_worker, args=(str(folder), db, worker, queue))
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    results = [queue.get(timeout=120) for _ in processes]
    assert all(isinstance(result, dict) for result in results), results
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    sessions = Sessions(load_dir(folder), db)
    for worker in range(WORKERS):
        for index in range(PER_WORKER):
            stored = sessions.get(f"w{worker}-{index}")
            assert stored is not None
            assert stored.text == f"Conversation w{worker}-{index} in /w{worker}."
    for index in range(5):
        winner = sessions.get(f"shared-{index}")
        assert winner is not None
        # Every process was handed the one prompt that was stored first.
        assert {seen[f"shared-{index}"] for seen in results} == {winner.text}
