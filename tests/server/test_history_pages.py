"""The part page of an id that several parts held, one after another: it lists them and
shows the newest, or the one holding the id in ``as_of``."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from tests._support.reused_ids import STORY
from tests._support.serving import html_page, serving_releases


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving_releases(tmp_path, "agent", STORY) as served:
        yield served


def _holders(page: str) -> list[list[str]]:
    block = re.search(r'<div class="holders" id="holders">(.*?)</div>', page, re.S)
    assert block is not None
    items = re.findall(r"<li>(.*?)</li>", block.group(1), re.S)
    return [html.unescape(re.sub(r"<[^>]+>", " ", item)).split() for item in items]


def test_the_part_page_lists_the_holders_of_a_reused_id(client: TestClient) -> None:
    page = html_page(client, "/catalogs/agent/parts/beast")
    assert _holders(page) == [
        ["1.0.0", "to", "1.1.0:", "another", "part"],
        ["1.3.0", "to", "1.3.0:", "shown", "here"],
    ]
    assert 'href="/catalogs/agent/parts/beast?as_of=1.1.0"' in page
    assert "A different prompt now named beast." in page
    assert "Beast mode" not in page


def test_as_of_shows_the_earlier_holder(client: TestClient) -> None:
    page = html_page(client, "/catalogs/agent/parts/beast?as_of=1.1.0")
    assert _holders(page) == [
        ["1.0.0", "to", "1.1.0:", "shown", "here"],
        ["1.3.0", "to", "1.3.0:", "another", "part"],
    ]
    assert "Beast mode: keep going until the problem is solved." in page
    assert "A different prompt now named beast." not in page


def test_an_id_one_part_held_lists_no_holders(client: TestClient) -> None:
    assert 'id="holders"' not in html_page(client, "/catalogs/agent/parts/anthropic")


def test_as_of_a_version_without_the_id_is_a_404(client: TestClient) -> None:
    response = client.get("/catalogs/agent/parts/beast?as_of=1.2.0")
    assert response.status_code == 404
    assert "has no part 'beast'" in response.text
