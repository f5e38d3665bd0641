"""Per-conversation prompts: construct, get, rebuild, stores, and real concurrent processes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

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

# An SQLite connection left open is a ResourceWarning (raised when the connection is
# collected, from Python 3.13): every store these tests open must be closed.
pytestmark = pytest.mark.filterwarnings(
    "error::ResourceWarning", "error::pytest.PytestUnraisableExceptionWarning"
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


@pytest.fixture
def sessions(cat: Catalog) -> Iterator[Sessions]:
    with Sessions(cat) as opened:
        yield opened


def test_construct_persists_and_get_returns_it(cat: Catalog, sessions: Sessions) -> None:
    assert sessions.get("c1") is None
    made = sessions.construct("c1", {"env": {"cwd": "/a"}})
    assert made.text == "Conversation c1 in /a."
    assert (made.catalog, made.version, made.agent, made.revision) == ("demo", "1.0.0", "main", 0)
    assert (
        made.fingerprint
        == cat.assemble({"env": {"cwd": "/a"}, "session": {"id": "c1"}}).fingerprint
    )
    assert sessions.get("c1") == made


def test_an_existing_conversation_keeps_its_prompt(sessions: Sessions) -> None:
    first = sessions.construct("c1", {"env": {"cwd": "/a"}})
    again = sessions.construct("c1", {"env": {"cwd": "/changed"}})
    assert again == first
    assert (
        sessions.construct("c2", {"env": {"cwd": "/changed"}}).text
        == "Conversation c2 in /changed."
    )


def test_a_context_with_its_own_session_keeps_it(sessions: Sessions) -> None:
    made = sessions.construct("c1", {"session": {"id": "outer"}})
    assert made.text.startswith("Conversation outer in")


def test_rebuild_stores_without_and_returns_with_the_appended_text(sessions: Sessions) -> None:
    sessions.construct("c1", {"env": {"cwd": "/a"}})
    sent = sessions.rebuild("c1", {"env": {"cwd": "/b"}}, append="  Compact now.\n")
    assert sent == "Conversation c1 in /b.\n\nCompact now."
    stored = sessions.get("c1")
    assert stored is not None
    assert (stored.text, stored.revision) == ("Conversation c1 in /b.", 1)
    assert sessions.rebuild("c1", {"env": {"cwd": "/b"}}) == "Conversation c1 in /b."
    assert sessions.get("c1").revision == 2  # type: ignore[union-attr]


def test_rebuild_of_an_unknown_conversation_constructs_it(sessions: Sessions) -> None:
    assert sessions.rebuild("new", {}, append="x") == "Conversation new in .\n\nx"
    assert sessions.get("new").revision == 0  # type: ignore[union-attr]


def test_a_file_store_outlives_its_process_objects(cat: Catalog, tmp_path: Path) -> None:
    path = tmp_path / "prompts.sqlite"
    with SQLiteStore(path) as store:
        Sessions(cat, store).construct("c1", {"env": {"cwd": "/a"}})
    with Sessions(cat, path) as reopened:
        stored = reopened.get("c1")
    assert stored is not None and stored.text == "Conversation c1 in /a."


def test_sub_agent_sessions(cat: Catalog) -> None:
    with Sessions(cat, agent="helper") as helper:
        assert helper.construct("c1").agent == "helper"
    with pytest.raises(NotFoundError, match="no agent 'nobody'"):
        Sessions(cat, agent="nobody")


def test_bad_input_is_a_session_error(sessions: Sessions, tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="must not be empty"):
        sessions.construct("")
    (tmp_path / "dir.sqlite").mkdir()
    with pytest.raises(SessionError, match="cannot open the prompt store"):
        SQLiteStore(tmp_path / "dir.sqlite")
    (tmp_path / "text.sqlite").write_text("not a database, " * 100)
    with pytest.raises(SessionError, match="cannot open the prompt store"):
        SQLiteStore(tmp_path / "text.sqlite")


def test_a_shared_store_keeps_conversations_to_their_catalog_and_agent(
    cat: Catalog, make_catalog: Callable[..., Path], tmp_path: Path
) -> None:
    other = load_dir(make_catalog("other", parts=[{"id": "p", "body": "Another catalog."}]))
    path = tmp_path / "prompts.sqlite"
    with (
        SQLiteStore(path) as store,
        Sessions(cat, store) as main,
        Sessions(cat, store, agent="helper") as helper,
        Sessions(other, store) as elsewhere,
    ):
        made = main.construct("c1", {"env": {"cwd": "/a"}})
        calls: tuple[Callable[[Sessions], object], ...] = (
            lambda sessions: sessions.get("c1"),
            lambda sessions: sessions.construct("c1"),
            lambda sessions: sessions.rebuild("c1", append="Compact now."),
        )
        for sessions, asked in (
            (elsewhere, "catalog other 1.0.0, agent 'main'"),
            (helper, "catalog demo 1.0.0, agent 'helper'"),
        ):
            for call in calls:
                with pytest.raises(SessionError) as info:
                    call(sessions)
                error = info.value
                assert error.message == (
                    "conversation 'c1' was constructed for catalog demo 1.0.0, agent 'main', "
                    f"not for {asked}"
                )
                assert error.file == str(path)
                assert error.hint is not None and "an id of its own" in error.hint
        assert main.get("c1") == made  # nothing was overwritten
        assert elsewhere.construct("c2").text == "Another catalog."


def test_another_version_of_the_catalog_gets_the_prompt_as_stored(
    cat: Catalog, make_catalog: Callable[..., Path], tmp_path: Path
) -> None:
    newer = load_dir(make_catalog(version="2.0.0", parts=[{"id": "who", "body": "Version two."}]))
    path = tmp_path / "prompts.sqlite"
    with Sessions(cat, path) as old:
        made = old.construct("c1", {"env": {"cwd": "/a"}})
    with Sessions(newer, path) as new:
        assert new.get("c1") == made
        assert new.construct("c1") == made
        assert new.rebuild("c1") == "Version two."
        rebuilt = new.get("c1")
    assert rebuilt is not None and (rebuilt.version, rebuilt.revision) == ("2.0.0", 1)


class DictStore:
    """A store of our own, to show the protocol is all a store needs."""

    location = "a dict"

    def __init__(self) -> None:
        self.rows: dict[str, StoredPrompt] = {}
        self.templates: dict[str, str] = {}

    def get(self, conversation_id: str) -> StoredPrompt | None:
        return self.rows.get(conversation_id)

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        return self.rows.setdefault(prompt.conversation_id, prompt)

    def replace(self, prompt: StoredPrompt) -> StoredPrompt:
        previous = self.rows.get(prompt.conversation_id)
        revision = 0 if previous is None else previous.revision + 1
        self.rows[prompt.conversation_id] = dataclasses.replace(prompt, revision=revision)
        return self.rows[prompt.conversation_id]

    def get_template(self, catalog: str) -> str | None:
        return self.templates.get(catalog)

    def set_template(self, catalog: str, text: str) -> None:
        self.templates[catalog] = text

    def close(self) -> None:
        pass


def test_any_store_implementing_the_protocol_works(cat: Catalog) -> None:
    store = DictStore()
    assert isinstance(store, PromptStore)
    sessions = Sessions(cat, store)
    sessions.construct("c1", {"variables": {"note": "hello"}})
    assert store.rows["c1"].text == "Conversation c1 in .\n\nhello"


def test_sessions_close_the_store_they_opened(cat: Catalog, tmp_path: Path) -> None:
    path = tmp_path / "prompts.sqlite"
    with Sessions(cat, path) as sessions:
        sessions.construct("c1", {"env": {"cwd": "/a"}})
    with pytest.raises(SessionError, match="closed"):
        sessions.get("c1")
    sessions.close()  # closing twice is harmless
    with Sessions(cat) as in_memory:
        in_memory.construct("c1")
    with pytest.raises(SessionError, match="closed"):
        in_memory.get("c1")


def test_sessions_leave_a_store_passed_in_open(cat: Catalog, tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "prompts.sqlite") as store:
        with Sessions(cat, store) as first:
            first.construct("c1", {"env": {"cwd": "/a"}})
        # The store is the caller's (other Sessions may share it): still open.
        with Sessions(cat, store) as second:
            assert second.get("c1") == first.get("c1") is not None
    with pytest.raises(SessionError, match="closed"):
        store.get("c1")
    store.close()
