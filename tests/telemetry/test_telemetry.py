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
from catalog.telemetry import record_release, request_span

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
