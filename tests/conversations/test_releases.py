"""Releases in both prompt stores, SQLite and PostgreSQL: set, read, roll back and keep
every change in order (also with processes changing one release at once), choose a
conversation's version by a stable canary share, construct and rebuild for a release,
and open a store made before releases existed."""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from catalog.conversations import (
    Canary,
    Release,
    Releases,
    ReleaseStore,
    ReleaseTarget,
    StoredPrompt,
    open_store,
)
from catalog.conversations.releases import (
    RELEASE_CACHE_SECONDS,
    ReleaseCache,
    canary_share,
    catalog_path_loader,
    version_for,
)
from catalog.errors import CatalogError, NotFoundError, SessionError, UsageError
from tests._support.postgres_server import fresh_database, postgres_server, store, store_url
from tests.conftest import FakeTime, write_catalog

# Fixtures used by the tests below.
__all__ = ["fresh_database", "postgres_server", "store", "store_url"]

pytestmark = pytest.mark.filterwarnings("error::ResourceWarning")


@pytest.fixture
def catalogs(tmp_path: Path) -> Path:
    """Catalog ``demo`` in versions 1.0.0, 1.1.0 and 2.0.0, each saying which it is and
    naming the conversation; ``other`` 1.0.0."""
    root = tmp_path / "catalogs"
    for version in ("1.0.0", "1.1.0", "2.0.0"):
        write_catalog(
            root,
            "demo",
            version,
            parts=[
                {
                    "id": "who",
                    "body": f"Demo {version} for {{{{ session.id }}}}.",
                    "agents": ["main", "helper"],
                }
            ],
            agents=[{"name": "helper"}],
        )
    write_catalog(root, "other", parts=[{"id": "who", "body": "Other."}])
    return root


@pytest.fixture
def releases(store: ReleaseStore, catalogs: Path) -> Releases:
    return Releases(store, load=catalog_path_loader([catalogs]))


