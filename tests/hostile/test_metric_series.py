"""Clients cannot choose /metrics series: on a server without a token, anyone may
create releases, but the release labels of the figures come from a bounded set."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
pytest.importorskip("prometheus_client", reason="the serve extra is not installed")

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from catalog.server.app import create_app
from catalog.server.metrics import MAX_RELEASE_SERIES, OTHER_RELEASES
from catalog.server.state import ServerSettings
from tests._support.serving import write_demo_catalogs


def _series(text: str) -> dict[str, set[str]]:
    """The release labels of each family's samples."""
    found: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if "release" in sample.labels:
                found.setdefault(family.name, set()).add(sample.labels["release"])
    return found


def test_a_client_making_releases_adds_a_bounded_number_of_series(tmp_path: Path) -> None:
    settings = ServerSettings(
        paths=(str(write_demo_catalogs(tmp_path / "catalogs")),),
        store_url=f"sqlite:///{tmp_path / 'p.sqlite'}",
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        made = 3 * MAX_RELEASE_SERIES  # well past the bound
        for index in range(made):
            label = f"r{index}"
            set_it = client.put(f"/releases/{label}", json={"catalog": "demo", "version": "1.0.0"})
            assert set_it.status_code == 200
            built = client.put(f"/conversations/c{index}", json={"release": label})
            assert built.status_code == 200
            assert client.post(f"/conversations/c{index}/rebuild", json={}).status_code == 200
        series = _series(client.get("/metrics").text)
    expected = {f"r{index}" for index in range(MAX_RELEASE_SERIES)} | {OTHER_RELEASES}
    assert series["catalog_constructions"] == expected
    assert series["catalog_rebuilds"] == expected
