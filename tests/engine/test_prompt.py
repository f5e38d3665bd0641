"""Cache-ready output: blocks at stability changes, Anthropic and OpenAI forms."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic  # in the test extra: the request below is built by the official SDK
import pytest

import catalog
from catalog import Catalog, UsageError, load_dir

try:  # the SDK moved from httpx to its successor httpx2 in its 2.x series
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef]


@pytest.fixture
def mixed(make_catalog: Callable[..., Path]) -> Catalog:
    return load_dir(
        make_catalog(
            parts=[
                {"id": "a", "order": 10, "body": "A."},
                {"id": "b", "order": 20, "body": "B."},
                {"id": "c", "order": 30, "stability": "session", "body": "C {{ env.cwd }}."},
                {"id": "d", "order": 40, "body": "D."},
                {"id": "e", "order": 50, "stability": "session", "body": "E."},
                {"id": "f", "order": 60, "stability": "turn", "body": "F {{ env.date }}."},
            ]
        )
    )


CONTEXT = {"env": {"cwd": "/src", "date": "2025-01-02"}}


def test_blocks_follow_stability_runs_and_join_to_the_text(mixed: Catalog) -> None:
    prompt = mixed.assemble(CONTEXT)
    blocks = prompt.cache_blocks()
    assert [(b.text, b.stability, b.parts, b.breakpoint) for b in blocks] == [
        ("A.\n\nB.\n\n", "static", ("a", "b"), True),  # the static prefix ends
        ("C /src.\n\n", "session", ("c",), False),
        ("D.\n\n", "static", ("d",), False),
        ("E.\n\n", "session", ("e",), True),  # the last block before turn data
        ("F 2025-01-02.", "turn", ("f",), True),  # the whole prompt
    ]
    assert "".join(b.text for b in blocks) == prompt.text


@pytest.mark.parametrize(("limit", "marked"), [(0, []), (1, ["b"]), (2, ["b", "e"])])
def test_fewer_breakpoints_keep_the_longest_lived(
    mixed: Catalog, limit: int, marked: list[str]
) -> None:
    blocks = mixed.assemble(CONTEXT).cache_blocks(max_breakpoints=limit)
    assert [b.parts[-1] for b in blocks if b.breakpoint] == marked


def test_more_than_four_breakpoints_is_refused(mixed: Catalog) -> None:
    with pytest.raises(UsageError, match="at most four"):
        mixed.assemble(CONTEXT).anthropic_system(max_breakpoints=5)


def test_single_class_prompt_is_one_cached_block(make_catalog: Callable[..., Path]) -> None:
    cat = load_dir(make_catalog(parts=[{"id": "a", "body": "A."}, {"id": "b", "body": "B."}]))
    assert cat.assemble().anthropic_system() == [
        {"type": "text", "text": "A.\n\nB.", "cache_control": {"type": "ephemeral"}}
    ]
    assert cat.assemble({"custom_prompt": ""}).anthropic_system() == []


def test_flagship_first_block_is_the_static_prefix() -> None:
    prompt = catalog.load("coding-agent", "==1.1.0").assemble(
        {"tools": ["Bash", "Read"], "env": {"cwd": "/src", "os": "Linux"}}
    )
    blocks = prompt.cache_blocks()
    assert blocks[0].stability == "static"
    assert blocks[0].text == prompt.static_prefix + "\n\n"
    assert blocks[0].breakpoint and blocks[-1].breakpoint
    assert sum(b.breakpoint for b in blocks) <= 4


def test_openai_message(mixed: Catalog) -> None:
    prompt = mixed.assemble(CONTEXT)
    assert prompt.openai_message() == {"role": "system", "content": prompt.text}
    assert prompt.openai_message(role="developer")["role"] == "developer"


def _send(system: list[dict[str, Any]]) -> dict[str, Any]:
    """Build a real Messages API request with the SDK and return the JSON body it sends."""
    sent: dict[str, Any] = {}

    def handler(request: Any) -> Any:
        sent["url"] = str(request.url)
        sent["body"] = json.loads(request.content)
        return httpx.Response(
            200,
            json={
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": "test-model",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        )

    client = anthropic.Anthropic(
        api_key="test-key",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        max_retries=0,
    )
    reply = client.messages.create(
        model="test-model",
        max_tokens=16,
        system=system,  # type: ignore[arg-type]
        messages=[{"role": "user", "content": "hello"}],
    )
    [block] = reply.content
    assert block.type == "text" and block.text == "ok"
    return sent


def test_anthropic_sdk_sends_the_blocks_with_cache_control(mixed: Catalog) -> None:
    system = mixed.assemble(CONTEXT).anthropic_system(ttl="1h")
    sent = _send(system)
    assert sent["url"].endswith("/v1/messages")
    cached = {"type": "ephemeral", "ttl": "1h"}
    assert sent["body"]["system"] == [
        {"type": "text", "text": "A.\n\nB.\n\n", "cache_control": cached},
        {"type": "text", "text": "C /src.\n\n"},
        {"type": "text", "text": "D.\n\n"},
        {"type": "text", "text": "E.\n\n", "cache_control": cached},
        {"type": "text", "text": "F 2025-01-02.", "cache_control": cached},
    ]
    assert sent["body"]["messages"] == [{"role": "user", "content": "hello"}]


def test_anthropic_sdk_with_the_flagship_prompt() -> None:
    prompt = catalog.load("coding-agent", "==1.1.0").assemble({"tools": ["Bash"]})
    body = _send(prompt.anthropic_system())["body"]
    assert "".join(block["text"] for block in body["system"]) == prompt.text
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert 1 <= sum("cache_control" in block for block in body["system"]) <= 4
