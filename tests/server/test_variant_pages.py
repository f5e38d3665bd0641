"""The variants page (which part of each group each model gets, and the drift) and the
context's ``model`` over HTTP."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from tests._support.serving import html_page, serving_releases
from tests._support.variant_releases import RELEASES


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving_releases(tmp_path, "agent", RELEASES) as served:
        yield served


def _cells(page: str) -> list[list[str]]:
    table = re.search(r'<table class="grid variants" id="variants">(.*?)</table>', page, re.S)
    assert table is not None
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)
    cell = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", found)).strip() for found in cell.findall(row)]
        for row in rows
    ]


def test_the_page_shows_each_models_part_and_the_drift(client: TestClient) -> None:
    page = html_page(client, "/variants/agent?model=gpt-5&model=o3%0Aclaude-x&spec=>=1.2")
    assert _cells(page) == [
        ["version", "group", "gpt-5", "o3", "claude-x"],
        ["1.2.0", "provider", "gpt", "default", "anthropic"],
        ["1.3.0", "provider", "gpt", "default", "anthropic"],
        ["1.4.0", "provider", "gpt", "default", "anthropic"],
    ]
    drift = re.search(r'<ul class="drift" id="drift">(.*?)</ul>', page, re.S)
    assert drift is not None
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", drift.group(1))).split())
    assert text == (
        "1.3.0, group provider: gpt (prose), anthropic (prose) changed since 1.2.0; not default."
    )
    assert 'href="/catalogs/agent/parts/gpt?as_of=1.3.0"' in page


def test_without_models_the_page_asks_for_them(client: TestClient) -> None:
    page = html_page(client, "/variants/agent")
    assert 'id="no-models"' in page and 'id="drift"' in page
    assert 'href="/variants/agent"' in html_page(client, "/catalogs/agent")


def test_bad_requests_are_4xx(client: TestClient) -> None:
    assert client.get("/variants/agent?spec=>=9").status_code == 404
    many = "&".join(f"model=m{i}" for i in range(17))
    assert client.get(f"/variants/agent?{many}").status_code in (400, 422)
    assert client.get("/variants/no-such").status_code == 404


def test_the_api_assembles_for_a_model(client: TestClient) -> None:
    body = {"catalog": "agent@1.3.0", "context": {"model": "gemini-2.5-pro"}}
    answer = client.post("/api/assemble", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["text"] == "You are an agent.\n\nGemini one."
    wrong = client.post("/api/assemble", json={"catalog": "agent", "context": {"model": 3}})
    assert wrong.status_code == 422
    assert "body.context.model" in wrong.text
