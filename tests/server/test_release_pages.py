"""The release page's rollback button says what it will do (the version, or the canary
only), and its counts read right in the singular."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests.serving import html_page, write_demo_catalogs


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(
        paths=(str(write_demo_catalogs(tmp_path / "catalogs")),),
        store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}",
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as served:
        yield served


def _set(client: TestClient, version: str, canary: dict[str, object] | None) -> None:
    body = {"catalog": "demo", "version": version, "canary": canary}
    assert client.put("/releases/production", json=body).status_code == 200


def _button(client: TestClient) -> str:
    page = html_page(client, "/ui/releases/production")
    found = re.search(r'<button id="rollback" type="button">(.*?)</button>', page)
    assert found is not None
    return found.group(1)


def test_a_canary_added_is_rolled_back_alone(client: TestClient) -> None:
    _set(client, "1.0.0", None)
    _set(client, "1.0.0", {"version": "2.0.0", "percent": 10})
    assert _button(client) == "Roll back the canary only: remove canary 2.0.0"


def test_a_canary_changed_is_rolled_back_alone(client: TestClient) -> None:
    _set(client, "1.0.0", {"version": "2.0.0", "percent": 10})
    _set(client, "1.0.0", {"version": "2.0.0", "percent": 50})
    assert _button(client) == "Roll back the canary only: canary 2.0.0 for 10%"


def test_a_version_changed_is_rolled_back_with_its_canary(client: TestClient) -> None:
    _set(client, "1.0.0", {"version": "2.0.0", "percent": 5})
    _set(client, "2.0.0", None)
    assert _button(client) == "Roll back production to 1.0.0, canary 2.0.0 for 5%"
    assert client.post("/releases/production/rollback").json()["version"] == "1.0.0"


def test_counts_read_right_in_the_singular(client: TestClient) -> None:
    _set(client, "1.0.0", None)
    assert "(1 change, newest first)" in html_page(client, "/ui/releases/production")
    _set(client, "2.0.0", None)
    assert "(2 changes, newest first)" in html_page(client, "/ui/releases/production")
    version = html_page(client, "/catalogs/tpl/1.0.0")
    assert " · 1 part, " in version
