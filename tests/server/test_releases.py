"""`catalog serve` in process: the releases API, conversations constructed and rebuilt
for a release, what each refusal answers, and the figures of /metrics."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from catalog.conversations import Releases, open_store
from catalog.conversations.releases import RELEASE_CACHE_SECONDS, catalog_path_loader
from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests._support.serving import write_demo_catalogs
from tests.conftest import FakeTime, write_catalog

BASE = "http://127.0.0.1"
TOKEN = "s3cret-token-5b8c1e94d27a0f36c8e4"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def catalogs(tmp_path: Path) -> Path:
    return write_demo_catalogs(tmp_path / "catalogs")


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'prompts.sqlite'}"


def _serve(settings: ServerSettings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), base_url=BASE) as client:
        yield client


@pytest.fixture
def client(catalogs: Path, store_url: str) -> Iterator[TestClient]:
    yield from _serve(ServerSettings(paths=(str(catalogs),), store_url=store_url))


def _error(response: Any, status: int) -> dict[str, Any]:
    """The error of an answer, checked to have the one error shape."""
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert set(error) == {"status", "message", "field", "hint"}
    assert error["status"] == status
    return error


def _figures(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of /metrics, parsed by prometheus-client's own parser."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def _count(figures: dict[Any, float], name: str, **labels: str) -> float:
    return figures.get((name, frozenset(labels.items())), 0.0)


# -- the releases API


def test_set_read_list_and_roll_back(client: TestClient) -> None:
    assert client.get("/releases").json() == {"releases": []}
    _error(client.get("/releases/production"), 404)
    made = client.put("/releases/production", json={"catalog": "demo", "version": "1.0"})
    assert made.status_code == 200, made.text
    first = made.json()
    assert {k: first[k] for k in ("label", "catalog", "version", "canary", "change")} == {
        "label": "production",
        "catalog": "demo",
        "version": "1.0",
        "canary": None,
        "change": 1,
    }
    assert (first["who"], first["action"]) == ("local", "set")
    canary = {"catalog": "demo", "version": "1.0.0", "canary": {"version": "2.0.0", "percent": 10}}
    second = client.put("/releases/production", json=canary).json()
    assert (second["change"], second["canary"]) == (2, {"version": "2.0.0", "percent": 10.0})
    client.put("/releases/staging", json={"catalog": "demo", "version": "2.0.0"})
    listed = client.get("/releases").json()["releases"]
    assert [(r["label"], r["change"]) for r in listed] == [("production", 2), ("staging", 1)]

    back = client.post("/releases/production/rollback")
    assert back.status_code == 200, back.text
    assert (back.json()["version"], back.json()["canary"], back.json()["action"]) == (
        "1.0",
        None,
        "rollback",
    )
    shown = client.get("/releases/production").json()
    assert [(c["change"], c["action"], c["version"]) for c in shown["history"]] == [
        (1, "set", "1.0"),
        (2, "set", "1.0.0"),
        (3, "rollback", "1.0"),
    ]
    assert {k: v for k, v in shown.items() if k != "history"} == shown["history"][-1]


def test_what_a_release_change_refuses(client: TestClient, catalogs: Path) -> None:
    missing = _error(client.put("/releases/p", json={"catalog": "demo", "version": "9.0.0"}), 400)
    assert missing["field"] == "body.version"
    assert "catalog demo 9.0.0 cannot be loaded here" in missing["message"]
    body = {"catalog": "demo", "version": "1.0.0", "canary": {"version": "7.0", "percent": 5}}
    assert _error(client.put("/releases/p", json=body), 400)["field"] == "body.canary.version"
    unknown = _error(client.put("/releases/p", json={"catalog": "nothing", "version": "1"}), 400)
    assert "catalog nothing 1 cannot be loaded here" in unknown["message"]
    assert client.get("/releases").json() == {"releases": []}  # nothing was written

    assert (
        _error(client.put("/releases/Prod", json={"catalog": "demo", "version": "1.0.0"}), 400)[
            "field"
        ]
        == "path.label"
    )
    zero = {"catalog": "demo", "version": "1.0.0", "canary": {"version": "2.0.0", "percent": 0}}
    assert _error(client.put("/releases/p", json=zero), 422)["field"] == "body.canary.percent"
    _error(client.put("/releases/p", json={"catalog": "demo", "version": "1", "x": 1}), 422)

    client.put("/releases/p", json={"catalog": "demo", "version": "1.0.0"})
    once = _error(client.post("/releases/p/rollback"), 409)
    assert "nothing to roll back to" in once["message"]
    other = _error(client.put("/releases/p", json={"catalog": "tpl", "version": "1.0.0"}), 409)
    assert "is a release of catalog demo, not of tpl" in other["message"]
    _error(client.post("/releases/nothing/rollback"), 404)


def test_writes_need_the_token_and_record_its_fingerprint(catalogs: Path, store_url: str) -> None:
    settings = ServerSettings(
        paths=(str(catalogs),), store_url=store_url, token=TOKEN, host="0.0.0.0"
    )
    body = {"catalog": "demo", "version": "1.0.0"}
    for client in _serve(settings):
        _error(client.put("/releases/p", json=body), 401)
        _error(client.put("/releases/p", json=body, headers={"Authorization": "Bearer no"}), 401)
        made = client.put("/releases/p", json=body, headers=AUTH).json()
        # A keyed hash of the token: 12 hexadecimal digits that are not its plain hash.
        assert made["who"].startswith("token:") and len(made["who"]) == 18
        assert made["who"] != "token:" + hashlib.sha256(TOKEN.encode()).hexdigest()[:12]
        assert TOKEN not in client.get("/releases/p").text  # reads need no token
        client.put("/releases/p", json={**body, "version": "2.0.0"}, headers=AUTH)
        _error(client.post("/releases/p/rollback"), 401)
        assert client.post("/releases/p/rollback", headers=AUTH).json()["version"] == "1.0.0"
        evil = {**AUTH, "Origin": "http://attacker.example"}
        _error(client.put("/releases/p", json=body, headers=evil), 403)


def test_an_unknown_release_is_a_404_saying_how_to_set_it(client: TestClient) -> None:
    for response in (
        client.get("/releases/production"),
        client.post("/releases/production/rollback"),
        client.put("/conversations/c", json={"release": "production"}),
    ):
        assert _error(response, 404) == {
            "status": 404,
            "message": "there is no release production",
            "field": None,
            "hint": "set it first (catalog release set production NAME@VERSION, "
            "or PUT /releases/production)",
        }


def test_a_rollback_is_recorded_as_made_by_the_server_s_writer(
    catalogs: Path, store_url: str
) -> None:
    settings = ServerSettings(paths=(str(catalogs),), store_url=store_url, writer="ops")
    for client in _serve(settings):
        client.put("/releases/p", json={"catalog": "demo", "version": "1.0.0"})
        client.put("/releases/p", json={"catalog": "demo", "version": "2.0.0"})
        back = client.post("/releases/p/rollback").json()
        assert (back["who"], back["action"], back["version"], back["change"]) == (
            "name:ops",
            "rollback",
            "1.0.0",
            3,
        )
        history = client.get("/releases/p").json()["history"]
        assert [c["who"] for c in history] == ["name:ops"] * 3


# -- conversations of a release


def test_constructed_for_a_release_and_rebuilt_after_a_rollback(client: TestClient) -> None:
    client.put("/releases/production", json={"catalog": "demo", "version": "1.0.0"})
    client.put("/releases/production", json={"catalog": "demo", "version": "2.0.0"})
    made = client.put("/conversations/c1", json={"release": "production"})
    assert made.status_code == 200, made.text
    first = made.json()
    assert (first["catalog"], first["version"], first["release"], first["revision"]) == (
        "demo",
        "2.0.0",
        "production",
        0,
    )
    assert first["text"].startswith("You are a much better demo agent.")
    assert client.post("/releases/production/rollback").status_code == 200
    assert client.get("/conversations/c1").json() == first  # get returns what is stored
    assert client.put("/conversations/c1", json={"release": "production"}).json() == first
    rebuilt = client.post("/conversations/c1/rebuild", json={"append": "Compact."}).json()
    assert (rebuilt["version"], rebuilt["release"], rebuilt["revision"]) == (
        "1.0.0",
        "production",
        1,
    )
    assert rebuilt["text"].startswith("You are a demo agent.")
    assert rebuilt["text"].endswith("\n\nCompact.")
    # Naming a catalog takes the conversation out of its release.
    named = client.post("/conversations/c1/rebuild", json={"catalog": "demo@2.0.0"}).json()
    assert (named["version"], named["release"]) == ("2.0.0", None)
    again = client.post("/conversations/c1/rebuild", json={}).json()
    assert (again["version"], again["release"], again["revision"]) == ("2.0.0", None, 3)


def test_constructions_use_a_release_as_the_server_read_it_until_the_bound(
    client: TestClient, catalogs: Path, store_url: str, fake_time: Callable[..., FakeTime]
) -> None:
    """The server keeps the releases it read or changed for its constructions, one cache
    for every request, each for at most the bound (the cache's clock moved by hand); the
    API's reads always ask the store."""
    from catalog.conversations import releases as module

    clock = fake_time(module)
    client.put("/releases/production", json={"catalog": "demo", "version": "1.0.0"})
    with closing(open_store(store_url)) as shared:  # another server sharing the store
        elsewhere = Releases(shared, load=catalog_path_loader([catalogs]))
        elsewhere.set("production", "demo", "2.0.0", who="name:other")
    assert client.get("/releases/production").json()["version"] == "2.0.0"
    clock.sleep(RELEASE_CACHE_SECONDS / 2)
    kept = client.put("/conversations/a", json={"release": "production"}).json()
    assert kept["version"] == "1.0.0"  # as this server changed it
    clock.sleep(RELEASE_CACHE_SECONDS / 2)
    read = client.put("/conversations/b", json={"release": "production"}).json()
    assert read["version"] == "2.0.0"  # read anew at the bound


def test_what_a_construction_for_a_release_refuses(client: TestClient) -> None:
    both = _error(client.put("/conversations/c", json={"catalog": "demo", "release": "p"}), 422)
    assert "give either catalog" in both["message"]
    _error(client.put("/conversations/c", json={}), 422)
    assert (
        "there is no release production"
        in _error(client.put("/conversations/c", json={"release": "production"}), 404)["message"]
    )
    assert (
        _error(client.put("/conversations/c", json={"release": "Bad!"}), 400)["field"]
        == "body.release"
    )
    client.put("/releases/production", json={"catalog": "demo", "version": "1.0.0"})
    client.put("/conversations/t", json={"catalog": "tpl"})
    assert (
        "not for release production of catalog demo"
        in _error(client.put("/conversations/t", json={"release": "production"}), 409)["message"]
    )


def test_a_server_without_the_chosen_version_answers_409_naming_it(
    client: TestClient, tmp_path: Path, store_url: str
) -> None:
    lacking = tmp_path / "lacking"
    write_catalog(lacking, "demo", "1.0.0", parts=[{"id": "intro", "body": "Old demo."}])
    client.put("/releases/production", json={"catalog": "demo", "version": "2.0.0"})
    for other in _serve(ServerSettings(paths=(str(lacking),), store_url=store_url)):
        refused = _error(other.put("/conversations/c", json={"release": "production"}), 409)
        assert refused["message"].startswith(
            "release production chose catalog demo 2.0.0, which cannot be loaded here: "
        )
        assert refused["hint"] == "install demo 2.0.0 on every server before a release names it"
        _error(other.get("/conversations/c"), 404)  # nothing stored, no other version used
        # Setting it through this server to a version it lacks is refused too.
        lacks = _error(
            other.put("/releases/production", json={"catalog": "demo", "version": "2.0.0"}), 400
        )
        assert "catalog demo 2.0.0 cannot be loaded here" in lacks["message"]
        # A conversation constructed elsewhere is still answered as stored.
        made = client.put("/conversations/d", json={"release": "production"}).json()
        assert other.put("/conversations/d", json={"release": "production"}).json() == made


# -- /metrics


def test_metrics_count_constructions_rebuilds_and_requests(client: TestClient) -> None:
    canary = {"catalog": "demo", "version": "1.0.0", "canary": {"version": "2.0.0", "percent": 50}}
    client.put("/releases/production", json=canary)
    versions = []
    for index in range(20):
        answer = client.put(f"/conversations/c{index}", json={"release": "production"}).json()
        versions.append(answer["version"])
    client.put("/conversations/c0", json={"release": "production"})  # constructed already
    client.put("/conversations/named", json={"catalog": "demo@1.0.0"})
    client.post("/conversations/c1/rebuild", json={})
    figures = _figures(client)
    for version in ("1.0.0", "2.0.0"):
        counted = _count(
            figures,
            "catalog_constructions_total",
            catalog="demo",
            version=version,
            release="production",
        )
        assert counted == versions.count(version)
    assert 0 < versions.count("2.0.0") < 20
    named = {"catalog": "demo", "version": "1.0.0", "release": ""}
    assert _count(figures, "catalog_constructions_total", **named) == 1
    rebuilt = {"catalog": "demo", "version": versions[1], "release": "production"}
    assert _count(figures, "catalog_rebuilds_total", **rebuilt) == 1
    route = "/conversations/{conversation_id}"
    timed = {"method": "PUT", "route": route, "status": "200"}
    assert _count(figures, "catalog_request_duration_seconds_count", **timed) == 22
    refused = {"method": "GET", "route": "/releases/{label}", "status": "404"}
    client.get("/releases/nothing")
    assert _count(_figures(client), "catalog_request_duration_seconds_count", **refused) == 1
    assert _count(figures, "catalog_store_errors_total") == 0


def test_metrics_count_store_errors(catalogs: Path, tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    settings = ServerSettings(
        paths=(str(catalogs),),
        store_url=f"postgresql://nobody@/db?host={tmp_path}&connect_timeout=1",
        store_timeout=0.2,
    )
    for client in _serve(settings):
        _error(client.put("/releases/p", json={"catalog": "demo", "version": "1.0.0"}), 503)
        _error(client.put("/conversations/c", json={"catalog": "demo"}), 503)
        assert _count(_figures(client), "catalog_store_errors_total") == 2


_ODD_RELEASE_BODIES: list[Any] = [
    None, [], "text", 1, {"catalog": None, "version": "1"}, {"catalog": ["demo"], "version": "1"},
    {"catalog": "demo"}, {"catalog": "demo", "version": 1}, {"catalog": "demo", "version": ""},
    {"catalog": "demo", "version": "1.0.0", "canary": 5},
    {"catalog": "demo", "version": "1.0.0", "canary": {"version": "2.0.0"}},
    {"catalog": "demo", "version": "1.0.0", "canary": {"version": "2.0.0", "percent": "5"}},
    {"catalog": "demo", "version": "x" * 101}, {"catalog": "demo", "version": "1.0.0\x00"},
    {"catalog": "demo", "version": "not a version"}, {"catalog": "Demo", "version": "1.0.0"},
    {"catalog": "demo", "version": "1.0.0", "canary": {"version": "1.0", "percent": 5}},
]  # fmt: skip


@pytest.mark.parametrize("path", ["/releases/odd", "/releases/odd/rollback", "/conversations/o"])
def test_odd_bodies_never_make_a_500(client: TestClient, path: str) -> None:
    client.put("/releases/odd", json={"catalog": "demo", "version": "1.0.0"})
    method = client.post if path.endswith("rollback") else client.put
    bodies = _ODD_RELEASE_BODIES + [{"release": body} for body in ("", 5, None, "x" * 200)]
    for body in bodies:
        response = method(path, json=body)
        assert 400 <= response.status_code < 500 or response.status_code == 200, (
            body,
            response.text,
        )
        if response.status_code != 200:
            _error(response, response.status_code)
    for odd in ("%00", "..%2F..", "a" * 101, "%F0%9F%98%80", "x y"):
        response = client.get(f"/releases/{odd}")
        assert 400 <= response.status_code < 500, (odd, response.text)
