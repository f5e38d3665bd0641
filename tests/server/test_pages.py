"""The catalog page's chart of the bundled coding-agent, whose newest version is
estimated by length / 4 and the older ones by cl100k_base: two lines, each named."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests.serving import html_page


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(paths=(), store_url=f"sqlite:///{tmp_path / 'p.sqlite'}")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


def test_figures_of_two_counters_are_two_named_lines(client: TestClient) -> None:
    page = html_page(client, "/catalogs/coding-agent")
    lines = re.findall(r'<polyline class="counter-(\d)" points="([^"]*)"/>', page)
    assert [(style, len(points.split())) for style, points in lines] == [("0", 2), ("1", 1)]
    legend = re.findall(r'<li><span class="swatch counter-\d"></span>([^<]*)</li>', page)
    assert legend == [
        "tokens counted by cl100k_base: 1.0.0 to 1.1.0",
        "tokens counted by chars: 1.2.0",
    ]
    assert re.search(r"<title>1\.2\.0: \d+ tokens \(chars\)</title>", page)
    assert 'aria-label="tokens per version, counted by cl100k_base and chars"' in page
