"""Both prompt stores, SQLite and PostgreSQL, under the same tests: atomic construct and
rebuild with exact revisions, user templates, and real processes writing at once."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog, SessionError, Sessions, StoredPrompt, load_dir
from catalog.conversations import (
    PromptStore,
    UserTemplate,
    accepts_template,
    open_store,
    variable_catalog,
)
from catalog.conversations.base import MAX_PROMPT_CHARS
from catalog.errors import ContextError, StoreUnavailableError, UsageError
from tests._support.postgres_server import fresh_database, postgres_server, store, store_url

# Fixtures used by the tests below.
__all__ = ["fresh_database", "postgres_server", "store", "store_url"]

pytestmark = pytest.mark.filterwarnings("error::ResourceWarning")


@pytest.fixture
def folder(make_catalog: Callable[..., Path]) -> Path:
    return make_catalog(
        parts=[{"id": "who", "body": "Conversation {{ session.id }} in {{ env.cwd }}."}],
        agents=[{"name": "helper"}],
    )


@pytest.fixture
def templated(make_catalog: Callable[..., Path]) -> Catalog:
    """A catalog that takes a user template, written here (not a bundled one)."""
    return load_dir(
        make_catalog(
            "tpl",
            parts=[{"id": "prompt", "body": "{{ brackets(template, bindings) }}"}],
            variables=[{"name": "template", "type": "str", "default": "Default in [p:cwd]."}],
            extra={
                "binding": [
                    {"name": "p:cwd", "value": "env.cwd", "description": "where"},
                    {"name": "file:", "source": "file", "description": "a file's text"},
                ]
            },
        )
    )


def _prompt(conversation: str, text: str, *, catalog: str = "demo") -> StoredPrompt:
    return StoredPrompt(conversation, text, catalog, "1.0.0", "main", f"fp-{text}", 7, 1.0)


def test_add_keeps_the_first_prompt(store: PromptStore) -> None:
    assert store.get("c") is None
    first = store.add(_prompt("c", "first"))
    assert (first.text, first.revision) == ("first", 7)  # add stores the revision given
    assert store.add(_prompt("c", "second")) == first
    assert store.get("c") == first


def test_replace_counts_revisions_exactly(store: PromptStore) -> None:
    assert store.replace(_prompt("c", "zero")).revision == 0  # none stored: revision 0
    assert store.replace(_prompt("c", "one")).revision == 1
    stored = store.replace(_prompt("c", "two"))
    assert (stored.text, stored.revision, stored.fingerprint) == ("two", 2, "fp-two")
    assert store.get("c") == stored


def test_replace_leaves_another_catalogs_conversation_alone(store: PromptStore) -> None:
    mine = store.add(_prompt("c", "mine"))
    assert store.replace(_prompt("c", "theirs", catalog="other")) == mine
    assert store.get("c") == mine


def test_templates_are_kept_per_catalog(store: PromptStore) -> None:
    assert store.get_template("a") is None
    store.set_template("a", "A [x:y]")
    store.set_template("b", "B")
    store.set_template("a", "A again, ünïcode")
    assert (store.get_template("a"), store.get_template("b")) == ("A again, ünïcode", "B")


def test_a_closed_store_says_so(store_url: str) -> None:
    store = open_store(store_url)
    store.close()
    with pytest.raises(SessionError, match="closed"):
        store.get("c")
    store.close()


def test_sessions_on_a_store_url(folder: Path, store_url: str) -> None:
    with Sessions(load_dir(folder), store_url) as sessions:
        made = sessions.construct("c1", {"env": {"cwd": "/a"}})
        assert sessions.construct("c1", {"env": {"cwd": "/b"}}) == made
        rebuilt = sessions.reconstruct("c1", {"env": {"cwd": "/b"}})
        assert (rebuilt.text, rebuilt.revision) == ("Conversation c1 in /b.", 1)
        assert sessions.rebuild("c1", {}, append="Compact.") == "Conversation c1 in .\n\nCompact."
        assert sessions.get("c1").revision == 2  # type: ignore[union-attr]


def test_user_template_get_put_and_variables(templated: Catalog, store: PromptStore) -> None:
    assert accepts_template(templated)
    editor = UserTemplate(templated, store)
    assert editor.get() == "Default in [p:cwd]."
    assert editor.put("Saved: [p:cwd]") == "Saved: [p:cwd]"
    assert editor.get() == "Saved: [p:cwd]"
    assert (
        editor.variables()
        == variable_catalog(templated)
        == [
            {"type": "p", "name": "cwd", "description": "where", "dynamic": False},
            {"type": "file", "name": "", "description": "a file's text", "dynamic": True},
        ]
    )
    with pytest.raises(SessionError, match="at most 100000"):
        editor.put("x" * 100_001)
    assert editor.get() == "Saved: [p:cwd]"


def test_a_saved_template_affects_only_conversations_constructed_after(
    templated: Catalog, store: PromptStore
) -> None:
    sessions = Sessions(templated, store)
    before = sessions.construct("old", {"env": {"cwd": "/x"}})
    assert before.text == "Default in /x."
    UserTemplate(templated, store).put("Edited, in [p:cwd].")
    assert sessions.construct("old", {"env": {"cwd": "/x"}}).text == "Default in /x."
    assert sessions.construct("new", {"env": {"cwd": "/x"}}).text == "Edited, in /x."
    assert sessions.rebuild("old", {"env": {"cwd": "/y"}}) == "Edited, in /y."  # on compaction
    # A context that sets the template itself wins over the saved one.
    own = sessions.construct("own", {"variables": {"template": "Mine."}})
    assert own.text == "Mine."


def test_a_catalog_without_bindings_takes_no_template(folder: Path, store: PromptStore) -> None:
    cat = load_dir(folder)
    assert not accepts_template(cat)
    with pytest.raises(UsageError, match="takes no user template"):
        UserTemplate(cat, store)


# -- texts every store keeps alike, and bounded prompts


def _refused(call: Callable[[], object]) -> tuple[str | None, str]:
    with pytest.raises(UsageError) as info:
        call()
    return info.value.key, info.value.message


def test_every_store_refuses_the_same_texts_naming_the_field(store: PromptStore) -> None:
    """A NUL character (SQLite keeps it, PostgreSQL refuses it) and a lone surrogate
    (neither encodes it) are refused before the database sees them, by both alike."""
    good = _prompt("c", "text")
    cases = [
        (lambda: store.get("a\0b"), "conversation_id", "NUL"),
        (lambda: store.add(_prompt("a\0b", "text")), "conversation_id", "NUL"),
        (lambda: store.add(_prompt("c", "in \0 text")), "text", "NUL"),
        (lambda: store.replace(_prompt("c", "half \ud800")), "text", "surrogate"),
        (lambda: store.add(_prompt("c", "t", catalog="x\0")), "catalog", "NUL"),
        (lambda: store.set_template("demo", "T\0"), "template", "NUL"),
        (lambda: store.set_template("demo", "T\udfff"), "template", "surrogate"),
        (lambda: store.get_template("de\0mo"), "catalog", "NUL"),
    ]
    for call, field, what in cases:
        key, message = _refused(call)
        assert key == field and what in message, (field, message)
    assert store.get("c") is None and store.get_template("demo") is None
    assert store.add(good) == good  # the store is fine afterwards


def test_every_store_refuses_a_prompt_over_the_bound(store: PromptStore) -> None:
    with pytest.raises(ContextError, match=f"over the limit of {MAX_PROMPT_CHARS:,}"):
        store.add(_prompt("c", "x" * (MAX_PROMPT_CHARS + 1)))
    assert store.get("c") is None
    assert store.add(_prompt("c", "x" * MAX_PROMPT_CHARS)).text == "x" * MAX_PROMPT_CHARS


# -- the SQLite file is its owner's alone


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_an_sqlite_store_is_created_readable_by_its_owner_alone(tmp_path: Path) -> None:
    """Prompts hold gathered files: the folders made for the store are 0700, the database
    file and its -wal and -shm files 0600, its -journal too, whatever the umask."""
    old_umask = os.umask(0o022)
    try:
        shared = tmp_path / "shared"
        shared.mkdir(mode=0o755)
        path = shared / "made" / "deeper" / "prompts.sqlite"
        store = open_store(f"sqlite:///{path}")
        try:
            store.add(_prompt("c", "secret text"))
            assert _mode(shared / "made") == _mode(shared / "made" / "deeper") == 0o700
            for name in ("prompts.sqlite", "prompts.sqlite-wal", "prompts.sqlite-shm"):
                assert _mode(path.parent / name) == 0o600, name
            assert _mode(shared) == 0o755  # a folder that existed is left as it was
        finally:
            store.close()
        # SQLite gives a rollback journal the database's mode too.
        holder = sqlite3.connect(path, isolation_level=None)
        try:
            holder.execute("PRAGMA journal_mode=DELETE")
            holder.execute("BEGIN IMMEDIATE")
            holder.execute("INSERT INTO templates VALUES ('x', 'y', 0)")
            assert _mode(path.parent / "prompts.sqlite-journal") == 0o600
            holder.execute("ROLLBACK")
        finally:
            holder.close()
    finally:
        os.umask(old_umask)
    existing = tmp_path / "existing.sqlite"
    existing.touch(mode=0o640)
    existing.chmod(0o640)
    open_store(f"sqlite:///{existing}").close()
    assert _mode(existing) == 0o640  # its owner chose its mode


def test_bad_store_urls(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="unknown prompt store URL"):
        open_store("mysql://u:secret@h/db")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SessionError, match="cannot create the folder"):
        open_store(f"sqlite:///{blocker / 'sub' / 'x.sqlite'}")
    memory = open_store("sqlite://")
    memory.add(_prompt("c", "in memory"))
    assert memory.get("c") is not None
    memory.close()


def test_an_unreachable_postgres_is_unavailable_and_hides_the_password(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    url = f"postgresql://u:secret@/db?host={tmp_path}&connect_timeout=1"
    with pytest.raises(StoreUnavailableError) as info:
        open_store(url, timeout=0.3)
    assert "secret" not in str(info.value)
    assert "u:***@" in str(info.value)


# -- real processes writing one store at once

WORKERS = 4
REBUILDS = 125


def _worker(folder: str, url: str, worker: int, queue: Any) -> None:
    try:
        queue.put(_work(folder, url, worker))
    except Exception as exc:  # reported to the parent, which fails the test with it
        queue.put(repr(exc))


def _work(folder: str, url: str, worker: int) -> dict[str, Any]:
    revisions: list[int] = []
    constructed: dict[str, str] = {}
    with Sessions(load_dir(folder), url) as sessions:
        for index in range(REBUILDS):
            revisions.append(sessions.reconstruct("c", {"env": {"cwd": f"/w{worker}"}}).revision)
            shared = f"shared-{index % 10}"
            made = sessions.construct(shared, {"env": {"cwd": f"/w{worker}"}})
            constructed[shared] = made.text
    return {"revisions": revisions, "constructed": constructed}


def _run_workers(folder: Path, url: str) -> list[dict[str, Any]]:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    processes = [
        context.Process(target=_worker, args=(str(folder), url, worker, queue))
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    results = [queue.get(timeout=240) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert all(isinstance(result, dict) for result in results), results
    return results


@pytest.mark.slow
def test_concurrent_processes_rebuild_to_an_exact_revision(folder: Path, store_url: str) -> None:
    with Sessions(load_dir(folder), store_url) as sessions:
        assert sessions.construct("c").revision == 0
    results = _run_workers(folder, store_url)
    # Each of the 500 rebuilds got a revision of its own: none was read and written twice.
    handed_out = sorted(r for result in results for r in result["revisions"])
    assert handed_out == list(range(1, WORKERS * REBUILDS + 1))
    store = open_store(store_url)
    try:
        final = store.get("c")
        assert final is not None and final.revision == WORKERS * REBUILDS
        for index in range(10):
            winner = store.get(f"shared-{index}")
            assert winner is not None and winner.revision == 0
            # Every process was handed the one prompt that was stored first.
            seen = {result["constructed"][f"shared-{index}"] for result in results}
            assert seen == {winner.text}
    finally:
        store.close()


def test_a_locked_sqlite_file_is_retried_then_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "prompts.sqlite"
    store = open_store(f"sqlite:///{path}", timeout=0.5)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process holding the write lock
        with pytest.raises(StoreUnavailableError, match=r"busy or unreachable for 0\.5s"):
            store.add(_prompt("c", "blocked"))
        holder.execute("ROLLBACK")
        assert store.add(_prompt("c", "through")).text == "through"  # nothing half-written
        assert store.replace(_prompt("c", "next")).revision == 8
    finally:
        holder.close()
        store.close()
