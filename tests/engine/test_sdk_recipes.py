"""docs/python.md's recipes for the vendors' SDKs run as written, offline: the real
``anthropic``, ``openai`` and ``claude-agent-sdk`` packages, with only their HTTP
transport replaced by one that records each request and answers it."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from tests._support.doc_pages import ROOT, blocks, run_sh
from tests.conftest import write_catalog

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
agent_sdk = pytest.importorskip("claude_agent_sdk")
httpx2 = pytest.importorskip("httpx2")  # the HTTP package both SDKs are built on

SECTION = "## Sending the prompt: Anthropic, OpenAI and the Claude Agent SDK"
OFFLINE = "tests/engine/test_sdk_recipes.py runs it offline"
ANSWER = "Two files: README.md and setup.py."

_ANSWERS: dict[str, dict[str, Any]] = {
    "/v1/messages": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-5",
        "content": [{"type": "text", "text": ANSWER}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 9},
    },
    "/v1/chat/completions": {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-5",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": ANSWER},
            }
        ],
    },
    "/v1/responses": {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-5",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    },
}

# An imported-looking Claude Code release: raw upstream text, metadata in `meta`.
UPSTREAM = {
    "system-prompt-main": "You are Claude Code, Anthropic's official CLI for Claude.",
    "system-prompt-tone-and-style": "Be concise and direct.",
    "system-prompt-git-safety": "Never force-push; never skip hooks.",
}


def recipe_blocks() -> list[Any]:
    """The blocks of the recipes' section of docs/python.md."""
    page = ROOT / "docs" / "python.md"
    section = page.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    first = page.read_text(encoding="utf-8").split(SECTION, 1)[0].count("\n") + 1
    found = [b for b in blocks(page) if b.line > first]
    assert len(found) == section.count("\n```") // 2
    return found


@pytest.fixture
def sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], dict[str, Any]]:
    """Run the recipes in ``tmp_path`` with the SDKs' clients sending to a recorder:
    the requests sent (path, JSON body) and the recipes' namespace."""
    requests: list[tuple[str, Any]] = []

    def answer(request: Any) -> Any:
        requests.append((request.url.path, json.loads(request.content)))
        return httpx2.Response(200, json=_ANSWERS[request.url.path])

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    for module, name in ((anthropic, "Anthropic"), (openai, "OpenAI")):
        client = functools.partial(getattr(module, name), api_key="test-key", http_client=http)
        monkeypatch.setattr(module, name, client)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CATALOG_PATH", raising=False)
    parts = [
        {"id": part_id, "body": body, "order": 100, "template": False, "meta": {"name": part_id}}
        for part_id, body in UPSTREAM.items()
    ]
    write_catalog(tmp_path / "catalogs", "claude-code", "2.1.0", parts)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    ran = 0
    for block in recipe_blocks():
        if block.mark == "file":
            target = tmp_path / block.arg
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
        elif OFFLINE in block.arg:
            ran += 1
            if block.lang == "sh":
                run_sh(block, tmp_path)
            else:
                exec(compile(block.text, f"{block.page}:{block.line}", "exec"), namespace)
    assert ran == 5
    return requests, namespace


def test_the_recipes_send_what_the_apis_take_and_read_their_answers(
    sent: tuple[list[Any], dict[str, Any]],
) -> None:
    requests, namespace = sent
    paths = [path for path, _ in requests]
    assert paths == ["/v1/messages", "/v1/chat/completions", "/v1/responses"]
    import catalog

    prompt = catalog.load("coding-agent").assemble(
        {"tools": ["Bash", "Read"], "env": {"os": "Linux", "cwd": "/src"}}
    )
    described = {tool.name: tool.description for tool in prompt.tools}
    assert list(described) == ["Bash", "Read"]
    bash = {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    }

    messages = requests[0][1]
    assert messages["system"] == prompt.anthropic_system()
    assert messages["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert [tool["name"] for tool in messages["tools"]] == ["Bash", "Read"]
    assert messages["tools"][0] == {
        "name": "Bash",
        "description": described["Bash"],
        "input_schema": bash,
    }
    assert isinstance(namespace["message"], anthropic.types.Message)
    assert namespace["message"].content[0].text == ANSWER

    chat = requests[1][1]
    assert chat["messages"][0] == {"role": "system", "content": prompt.text}
    assert chat["messages"][1] == {"role": "user", "content": "Which files are here?"}
    assert chat["tools"][0] == {
        "type": "function",
        "function": {"name": "Bash", "description": described["Bash"], "parameters": bash},
    }
    assert namespace["completion"].choices[0].message.content == ANSWER

    responses = requests[2][1]
    assert responses["input"][0] == {"role": "developer", "content": prompt.text}
    assert responses["tools"][0] == {
        "type": "function",
        "name": "Bash",
        "description": described["Bash"],
        "parameters": bash,
    }
    assert namespace["response"].output_text == ANSWER


def test_the_agent_sdk_gets_the_published_prompt_less_what_was_removed_plus_ours(
    sent: tuple[list[Any], dict[str, Any]],
) -> None:
    _, namespace = sent
    options = namespace["options"]
    assert isinstance(options, agent_sdk.ClaudeAgentOptions)
    expected = (
        "You are Claude Code, Anthropic's official CLI for Claude.\n\n"
        "Be concise and direct.\n\n"
        "Run `make check` before every commit, and never commit to main."
    )
    assert options.system_prompt == expected
    assert options.tools == ["Bash", "Read"]
    # What the SDK would start Claude Code with (the command is built, never run).
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    transport = SubprocessCLITransport(
        prompt="Which files are here?",
        options=dataclasses.replace(options, cli_path="/nonexistent/claude"),
    )
    command = transport._build_command()
    at = command.index("--system-prompt")
    assert command[at + 1] == expected
    assert "--append-system-prompt" not in command
    assert command[command.index("--tools") + 1] == "Bash,Read"
    # The overlay pins the upstream text it was reviewed with.
    manifest = Path("catalogs/my-claude-code/1.0.0/catalog.toml").read_text(encoding="utf-8")
    assert manifest.count("sha256 = ") == 3
