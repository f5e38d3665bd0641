"""The releases pages of `catalog serve`: every release with its version, its canary's
share and its last change; one release with its history and the rollback button;
the navigation's link to them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests._support.serving import html_page, write_demo_catalogs


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(
        paths=(str(write_demo_catalogs(tmp_path / "catalogs")),),
        store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}",
        token="s3cret-token-7d2e9a41c0b85f63e1a2",
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as served:
        served.headers["Authorization"] = "Bearer s3cret-token-7d2e9a41c0b85f63e1a2"
        yield served


def _set(client: TestClient, label: str, version: str, canary: dict[str, object] | None) -> None:
    body = {"catalog": "demo", "version": version, "canary": canary}
    assert client.put(f"/releases/{label}", json=body).status_code == 200


def _cells(page: str, table: str) -> list[list[str]]:
    """Each row of ``table``'s body, as the text of its cells."""
    body = page.split(f'<table class="grid {table}"')[1].split("<tbody>")[1].split("</tbody>")[0]
    return [
        [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", cell)).strip() for cell in cells]
        for cells in (
            re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.DOTALL)
        )
    ]


def test_the_releases_page_lists_each_release(client: TestClient) -> None:
    empty = html_page(client, "/ui/releases")
    assert "No releases yet" in empty
    _set(client, "production", "1.0.0", None)
    _set(client, "production", "2.0.0", {"version": "1.0.0", "percent": 12.5})
    _set(client, "staging", "2.0.0", None)
    page = html_page(client, "/ui/releases")
    rows = _cells(page, "releases")
    assert [row[:4] for row in rows] == [
        ["production", "demo", "2.0.0", "1.0.0 for 12.5%"],
        ["staging", "demo", "2.0.0", "none"],
    ]
    # The last change: its number, what it did, when (UTC) and who (the token's print).
    assert re.fullmatch(
        r"#2 set, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC by token:[0-9a-f]{12}", rows[0][4]
    )
    assert rows[1][4].startswith("#1 set, ")
    assert '<a href="/ui/releases/production">production</a>' in page
    assert '<a href="/catalogs/demo/2.0.0">2.0.0</a>' in page
    # The canary's share is a bar 12.5 of 100 long.
    assert '<rect class="value" width="12.5" height="1"/>' in page


def test_a_release_page_shows_its_history_and_what_a_rollback_does(
    client: TestClient,
) -> None:
    _set(client, "production", "1.0.0", {"version": "2.0.0", "percent": 5})
    _set(client, "production", "2.0.0", None)
    assert client.post("/releases/production/rollback").status_code == 200
    page = html_page(client, "/ui/releases/production")
    assert [row[:4] for row in _cells(page, "history")] == [
        ["#3", "rollback", "1.0.0", "2.0.0 for 5%"],
        ["#2", "set", "2.0.0", "none"],
        ["#1", "set", "1.0.0", "2.0.0 for 5%"],
    ]
    assert 'data-label="production"' in page
    # Rolling back now undoes the rollback: back to change #2, 2.0.0 without a canary.
    assert "back as change #2 left it: version\n2.0.0." in page
    assert '<button id="rollback" type="button">Roll back production to 2.0.0</button>' in page
    assert '<input type="password" id="token"' in page  # the server has a token


def test_the_page_says_which_rollback_it_just_made(client: TestClient) -> None:
    _set(client, "production", "1.0.0", None)
    _set(client, "production", "2.0.0", None)
    assert client.post("/releases/production/rollback").json()["change"] == 3
    said = "Rolled back: change #3 put production back to 1.0.0."
    assert said in html_page(client, "/ui/releases/production?done=3")
    assert "Rolled back" not in html_page(client, "/ui/releases/production")
    _set(client, "production", "2.0.0", None)  # changed since: the notice is not true now
    assert "Rolled back" not in html_page(client, "/ui/releases/production?done=3")


def test_a_release_changed_once_has_no_rollback_button(client: TestClient) -> None:
    _set(client, "staging", "2.0.0", None)
    page = html_page(client, "/ui/releases/staging")
    assert "has changed once only: there is nothing to roll back to" in page
    assert 'id="rollback"' not in page


def test_an_unknown_or_malformed_label(client: TestClient) -> None:
    unknown = client.get("/ui/releases/nowhere")
    assert unknown.status_code == 404
    assert set(unknown.json()["error"]) == {"status", "message", "field", "hint"}
    bad = client.get("/ui/releases/Not%20A%20Label")
    assert bad.status_code == 400
    assert bad.json()["error"]["field"] == "path.label"


def test_every_page_links_to_the_releases(client: TestClient) -> None:
    for path in ("/", "/catalogs/demo", "/playground", "/editor", "/ui/releases"):
        assert '<a href="/ui/releases">Releases</a>' in html_page(client, path), path


def _button(client: TestClient) -> str:
    page = html_page(client, "/ui/releases/production")
    found = re.search(r'<button id="rollback" type="button">(.*?)</button>', page)
    assert found is not None
    return found.group(1)


def test_a_canary_added_is_rolled_back_alone(client: TestClient) -> None:
    _set(client, "production", "1.0.0", None)
    _set(client, "production", "1.0.0", {"version": "2.0.0", "percent": 10})
    assert _button(client) == "Roll back the canary only: remove canary 2.0.0"


def test_a_canary_changed_is_rolled_back_alone(client: TestClient) -> None:
    _set(client, "production", "1.0.0", {"version": "2.0.0", "percent": 10})
    _set(client, "production", "1.0.0", {"version": "2.0.0", "percent": 50})
    assert _button(client) == "Roll back the canary only: canary 2.0.0 for 10%"


def test_a_version_changed_is_rolled_back_with_its_canary(client: TestClient) -> None:
    _set(client, "production", "1.0.0", {"version": "2.0.0", "percent": 5})
    _set(client, "production", "2.0.0", None)
    assert _button(client) == "Roll back production to 1.0.0, canary 2.0.0 for 5%"
    assert client.post("/releases/production/rollback").json()["version"] == "1.0.0"


def test_counts_read_right_in_the_singular(client: TestClient) -> None:
    _set(client, "production", "1.0.0", None)
    assert "(1 change, newest first)" in html_page(client, "/ui/releases/production")
    _set(client, "production", "2.0.0", None)
    assert "(2 changes, newest first)" in html_page(client, "/ui/releases/production")
    version = html_page(client, "/catalogs/tpl/1.0.0")
    assert " · 1 part, " in version
