"""The checks every route shares, through HTTP: the token a write or a conversation's
read needs is the token exactly, and a page of another site may not write."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests._support.serving import write_demo_catalogs

TOKEN = "s3cret-Token_1-0123456789abcdefXY"


TOKEN = "s3cret-Token_1-0f9e8d7c6b5a49382716"
_RIGHT = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(
        paths=(str(write_demo_catalogs(tmp_path / "catalogs")),),
        store_url=f"sqlite:///{tmp_path / 'p.sqlite'}",
        template_catalog="tpl",
        token=TOKEN,
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        made = client.put("/conversations/c", json={"catalog": "tpl"}, headers=_RIGHT)
        assert made.status_code == 200
        yield client


def _put(client: TestClient, headers: dict[str, str]) -> int:
    return client.put("/system-prompt", json={"template": "T"}, headers=headers).status_code


@pytest.mark.parametrize(
    "authorization",
    [
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN}{TOKEN}",
        f"Bearer {TOKEN[:-1]}",
        f"Bearer {TOKEN.upper()}",
        f"Bearer {TOKEN.swapcase()}",
        f"Basic {TOKEN}",
        TOKEN,
    ],
)
def test_a_write_or_read_with_anything_but_the_token_is_refused(
    client: TestClient, authorization: str
) -> None:
    refused = client.put(
        "/system-prompt", json={"template": "T"}, headers={"Authorization": authorization}
    )
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"
    assert refused.json()["error"]["message"] == (
        "this server needs `Authorization: Bearer <token>` here"
    )
    assert (
        client.get("/conversations/c", headers={"Authorization": authorization}).status_code == 401
    )
    assert client.get("/conversations/c", headers=_RIGHT).status_code == 200
    assert client.get("/system-prompt").json() != {"template": "T"}


def test_a_write_with_the_token_is_taken_and_the_scheme_may_be_any_case(
    client: TestClient,
) -> None:
    assert _put(client, {"Authorization": f"Bearer {TOKEN}"}) == 200
    assert _put(client, {"Authorization": f"bearer {TOKEN}"}) == 200  # RFC 9110: no case
    assert client.get("/system-prompt").json() == {"template": "T"}


@pytest.mark.parametrize(
    "origin",
    [
        "http://attacker.example",
        "http://127.0.0.1.attacker.example",
        "http://127.0.0.1:8000",  # another port is another site
        "http://attacker.example/127.0.0.1",
        "null",
    ],
)
def test_a_write_from_another_sites_page_is_refused_even_with_the_token(
    client: TestClient, origin: str
) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Origin": origin}
    refused = client.put("/system-prompt", json={"template": "T"}, headers=headers)
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == f"writes from {origin} are refused"


def test_a_write_from_the_servers_own_page_is_taken(client: TestClient) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Origin": "http://127.0.0.1"}
    assert _put(client, headers) == 200
