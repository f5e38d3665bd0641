"""The playground's first screen: it opens on a catalog that assembles even when the
first catalog by name cannot, and its result shows an error first and names its counter."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests._support.serving import html_page
from tests.conftest import write_catalog


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A server whose path holds ``aaa-huge`` (first by name, its prompt over the
    2,000,000-character limit) besides the bundled catalogs."""
    catalogs = tmp_path / "catalogs"
    write_catalog(catalogs, "aaa-huge", parts=[{"id": "all", "body": "x" * 2_000_001}])
    settings = ServerSettings(
        paths=(str(catalogs),), store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


def test_the_playground_opens_on_the_bundled_catalog(client: TestClient) -> None:
    page = html_page(client, "/playground")
    assert 'data-name="coding-agent"' in page
    answer = client.post(
        "/api/assemble", json={"catalog": "coding-agent", "context": {"env": {"os": "Linux"}}}
    )
    assert answer.status_code == 200  # it assembles, under the page's first context


def test_the_first_catalog_by_name_is_still_offered_and_says_why_it_fails(
    client: TestClient,
) -> None:
    page = html_page(client, "/playground?catalog=aaa-huge")
    assert 'data-name="aaa-huge"' in page
    answer = client.post("/api/assemble", json={"catalog": "aaa-huge", "context": {}})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["message"] == (
        "the assembled prompt has 2,000,001 characters, over the limit of 2,000,000"
    )


def test_the_result_shows_its_error_first_and_names_its_counter(client: TestClient) -> None:
    page = html_page(client, "/playground")
    result = page[page.index('<section class="result">') :]
    assert (
        result.index('id="play-error"') < result.index('id="total"') < result.index('id="prompt"')
    )
    assert re.search(r'Tokens \(<span id="counter">', result)
