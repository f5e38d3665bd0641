"""The playground offers a toggle for every tool the catalog knows."""

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


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as served:
        yield served


def test_opal_playground_has_a_toggle_for_each_tool_its_rules_test(client: TestClient) -> None:
    page = html_page(client, "/playground?catalog=opal&version=1.1.0")
    toggles = re.findall(r'data-tool="([^"]+)"', page)
    assert toggles == [
        "bash", "cmd", "edit_file", "grep", "powershell", "read_file", "shell",
        "sub_agent", "tasks", "use_skill", "write_file", "zsh",
    ]  # fmt: skip


def test_the_api_lists_the_same_tools(client: TestClient) -> None:
    described = client.get("/api/catalogs/pi/1.1.0").json()
    assert described["tools"] == ["bash", "edit", "find", "grep", "ls", "read", "write"]
