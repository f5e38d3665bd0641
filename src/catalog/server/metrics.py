"""What operators watch: ``GET /metrics`` in Prometheus's text format, through the
official ``prometheus-client`` package.

- ``catalog_constructions_total{catalog, version, release}``: prompts of new
  conversations stored (``release`` empty when the catalog was named; the first
  :data:`MAX_RELEASE_SERIES` release labels a process meets have series of their
  own, every later one is counted as ``other``, since clients create releases);
- ``catalog_rebuilds_total{catalog, version, release}``: prompts rebuilt;
- ``catalog_store_errors_total``: times the prompt store was found busy or
  unreachable (a write answered 503, a template read answered the default);
- ``catalog_request_duration_seconds{method, route, status}``: a histogram of the
  time each request took, by its route's template (``/conversations/{conversation_id}``),
  never by the path a client sent.

With several worker processes (``catalog serve --workers N``) each process
writes its figures to files in the folder ``PROMETHEUS_MULTIPROC_DIR`` names
(prometheus-client's multiprocess mode, chosen when the package is first
imported), and ``/metrics``, whichever worker answers, adds up every process's.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Final

from fastapi import APIRouter, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from catalog.conversations.base import StoredPrompt
from catalog.engine.telemetry import request_span

__all__ = [
    "MAX_RELEASE_SERIES",
    "MULTIPROCESS_ENV",
    "OTHER_RELEASES",
    "Metrics",
    "RequestTimer",
    "router",
]

MULTIPROCESS_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
"""The variable naming the folder where worker processes write their figures."""

MAX_RELEASE_SERIES: Final = 32
"""The most release labels one process gives series of their own; the rest are
:data:`OTHER_RELEASES`."""
OTHER_RELEASES: Final = "other"
"""The ``release`` label of the releases met after the first :data:`MAX_RELEASE_SERIES`."""

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_PROMPT_LABELS = ("catalog", "version", "release")


class Metrics:
    """The figures of one server (one process), in a registry of their own."""

    def __init__(self) -> None:
        self._releases: set[str] = set()
        self._releases_lock = threading.Lock()
        self.registry = CollectorRegistry()
        self.constructions = Counter(
            "catalog_constructions",
            "Prompts of new conversations stored, by catalog, version and release",
            _PROMPT_LABELS,
            registry=self.registry,
        )
        self.rebuilds = Counter(
            "catalog_rebuilds",
            "Conversation prompts rebuilt, by catalog, version and release",
            _PROMPT_LABELS,
            registry=self.registry,
        )
        self.store_errors = Counter(
            "catalog_store_errors",
            "Times the prompt store was found busy or unreachable",
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "catalog_request_duration_seconds",
            "Time taken by each request, by method, route template and status",
            ("method", "route", "status"),
            registry=self.registry,
        )

    def constructed(self, prompt: StoredPrompt) -> None:
        """Count the construction of ``prompt``."""
        self.constructions.labels(prompt.catalog, prompt.version, self._release(prompt)).inc()

    def rebuilt(self, prompt: StoredPrompt) -> None:
        """Count the rebuild that stored ``prompt``."""
        self.rebuilds.labels(prompt.catalog, prompt.version, self._release(prompt)).inc()

    def _release(self, prompt: StoredPrompt) -> str:
        """The ``release`` label of ``prompt``: its release's label among the first
        :data:`MAX_RELEASE_SERIES` met, else :data:`OTHER_RELEASES` (empty: none)."""
        label = prompt.release or ""
        if not label:
            return label
        with self._releases_lock:
            if label in self._releases:
                return label
            if len(self._releases) < MAX_RELEASE_SERIES:
                self._releases.add(label)
                return label
        return OTHER_RELEASES

    def render(self) -> bytes:
        """The figures in Prometheus's text format: this process's, or every worker's
        added up when :data:`MULTIPROCESS_ENV` is set."""
        if MULTIPROCESS_ENV not in os.environ:  # prometheus-client's own test
            return generate_latest(self.registry)
        everyone = CollectorRegistry()
        MultiProcessCollector(everyone)  # type: ignore[no-untyped-call]  # untyped upstream
        return generate_latest(everyone)


def _route(scope: Scope) -> str:
    """The template of the route that answered (never a client's path: bounded labels)."""
    route = scope.get("route")
    template = getattr(route, "path_format", None)
    return template if isinstance(template, str) else "unmatched"


class RequestTimer:
    """Time every HTTP request into ``metrics``, whatever answers it (a guard, a route,
    an error handler), within an OpenTelemetry span named by the method and the route
    (:func:`~catalog.engine.telemetry.request_span`) when OpenTelemetry is installed."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # unless an answer starts: the request failed before one
        method = scope["method"] if scope["method"] in _METHODS else "other"

        async def timed_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        with request_span(method, {"http.request.method": method}) as span:
            try:
                await self.app(scope, receive, timed_send)
            finally:
                route = _route(scope)
                self.metrics.request_seconds.labels(method, route, str(status)).observe(
                    time.perf_counter() - started
                )
                if span is not None:
                    if route != "unmatched":
                        span.update_name(f"{method} {route}")
                        span.set_attribute("http.route", route)
                    span.set_attribute("http.response.status_code", status)


router = APIRouter(tags=["metrics"])


@router.get("/metrics", response_class=Response)
def metrics(request: Request) -> Response:
    """The server's figures in Prometheus's text format (see the module docstring)."""
    figures: Metrics = request.app.state.server.metrics
    return Response(figures.render(), media_type=CONTENT_TYPE_LATEST)
