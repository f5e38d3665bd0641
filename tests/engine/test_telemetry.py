"""OpenTelemetry: an assembly records the prompt's identity on the current span; without
OpenTelemetry nothing is imported and nothing recorded."""

from __future__ import annotations

import hashlib
import importlib.abc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import load_dir
from catalog.engine.telemetry import record_release, request_span

TEXT = "Hello world!"  # 12 characters: 3 tokens counted as length/4


@pytest.fixture
def demo(make_catalog: Callable[..., Path]) -> Path:
    return make_catalog(
        "demo",
        "1.2.0",
        [{"id": "intro", "body": TEXT, "agents": ["main", "explore"]}],
        agents=[{"name": "explore", "description": "searches"}],
        catalog={"tokenizer": "chars"},
    )


def test_an_assembly_records_the_prompt_identity_on_the_current_span(
    demo: Path, spans: Any
) -> None:
    from opentelemetry import trace

    with trace.get_tracer("test").start_as_current_span("chat"):
        load_dir(demo).assemble({}, agent="explore")
        record_release("production")
    [span] = spans.get_finished_spans()
    assert span.name == "chat"
    assert dict(span.attributes) == {
        "gen_ai.prompt.name": "demo.explore",
        "catalog.prompt.catalog": "demo",
        "catalog.prompt.version": "1.2.0",
        "catalog.prompt.agent": "explore",
        "catalog.prompt.release": "production",
        "catalog.prompt.fingerprint": hashlib.sha256(TEXT.encode()).hexdigest(),
        "catalog.prompt.tokens": 3,
    }


def test_the_main_agent_s_prompt_is_named_by_its_catalog(demo: Path, spans: Any) -> None:
    with request_span("GET /prompt", {"http.request.method": "GET"}):
        load_dir(demo).assemble({})
    [span] = spans.get_finished_spans()
    assert span.name == "GET /prompt"
    assert span.kind.name == "SERVER"
    assert span.attributes["http.request.method"] == "GET"
    assert span.attributes["gen_ai.prompt.name"] == "demo"
    assert "catalog.prompt.release" not in span.attributes


def test_outside_any_span_nothing_is_recorded(demo: Path, spans: Any) -> None:
    load_dir(demo).assemble({})
    assert spans.get_finished_spans() == ()


def test_a_failing_request_marks_its_span_as_an_error(spans: Any) -> None:
    with pytest.raises(ValueError), request_span("GET /boom"):
        raise ValueError("boom")
    [span] = spans.get_finished_spans()
    assert span.status.status_code.name == "ERROR"


class _Hide(importlib.abc.MetaPathFinder):
    """Refuses every ``opentelemetry`` module, as if the package were not installed."""

    def find_spec(self, name: str, *args: Any) -> None:
        if name.partition(".")[0] == "opentelemetry":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def test_without_opentelemetry_nothing_is_imported_or_recorded(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in sys.modules if n.partition(".")[0] == "opentelemetry"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_Hide(), *sys.meta_path])
    with request_span("GET /prompt"):
        prompt = load_dir(demo).assemble({}, agent="explore")
        record_release("production")
    assert prompt.text == TEXT
    assert not [n for n in sys.modules if n.partition(".")[0] == "opentelemetry"]


def test_the_server_traces_each_request_and_the_prompt_a_release_chose(
    demo: Path, spans: Any
) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from catalog.server.app import create_app
    from catalog.server.state import ServerSettings

    settings = ServerSettings(paths=(str(demo.parents[1]),), store_url="sqlite://")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        answer = client.put("/releases/production", json={"catalog": "demo", "version": "1.2.0"})
        assert answer.status_code == 200, answer.text
        answer = client.put("/conversations/c-1", json={"release": "production"})
        assert answer.status_code == 200, answer.text
        assert client.get("/no/such/page").status_code == 404
    by_name = {span.name: span for span in spans.get_finished_spans()}
    constructed = by_name["PUT /conversations/{conversation_id}"]
    assert constructed.kind.name == "SERVER"
    assert constructed.attributes["http.request.method"] == "PUT"
    assert constructed.attributes["http.route"] == "/conversations/{conversation_id}"
    assert constructed.attributes["http.response.status_code"] == 200
    # The prompt is on the span current when it was assembled: the request's, or one
    # that the web framework opened inside it for the route.
    [recorded] = [
        span
        for span in spans.get_finished_spans()
        if span.context.trace_id == constructed.context.trace_id
        and "gen_ai.prompt.name" in span.attributes
    ]
    assert recorded.attributes["gen_ai.prompt.name"] == "demo"
    assert recorded.attributes["catalog.prompt.version"] == "1.2.0"
    assert recorded.attributes["catalog.prompt.release"] == "production"
    assert (
        recorded.attributes["catalog.prompt.fingerprint"]
        == hashlib.sha256(TEXT.encode()).hexdigest()
    )
    assert "catalog.prompt.version" not in by_name["PUT /releases/{label}"].attributes
    assert by_name["GET"].attributes["http.response.status_code"] == 404