def _share(label: str, conversation_id: str) -> float:
    """The canary share as the documentation defines it, computed here on its own."""
    digest = hashlib.sha256(label.encode() + b"\n" + conversation_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 * 100


# -- the store's operations


def test_set_read_and_roll_back_with_the_whole_history(
    store: ReleaseStore, fake_time: Callable[..., FakeTime]
) -> None:
    """Each change records when it was made, by the store's clock (fixed here)."""
    clock = fake_time(*_store_modules())
    assert store.get_release("production") is None
    assert store.release_history("production") == []
    first = store.set_release("production", ReleaseTarget("demo", "1.0"))
    assert (first.label, first.target, first.number) == (
        "production",
        ReleaseTarget("demo", "1.0"),
        1,
    )
    assert (first.who, first.action) == ("local", "set")
    assert first.changed == clock.now
    clock.sleep(5)
    canary = ReleaseTarget("demo", "1.0", Canary("2.0.0", 10))
    second = store.set_release("production", canary, "token:abc")
    store.set_release("staging", ReleaseTarget("demo", "2.0.0"))
    assert store.get_release("production") == second
    assert [r.label for r in store.list_releases()] == ["production", "staging"]

    back = store.rollback_release("production", "token:def")
    assert (back.number, back.target, back.action, back.who) == (
        3,
        ReleaseTarget("demo", "1.0"),
        "rollback",
        "token:def",
    )
    # A rollback is a change of its own: a second one undoes the first.
    again = store.rollback_release("production")
    assert (again.number, again.target) == (4, ReleaseTarget("demo", "1.0", Canary("2.0.0", 10)))
    history = store.release_history("production")
    assert [(r.number, r.action, r.who) for r in history] == [
        (1, "set", "local"),
        (2, "set", "token:abc"),
        (3, "rollback", "token:def"),
        (4, "rollback", "local"),
    ]
    ten = Canary("2.0.0", 10.0)
    assert [r.target.canary for r in history] == [None, ten, None, ten]
    assert history[-1] == store.get_release("production")
    assert [r.changed for r in history] == sorted(r.changed for r in history)


def test_versions_are_kept_in_their_normal_form(store: ReleaseStore) -> None:
    made = store.set_release("beta", ReleaseTarget("demo", "1.0-alpha1", Canary("01.2", 0.5)))
    assert made.target == ReleaseTarget("demo", "1.0a1", Canary("1.2", 0.5))
    assert store.get_release("beta") == made


def test_nothing_to_roll_back_to_and_unknown_releases(store: ReleaseStore) -> None:
    with pytest.raises(NotFoundError, match="there is no release nothing"):
        store.rollback_release("nothing")
    store.set_release("production", ReleaseTarget("demo", "1.0.0"))
    with pytest.raises(SessionError, match="changed once only: there is nothing to roll back"):
        store.rollback_release("production")
    assert len(store.release_history("production")) == 1


def test_a_release_keeps_its_catalog(store: ReleaseStore) -> None:
    store.set_release("production", ReleaseTarget("demo", "1.0.0"))
    with pytest.raises(SessionError) as info:
        store.set_release("production", ReleaseTarget("other", "1.0.0"))
    assert info.value.message == "release production is a release of catalog demo, not of other"
    assert info.value.hint is not None and "name another release" in info.value.hint
    assert [r.target.catalog for r in store.release_history("production")] == ["demo"]


@pytest.mark.parametrize(
    ("label", "target", "key", "words"),
    [
        ("Prod", ReleaseTarget("demo", "1.0"), "label", "is not a release label"),
        ("../x", ReleaseTarget("demo", "1.0"), "label", "is not a release label"),
        ("p", ReleaseTarget("../demo", "1.0"), "catalog", "is not a catalog name"),
        ("p", ReleaseTarget("demo", "one"), "version", "'one' is not a version"),
        ("p", ReleaseTarget("demo", "1\x00"), "version", "NUL"),
        ("p", ReleaseTarget("demo", "1.0", Canary("1.0.0", 5)), "canary.version", "names already"),
        ("p", ReleaseTarget("demo", "1.0", Canary("2.0", 0)), "canary.percent", "more than 0"),
        ("p", ReleaseTarget("demo", "1.0", Canary("2.0", 100.5)), "canary.percent", "at most 100"),
        ("p", ReleaseTarget("demo", "1.0", Canary("2.0", float("nan"))), "canary.percent", "nan"),
        ("p", ReleaseTarget("demo", "1.0", Canary("2.0", True)), "canary.percent", "a number"),
    ],
)
def test_what_a_release_may_not_be(
    store: ReleaseStore, label: str, target: ReleaseTarget, key: str, words: str
) -> None:
    with pytest.raises(UsageError) as info:
        store.set_release(label, target)
    assert info.value.key == key
    assert words in info.value.message
    assert store.list_releases() == []


def test_a_full_canary_is_allowed(store: ReleaseStore) -> None:
    made = store.set_release("p", ReleaseTarget("demo", "1.0", Canary("2.0", 100)))
    assert made.target.canary == Canary("2.0", 100.0)


# -- processes changing one release at once

WORKERS = 4
CHANGES = 25


def _changer(url: str, worker: int, queue: Any) -> None:
    try:
        store = open_store(url)
        try:
            numbers = []
            for index in range(CHANGES):
                version = f"1.{worker}.{index}"
                if index % 5 == 4:
                    numbers.append(store.rollback_release("shared", f"w{worker}").number)
                else:
                    target = ReleaseTarget("demo", version)
                    numbers.append(store.set_release("shared", target, f"w{worker}").number)
            queue.put(numbers)
        finally:
            store.close()
    except Exception as exc:  # reported to the parent, which fails the test with it
        queue.put(repr(exc))


@pytest.mark.slow
def test_concurrent_changes_are_each_kept_once_in_order(store_url: str) -> None:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    processes = [
        context.Process(target=_changer, args=(store_url, worker, queue))
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    results = [queue.get(timeout=240) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert all(isinstance(result, list) for result in results), results
    handed_out = sorted(number for result in results for number in result)
    assert handed_out == list(range(1, WORKERS * CHANGES + 1))  # none lost, none twice
    store = open_store(store_url)
    try:
        history = store.release_history("shared")
        assert [r.number for r in history] == handed_out
        for worker in range(WORKERS):
            assert sum(r.who == f"w{worker}" for r in history) == CHANGES
        # Each rollback put back exactly the change before it, whoever made that one.
        for change in history:
            if change.action == "rollback":  # change n puts back change n - 2 (index n - 3)
                assert change.target == history[change.number - 3].target, change
        assert store.get_release("shared") == history[-1]
    finally:
        store.close()


# -- choosing a conversation's version


def test_the_canary_share_is_the_documented_hash() -> None:
    for label, conversation in (("production", "conv-1"), ("staging", "é ✓"), ("p", "")):
        assert canary_share(label, conversation) == _share(label, conversation)
        assert 0 <= canary_share(label, conversation) < 100


def test_a_ten_percent_canary_takes_a_stable_tenth(store: ReleaseStore) -> None:
    release = store.set_release("production", ReleaseTarget("demo", "1.0.0", Canary("2.0.0", 10)))
    ids = [f"conversation-{index}" for index in range(2000)]
    chosen = [version_for(release, conversation) for conversation in ids]
    canaries = chosen.count("2.0.0")
    assert 140 <= canaries <= 260  # 10 % +- 3 % of 2,000
    assert set(chosen) == {"1.0.0", "2.0.0"}
    for conversation, version in zip(ids, chosen, strict=True):
        assert (version == "2.0.0") == (_share("production", conversation) < 10)
    # Another label splits other ids: the share depends on the label too.
    other = store.set_release("staging", ReleaseTarget("demo", "1.0.0", Canary("2.0.0", 10)))
    assert [version_for(other, c) for c in ids] != chosen


def test_an_id_placed_exactly_at_the_canary_s_percent_is_not_below_it(store: ReleaseStore) -> None:
    """The ids placed *below* the percent get the canary: one placed at it does not, one
    placed just below the next larger percent does."""
    share = _share("production", "conv-7")
    at = store.set_release("production", ReleaseTarget("demo", "1.0.0", Canary("2.0.0", share)))
    assert at.target.canary == Canary("2.0.0", share)  # kept exactly
    assert version_for(at, "conv-7") == "1.0.0"
    above = Canary("2.0.0", math.nextafter(share, 100))
    past = store.set_release("production", ReleaseTarget("demo", "1.0.0", above))
    assert version_for(past, "conv-7") == "2.0.0"


# -- loading the versions releases name


def test_the_loader_keeps_the_32_versions_used_last_compiled(tmp_path: Path) -> None:
    """A version loaded again is the catalog compiled before while it is among the 32
    used last; the 33rd version loaded since pushes it out, and it is compiled anew."""
    root = tmp_path / "many"
    versions = [f"1.{minor}.0" for minor in range(33)]
    for version in versions:
        write_catalog(root, "demo", version, parts=[{"id": "who", "body": f"Demo {version}."}])
    load = catalog_path_loader([root])
    first = load("demo", "1.0.0")
    assert load("demo", "1.0.0") is first  # kept
    compiled = [first] + [load("demo", version) for version in versions[1:32]]
    assert load("demo", "1.0.0") is first  # 32 versions kept: the first is still there
    latest = load("demo", versions[32])  # the 33rd pushes out the least recently used
    assert load("demo", versions[32]) is latest
    assert load("demo", "1.1.0") is not compiled[1]  # 1.1.0 was used least recently
    assert str(load("demo", "1.1.0").version) == "1.1.0"


# -- constructing and rebuilding for a release


def test_construct_records_the_release_and_its_choice(releases: Releases) -> None:
    releases.set("production", "demo", "1.0.0", Canary("2.0.0", 50))
    made = {}
    for index in range(40):
        conversation = f"c{index}"
        stored, new = releases.construct("production", conversation, {"env": {"cwd": "/x"}})
        assert new
        expected = "2.0.0" if _share("production", conversation) < 50 else "1.0.0"
        assert (stored.version, stored.release, stored.catalog) == (expected, "production", "demo")
        assert stored.text == f"Demo {expected} for {conversation}."
        made[conversation] = stored
    assert {s.version for s in made.values()} == {"1.0.0", "2.0.0"}
    # Constructed once: asked again, the stored prompt comes back as it was.
    again, new = releases.construct("production", "c0")
    assert (again, new) == (made["c0"], False)
    assert releases.store.get("c0") == made["c0"]


def test_a_rollback_reaches_a_conversation_at_its_next_rebuild(releases: Releases) -> None:
    releases.set("production", "demo", "1.0.0")
    releases.set("production", "demo", "1.1.0")
    stored, _ = releases.construct("production", "conv", agent="helper")
    assert (stored.version, stored.agent) == ("1.1.0", "helper")
    releases.rollback("production")
    assert releases.store.get("conv") == stored  # get returns what is stored
    sessions = releases.sessions("conv")
    rebuilt = sessions.reconstruct("conv")
    assert (rebuilt.version, rebuilt.revision, rebuilt.release, rebuilt.agent) == (
        "1.0.0",
        1,
        "production",
        "helper",
    )
    assert rebuilt.text == "Demo 1.0.0 for conv."
    assert sessions.rebuild("conv", append="Compact.") == "Demo 1.0.0 for conv.\n\nCompact."


def test_a_rebuild_chooses_by_the_conversation_s_own_place(releases: Releases) -> None:
    """A canary set after the constructions reaches, at their next rebuild, exactly the
    conversations whose place is below its percent."""
    releases.set("production", "demo", "1.0.0")
    ids = [f"conv-{index}" for index in range(12)]
    for conversation in ids:
        releases.construct("production", conversation)
    releases.set("production", "demo", "1.0.0", Canary("2.0.0", 50))
    expected = ["2.0.0" if _share("production", c) < 50 else "1.0.0" for c in ids]
    assert set(expected) == {"1.0.0", "2.0.0"}
    rebuilt = [releases.sessions(c).reconstruct(c) for c in ids]
    assert [r.version for r in rebuilt] == expected
    texts = [f"Demo {version} for {c}." for version, c in zip(expected, ids, strict=True)]
    assert [r.text for r in rebuilt] == texts


def test_a_rollback_records_who_made_it(releases: Releases) -> None:
    releases.set("production", "demo", "1.0.0", who="name:ci")
    releases.set("production", "demo", "2.0.0", who="name:ci")
    back = releases.rollback("production", who="name:ops")
    assert (back.who, back.action, back.target.version) == ("name:ops", "rollback", "1.0.0")
    assert [r.who for r in releases.history("production")] == ["name:ci", "name:ci", "name:ops"]
    assert releases.rollback("production").who == "local"


def test_a_rollback_to_a_version_missing_here_is_refused_naming_it(
    store: ReleaseStore, releases: Releases, tmp_path: Path
) -> None:
    """Even with two changes only, the change before the latest is checked: this machine
    lacks 2.0.0, so it may not roll back to it, and nothing is written."""
    releases.set("production", "demo", "2.0.0")
    releases.set("production", "demo", "1.0.0")
    lacking = tmp_path / "lacking"
    write_catalog(lacking, "demo", "1.0.0", parts=[{"id": "who", "body": "Old."}])
    here = Releases(store, load=catalog_path_loader([lacking]))
    with pytest.raises(UsageError) as info:
        here.rollback("production")
    assert info.value.key == "version"
    assert info.value.message.startswith("catalog demo 2.0.0 cannot be loaded here: ")
    assert [(r.number, r.target.version) for r in store.release_history("production")] == [
        (1, "2.0.0"),
        (2, "1.0.0"),
    ]


def test_a_version_that_cannot_be_loaded_is_never_replaced_by_another(
    store: ReleaseStore, releases: Releases, tmp_path: Path
) -> None:
    # Set through a machine that has 2.0.0; constructed through one that lacks it.
    releases.set("production", "demo", "2.0.0")
    lacking = tmp_path / "lacking"
    write_catalog(lacking, "demo", "1.0.0", parts=[{"id": "who", "body": "Old."}])
    here = Releases(store, load=catalog_path_loader([lacking]))
    with pytest.raises(SessionError) as info:
        here.construct("production", "conv")
    assert info.value.message.startswith(
        "release production chose catalog demo 2.0.0, which cannot be loaded here: "
    )
    assert info.value.hint == "install demo 2.0.0 on every server before a release names it"
    assert store.get("conv") is None
    # Setting it here to a version this machine lacks is refused, naming the version.
    with pytest.raises(UsageError) as refused:
        here.set("production", "demo", "3.0.0")
    assert refused.value.key == "version"
    assert "catalog demo 3.0.0 cannot be loaded here" in refused.value.message
    with pytest.raises(UsageError) as canary:
        releases.set("production", "demo", "1.0.0", Canary("9.0.0", 5))
    assert canary.value.key == "canary.version"
    assert [r.target.version for r in store.release_history("production")] == ["2.0.0"]


def test_a_conversation_of_another_catalog_is_refused(releases: Releases) -> None:
    releases.set("production", "demo", "1.0.0")
    releases.store.add(StoredPrompt("taken", "Other.", "other", "1.0.0", "main", "fp"))
    with pytest.raises(SessionError) as info:
        releases.construct("production", "taken")
    assert info.value.message == (
        "conversation 'taken' was constructed for catalog other 1.0.0, agent 'main', "
        "not for release production of catalog demo, agent 'main'"
    )
    assert info.value.file == releases.store.location
    with pytest.raises(SessionError) as named:
        releases.sessions("taken")
    assert named.value.message == (
        "conversation 'taken' was constructed for catalog other 1.0.0, not for a release"
    )
    assert named.value.hint == "rebuild it with its catalog"
    with pytest.raises(NotFoundError) as never:
        releases.sessions("never")
    assert never.value.message == "conversation 'never' has no prompt"
    assert never.value.hint == "construct it first, for a release or a catalog"
    with pytest.raises(NotFoundError) as unknown:
        releases.construct("staging", "new")
    assert unknown.value.message == "there is no release staging"
    assert unknown.value.hint == (
        "set it first (catalog release set staging NAME@VERSION, or PUT /releases/staging)"
    )


def test_a_construction_uses_the_context_given(releases: Releases, catalogs: Path) -> None:
    write_catalog(catalogs, "where", parts=[{"id": "cwd", "body": "Working in {{ env.cwd }}."}])
    here = Releases(releases.store, load=catalog_path_loader([catalogs]))
    here.set("staging", "where", "1.0.0")
    stored, new = here.construct("staging", "c", {"env": {"cwd": "/srv/app"}})
    assert (new, stored.text) == (True, "Working in /srv/app.")


def test_a_construction_for_no_label_names_the_release_field(releases: Releases) -> None:
    with pytest.raises(UsageError) as info:
        releases.construct("Bad!", "c")
    assert info.value.key == "release"
    assert info.value.message.startswith("'Bad!' is not a release label (")
    assert releases.store.get("c") is None


def test_a_version_refused_here_says_what_is_installed(releases: Releases) -> None:
    with pytest.raises(UsageError) as info:
        releases.set("production", "demo", "9.0.0")
    assert info.value.message == (
        "catalog demo 9.0.0 cannot be loaded here: no version of 'demo' satisfies '==9.0.0'"
    )
    assert info.value.hint == "available versions: 1.0.0, 1.1.0, 2.0.0"


def test_a_loader_s_refusal_without_a_hint_gets_one(store: ReleaseStore) -> None:
    def refusing(name: str, version: str) -> Any:
        raise CatalogError(f"{name} {version} is being installed")

    with pytest.raises(UsageError) as info:
        Releases(store, load=refusing).set("production", "demo", "1.0.0")
    assert info.value.message == (
        "catalog demo 1.0.0 cannot be loaded here: demo 1.0.0 is being installed"
    )
    assert info.value.hint == "install that version here (and on every server) first"


def test_a_change_elsewhere_is_used_within_the_bound(
    store_url: str, releases: Releases, catalogs: Path, fake_time: Callable[..., FakeTime]
) -> None:
    """Another process's cache uses a release it read until the bound has passed since
    it read it, never after (the clock is the cache's, moved by hand)."""
    from catalog.conversations import releases as module

    clock = fake_time(module)
    releases.set("production", "demo", "1.0.0")
    with closing(open_store(store_url)) as other_store:  # another process's store and cache
        other = Releases(other_store, load=catalog_path_loader([catalogs]))
        assert other.current("production").target.version == "1.0.0"
        releases.set("production", "demo", "2.0.0")
        clock.sleep(RELEASE_CACHE_SECONDS - 0.001)
        assert other.current("production").target.version == "1.0.0"  # as read
        clock.sleep(0.001)
        assert other.current("production").target.version == "2.0.0"  # the bound
        releases.set("production", "demo", "1.1.0")
        clock.sleep(RELEASE_CACHE_SECONDS / 2)
        assert other.current("production").target.version == "2.0.0"  # read anew at 1.0 s
        clock.sleep(RELEASE_CACHE_SECONDS / 2)
        assert other.current("production").target.version == "1.1.0"
        # Without a cache, a change is seen at once.
        fresh = Releases(other_store, load=catalog_path_loader([catalogs]), cache=ReleaseCache(0))
        releases.set("production", "demo", "1.0.0")
        assert fresh.current("production").target.version == "1.0.0"


def _store_modules() -> list[object]:
    """The modules of the stores whose clock records a release change."""
    from catalog.conversations import sqlite

    found: list[object] = [sqlite]
    try:
        from catalog.conversations import postgres
    except ImportError:  # psycopg is not installed: no PostgreSQL store either
        return found
    return [*found, postgres]


def test_a_store_without_releases_is_refused(releases: Releases) -> None:
    class Bare:
        location = "somewhere"

    with pytest.raises(UsageError) as info:
        Releases(Bare())  # type: ignore[arg-type]
    assert info.value.message == "the prompt store somewhere keeps no releases"
    assert info.value.hint == "use a store of the package (open_store), or implement ReleaseStore"


# -- the cache constructions read releases through


def _change(number: int, version: str) -> Release:
    return Release("production", ReleaseTarget("demo", version), number, 0.0, "local", "set")


def test_a_read_that_ends_after_a_newer_change_never_replaces_it(
    fake_time: Callable[..., FakeTime],
) -> None:
    """A read of change #1 that was under way while this process made change #2 (and
    kept it) ends after it: the cache keeps #2."""
    from catalog.conversations import releases as module

    fake_time(module)
    cache = ReleaseCache()
    newer = _change(2, "2.0.0")

    def overtaken() -> Release:
        cache.put(newer)  # the change made while this read was under way
        return _change(1, "1.0.0")

    assert cache.get("production", overtaken) == _change(1, "1.0.0")  # what it read
    assert cache.get("production", lambda: _change(1, "1.0.0")) == newer


def test_a_release_read_again_unchanged_is_kept_from_its_new_read(
    fake_time: Callable[..., FakeTime],
) -> None:
    """A release read again at the bound, unchanged, counts as read then: a change made
    after that read is used only a whole bound later."""
    from catalog.conversations import releases as module

    clock = fake_time(module)
    cache = ReleaseCache(RELEASE_CACHE_SECONDS)
    stored = [_change(1, "1.0.0")]
    assert cache.get("production", lambda: stored[-1]) == _change(1, "1.0.0")
    clock.sleep(RELEASE_CACHE_SECONDS)
    assert cache.get("production", lambda: stored[-1]) == _change(1, "1.0.0")  # read again
    stored.append(_change(2, "2.0.0"))  # changed elsewhere
    clock.sleep(RELEASE_CACHE_SECONDS / 2)
    assert cache.get("production", lambda: stored[-1]) == _change(1, "1.0.0")
    clock.sleep(RELEASE_CACHE_SECONDS / 2)
    assert cache.get("production", lambda: stored[-1]) == _change(2, "2.0.0")


# -- a store made before releases existed


_OLD_PROMPTS = """CREATE TABLE {table} (
    conversation_id TEXT PRIMARY KEY, text TEXT NOT NULL, catalog TEXT NOT NULL,
    version TEXT NOT NULL, agent TEXT NOT NULL, fingerprint TEXT NOT NULL,
    revision INTEGER NOT NULL, created {real} NOT NULL)"""
_OLD_ROW = "INSERT INTO {table} VALUES ('old', 'Old text.', 'demo', '1.0.0', 'main', 'fp', 2, 1.5)"


def test_a_store_made_before_releases_opens_and_keeps_its_prompts(
    store_url: str, catalogs: Path
) -> None:
    if store_url.startswith("sqlite"):
        db = sqlite3.connect(store_url.removeprefix("sqlite:///"))
        db.execute(_OLD_PROMPTS.format(table="prompts", real="REAL"))
        db.execute(_OLD_ROW.format(table="prompts"))
        db.commit()
        db.close()
    else:
        import psycopg

        with psycopg.connect(store_url, autocommit=True) as server:
            server.execute(_OLD_PROMPTS.format(table="catalog_prompts", real="DOUBLE PRECISION"))
            server.execute(_OLD_ROW.format(table="catalog_prompts"))
    with closing(open_store(store_url)) as store:
        assert store.get("old") == StoredPrompt(
            "old", "Old text.", "demo", "1.0.0", "main", "fp", 2, 1.5, None
        )
        releases = Releases(store, load=catalog_path_loader([catalogs]))
        releases.set("production", "demo", "1.1.0")
        stored, _ = releases.construct("production", "new")
        assert (stored.release, stored.version) == ("production", "1.1.0")
    with closing(open_store(store_url)) as again:  # opening a second time changes nothing
        assert again.get("new") == stored
