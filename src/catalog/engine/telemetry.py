"""OpenTelemetry, when the application uses it: which prompt answered, on the current span.

Every assembly records the prompt's identity on the span current at that moment
(:func:`record_prompt`): the prompt's name under the GenAI semantic conventions'
``gen_ai.prompt.name`` (the catalog's name for its main agent, ``NAME.AGENT`` for
a sub-agent, as ``catalog mcp`` names its prompts), and the rest, which those
conventions have no names for, under ``catalog.prompt.*``: catalog, version,
agent, release (when a release label chose the version), fingerprint and tokens.
``catalog serve`` and ``catalog mcp`` open a span for each request they answer
(:func:`request_span`), so a trace tells which prompt version every answer used.

Nothing here imports OpenTelemetry for an assembly: a span can only be current
once something has imported ``opentelemetry.trace`` (to set up tracing), so the
hook looks it up in ``sys.modules`` and does nothing when it is not there, nor
when the current span is not recording. The fingerprint and the token count are
worked out only for a span that records them. Only :func:`request_span` imports
``opentelemetry`` (the ``otel`` extra), and does nothing when it is missing.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping
from typing import Any, Final, Protocol

from catalog.schema.manifest import MAIN_AGENT

__all__ = [
    "AGENT",
    "CATALOG",
    "FINGERPRINT",
    "PROMPT_NAME",
    "RELEASE",
    "TOKENS",
    "VERSION",
    "Identified",
    "prompt_name",
    "record_prompt",
    "record_release",
    "request_span",
]

PROMPT_NAME: Final = "gen_ai.prompt.name"
"""The GenAI semantic conventions' name of a prompt (the name ``catalog mcp`` lists)."""
CATALOG: Final = "catalog.prompt.catalog"
VERSION: Final = "catalog.prompt.version"
AGENT: Final = "catalog.prompt.agent"
RELEASE: Final = "catalog.prompt.release"
FINGERPRINT: Final = "catalog.prompt.fingerprint"
TOKENS: Final = "catalog.prompt.tokens"

_TRACE_MODULE: Final = "opentelemetry.trace"


class Identified(Protocol):
    """What identifies an assembled prompt (an ``AssembledPrompt`` is one)."""

    @property
    def catalog(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def tokens(self) -> int: ...


def prompt_name(catalog: str, agent: str) -> str:
    """The name of an agent's prompt: the catalog's name for its main agent, else
    ``NAME.AGENT``. A catalog's name may hold dots too: a reader splits such a name at
    the longest catalog name it starts with, as ``catalog mcp`` does."""
    return catalog if agent == MAIN_AGENT else f"{catalog}.{agent}"


def _recording_span(trace: Any) -> Any:
    """The current span of the ``opentelemetry.trace`` module ``trace`` if it records,
    else None."""
    span = trace.get_current_span()
    return span if span.is_recording() else None


def record_prompt(prompt: Identified, *, release: str | None = None) -> None:
    """Set ``prompt``'s identity on the current span, if one records (see the module
    docstring); ``release``: the label that chose its version. Every assembly calls
    it: without OpenTelemetry it costs one dictionary lookup."""
    trace = sys.modules.get(_TRACE_MODULE)
    if trace is None:
        return
    span = _recording_span(trace)
    if span is None:
        return
    attributes: dict[str, str | int] = {
        PROMPT_NAME: prompt_name(prompt.catalog, prompt.agent),
        CATALOG: prompt.catalog,
        VERSION: prompt.version,
        AGENT: prompt.agent,
        FINGERPRINT: prompt.fingerprint,
        TOKENS: prompt.tokens,
    }
    if release is not None:
        attributes[RELEASE] = release
    span.set_attributes(attributes)


def record_release(label: str) -> None:
    """Set the release label that chose the version on the current span, if one records."""
    trace = sys.modules.get(_TRACE_MODULE)
    span = None if trace is None else _recording_span(trace)
    if span is not None:
        span.set_attribute(RELEASE, label)


@contextlib.contextmanager
def request_span(name: str, attributes: Mapping[str, str | int] | None = None) -> Iterator[Any]:
    """A server span named ``name`` around a request, current while it is answered and
    given to the caller (to name its route and status once known), when OpenTelemetry
    is installed; None otherwise. An exception that escapes is recorded on the span and
    its status set to error, as OpenTelemetry does."""
    try:
        from opentelemetry import trace
    except ImportError:
        yield None
        return
    with trace.get_tracer("catalog").start_as_current_span(
        name, kind=trace.SpanKind.SERVER, attributes=dict(attributes or {})
    ) as span:
        yield span
