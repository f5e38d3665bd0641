"""The HTTP API answers like one: a reference written wrong is a 400 (not a 404), a
hint never tells an HTTP client about --path or CATALOG_PATH, and JSON nested too
deeply to read is the 422 docs/serving.md gives malformed JSON, naming the body."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests.conftest import write_catalog


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    write_catalog(tmp_path / "catalogs", "mybot", parts=[{"id": "intro", "body": "Hi."}])
    settings = ServerSettings(
        paths=(str(tmp_path / "catalogs"),), store_url=f"sqlite:///{tmp_path / 'p.sqlite'}"
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    return error


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/api/diff?old=mybot@abc&new=mybot", "'abc' is not a PEP 440 version specifier"),
        ("/api/diff?old=mybot@&new=mybot", "'mybot@' has no version after its '@'"),
        ("/api/catalogs/MyBot", "'MyBot' is not a catalog name ("),
    ],
)
def test_a_reference_written_wrong_is_a_400(client: TestClient, path: str, message: str) -> None:
    assert _error(client.get(path), 400)["message"].startswith(message)


def test_an_invalid_name_in_a_body_is_a_400_without_command_line_hints(
    client: TestClient,
) -> None:
    error = _error(client.post("/api/assemble", json={"catalog": "../etc"}), 400)
    assert error["message"].startswith("'../etc' is not a catalog name (")
    assert error["hint"] is None  # "add folders with --path, CATALOG_PATH" is not for a client


def test_an_unknown_catalog_is_a_404_listing_the_catalogs_alone(client: TestClient) -> None:
    error = _error(client.post("/api/assemble", json={"catalog": "nope"}), 404)
    assert error["message"] == "no catalog named 'nope'"
    assert error["hint"].startswith("available catalogs: ")
    assert "mybot" in error["hint"]
    assert "--path" not in error["hint"] and "CATALOG_PATH" not in error["hint"]


def test_json_nested_5000_deep_is_a_422_naming_the_body(client: TestClient) -> None:
    nested = b"[" * 5000 + b"]" * 5000
    body = b'{"catalog": "mybot", "context": {"variables": {"a": ' + nested + b"}}}"
    response = client.post(
        "/api/assemble", content=body, headers={"content-type": "application/json"}
    )
    error = _error(response, 422)
    assert error == {
        "status": 422,
        "message": "body: the JSON is nested too deeply to read",
        "field": "body",
        "hint": "send the data less deeply nested: a context is a few levels deep",
    }
