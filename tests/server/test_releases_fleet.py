"""Two `catalog serve` processes on one PostgreSQL agree on their releases: a change
through one is used by the other once its cache's bound has passed (the bound itself is
tested on a clock moved by hand, in test_releases.py), a 10 % canary takes a
stable tenth of new conversations whichever server constructs them, a rollback through
one is seen by the other, and the history lists every change in order."""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx")
psycopg = pytest.importorskip("psycopg")

from catalog.conversations.releases import RELEASE_CACHE_SECONDS  # noqa: E402
from tests._support.postgres_server import fresh_database, postgres_server  # noqa: E402
from tests._support.serving import running_process, write_demo_catalogs  # noqa: E402

__all__ = ["fresh_database", "postgres_server"]  # fixtures used below

TOKEN = "fleet-token-3c6e9b2a5d8f1047be7-a1c9"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BOUND = RELEASE_CACHE_SECONDS  # how old a release used for construction may be
CONVERSATIONS = 2000
CLIENTS = 8


def _share(label: str, conversation_id: str) -> float:
    digest = hashlib.sha256(f"{label}\n{conversation_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 * 100


def _construct(server: str, conversation: str, http: Any = httpx) -> dict[str, Any]:
    response = http.put(
        f"{server}/conversations/{conversation}",
        json={"release": "production"},
        headers=AUTH,
        timeout=60,
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def _versions(client: int, servers: list[str], ids: list[str]) -> list[str]:
    """Construct this client's share of ``ids`` (every 8th), alternating servers."""
    with httpx.Client() as http:
        return [
            _construct(servers[index % 2], ids[index], http)["version"]
            for index in range(client, len(ids), CLIENTS)
        ]


def _split(servers: list[str], ids: list[str], pool: ThreadPoolExecutor) -> list[str]:
    """The version each of ``ids`` was constructed with, by ``CLIENTS`` clients at once."""
    shares = list(pool.map(_versions, range(CLIENTS), [servers] * CLIENTS, [ids] * CLIENTS))
    versions = [""] * len(ids)
    for client, share in enumerate(shares):
        versions[client::CLIENTS] = share
    return versions


def _set(server: str, body: dict[str, Any]) -> None:
    response = httpx.put(f"{server}/releases/production", json=body, headers=AUTH, timeout=60)
    assert response.status_code == 200, response.text


def _used_eventually(server: str, version: str, prefix: str) -> None:
    """Construct new conversations through ``server`` (one every 50 ms) until one has
    ``version``: the other server's change reached this one's cache."""
    for index in range(600):
        if _construct(server, f"{prefix}-{index}")["version"] == version:
            return
        time.sleep(0.05)
    raise AssertionError(f"{server} never used {version}")


@pytest.mark.slow
def test_two_servers_agree_on_releases(fresh_database: str, tmp_path: Path) -> None:
    catalogs = write_demo_catalogs(tmp_path / "catalogs")
    args = ["--store", fresh_database, "--path", str(catalogs)]
    token = {"CATALOG_SERVE_TOKEN": TOKEN}
    with (
        running_process([*args, "--writer", "eu-a"], tmp_path / "a.log", env=token) as (a, _),
        running_process([*args, "--writer", "eu-b"], tmp_path / "b.log", env=token) as (b, _),
        ThreadPoolExecutor(CLIENTS) as pool,
    ):
        # A release set through A is used by B, whose cache held the state before.
        _set(a, {"catalog": "demo", "version": "1.0.0"})
        time.sleep(BOUND)
        assert _construct(b, "warm")["version"] == "1.0.0"
        _set(a, {"catalog": "demo", "version": "2.0.0"})
        _used_eventually(b, "2.0.0", "after-set")

        # A 10 % canary: a stable tenth of 2,000 new ids, the same version from either server.
        canary = {
            "catalog": "demo",
            "version": "1.0.0",
            "canary": {"version": "2.0.0", "percent": 10},
        }
        _set(b, canary)
        time.sleep(BOUND + 0.1)
        ids = [f"canary-{index}" for index in range(CONVERSATIONS)]
        first = _split([a, b], ids, pool)
        assert 140 <= first.count("2.0.0") <= 260  # 10 % +- 3 % of 2,000
        for conversation, version in zip(ids, first, strict=True):
            assert (version == "2.0.0") == (_share("production", conversation) < 10)
        with psycopg.connect(fresh_database, autocommit=True) as db:  # the same ids, anew
            db.execute("DELETE FROM catalog_prompts WHERE conversation_id LIKE 'canary-%'")
        second = _split([b, a], ids, pool)
        assert second == first  # each id got the same version from the other server

        # A rollback through B is seen by A; an old conversation keeps its prompt until
        # its next rebuild, which uses the release as it stands.
        before = _construct(a, "canary-0")
        rolled = httpx.post(f"{b}/releases/production/rollback", headers=AUTH, timeout=60)
        assert rolled.status_code == 200, rolled.text
        assert (rolled.json()["version"], rolled.json()["canary"]) == ("2.0.0", None)
        _used_eventually(a, "2.0.0", "after-rollback")
        assert httpx.get(f"{a}/conversations/canary-0", headers=AUTH).json() == before
        time.sleep(BOUND)
        rebuilt = httpx.post(f"{a}/conversations/canary-0/rebuild", json={}, headers=AUTH)
        assert (rebuilt.json()["version"], rebuilt.json()["revision"]) == ("2.0.0", 1)

        for server in (a, b):
            shown = httpx.get(f"{server}/releases/production", timeout=60).json()
            assert [
                (c["change"], c["action"], c["version"], c["canary"], c["who"])
                for c in shown["history"]
            ] == [
                (1, "set", "1.0.0", None, "name:eu-a"),
                (2, "set", "2.0.0", None, "name:eu-a"),
                (3, "set", "1.0.0", {"version": "2.0.0", "percent": 10.0}, "name:eu-b"),
                (4, "rollback", "2.0.0", None, "name:eu-b"),
            ]
            times = [c["changed"] for c in shown["history"]]
            assert times == sorted(times)
