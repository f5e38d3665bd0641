"""``catalog mcp`` through the official MCP client, spawned over stdio as docs/mcp.md
configures it: the bundled catalogs listed, every agent's prompt byte-identical to
``catalog assemble``, part bodies as resources, release labels, errors."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.conftest import run_cli, write_catalog

anyio = pytest.importorskip("anyio")
pytest.importorskip("mcp")

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import GetPromptResult, TextContent  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 120  # a bound for one whole session, however slow the machine
_T = TypeVar("_T")

pytestmark = pytest.mark.slow


def configured() -> dict[str, Any]:
    """The server entry of the ``.mcp.json`` docs/mcp.md shows."""
    page = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    block = re.search(r'```json\n(\{\n  "mcpServers".*?)```', page, re.S)
    assert block is not None, "docs/mcp.md shows no .mcp.json"
    server: dict[str, Any] = json.loads(block.group(1))["mcpServers"]["catalog"]
    return server


def with_session(
    work: Callable[[ClientSession], Awaitable[_T]], *more: str, cwd: Path | None = None
) -> _T:
    """Start ``catalog mcp`` (plus ``more`` arguments) as configured, initialise a client
    session over its standard input and output, and run ``work`` with it."""
    server = configured()
    command = Path(sys.executable).with_name(server["command"])  # this environment's script
    assert command.exists(), f"{command} is not installed"
    params = StdioServerParameters(
        command=str(command), args=[*server["args"], *more], cwd=cwd, env={"NO_COLOR": "1"}
    )

    async def main() -> _T:
        with anyio.fail_after(SECONDS):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                return await work(s)

    result: _T = anyio.run(main)
    return result


def cli_text(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """What ``catalog assemble`` prints, without its final newline."""
    code, out, err = run_cli(capsys, "assemble", *args)
    assert code == 0, err
    assert out.endswith("\n")
    return out[:-1]


def test_the_bundled_catalogs_agents_are_listed_and_each_prompt_is_the_cli_s(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CATALOG_PATH", raising=False)
    code, out, _ = run_cli(capsys, "list", "--format", "json")
    assert code == 0
    expected: dict[str, tuple[str, str, str]] = {}
    for listed in json.loads(out):
        code, shown, _ = run_cli(capsys, "show", listed["name"], "--format", "json")
        agents = ["main", *(agent["name"] for agent in json.loads(shown).get("agent", []))]
        for agent in agents:
            name = listed["name"] if agent == "main" else f"{listed['name']}.{agent}"
            expected[name] = (listed["name"], agent, listed["newest"])
    assert {"coding-agent", "coding-agent.explore", "dispatch", "pi"} <= set(expected)

    async def work(session: ClientSession) -> tuple[list[str], dict[str, GetPromptResult]]:
        listing = await session.list_prompts()
        names = [p.name for p in listing.prompts]
        return names, {name: await session.get_prompt(name) for name in names}

    names, prompts = with_session(work)
    assert sorted(names) == sorted(expected)
    for name, (catalog, agent, version) in expected.items():
        result = prompts[name]
        [message] = result.messages
        text = cli_text(capsys, f"{catalog}@=={version}", "--agent", agent)
        assert message.role == "user"
        assert isinstance(message.content, TextContent)
        assert message.content.text == text, name
        assert result.meta is not None
        assert result.meta["catalog"] == catalog
        assert result.meta["agent"] == agent
        assert result.meta["version"] == version
        assert result.meta["fingerprint"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
        assert isinstance(result.meta["tokens"], int)
        assert "release" not in result.meta


def test_arguments_are_read_as_the_cli_reads_them(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = {
        "version-spec": "~=1.1.0",
        "enabled-tools": "Bash, Read,Grep",
        "model-name": "claude-opus-4-5",
        "plan_mode": "true",
        "modified_files": "a.py,b.py",
        "context_used_percent": "85",
        "todo_list_empty": "",  # left empty by the client: not given
    }

    async def work(session: ClientSession) -> list[Any]:
        return [
            await session.get_prompt("coding-agent", arguments),
            await session.get_prompt("coding-agent.explore", {"enabled-tools": "Read"}),
        ]

    main, explore = with_session(work)
    text = cli_text(
        capsys,
        "coding-agent@~=1.1.0",
        "--tools",
        "Bash, Read,Grep",
        "--set",
        "env.model=claude-opus-4-5",
        "--set",
        "plan_mode=true",
        "--set",
        "modified_files=a.py,b.py",
        "--set",
        "context_used_percent=85",
    )
    assert main.messages[0].content.text == text
    assert main.meta["version"] == "1.1.0"
    assert "claude-opus-4-5" in text  # the arguments did change the prompt
    assert "Grep searches file contents" in text
    assert explore.messages[0].content.text == cli_text(
        capsys, "coding-agent", "--agent", "explore", "--tools", "Read"
    )


def test_errors_are_mcp_errors_with_the_project_s_messages() -> None:
    requests: list[tuple[str, dict[str, str]]] = [
        ("coding-agent", {"plan_mode": "maybe"}),
        ("coding-agent", {"plan_mod": "true"}),
        ("coding-agent.nobody", {}),
        ("no-such-catalog", {}),
        ("coding-agent", {"version-spec": "==9.9.9"}),
    ]

    async def work(session: ClientSession) -> list[MCPError]:
        errors = []
        for name, arguments in requests:
            with pytest.raises(MCPError) as caught:
                await session.get_prompt(name, arguments)
            errors.append(caught.value)
        with pytest.raises(MCPError) as caught:
            await session.read_resource("catalog://coding-agent/1.2.0/no-such-part")
        errors.append(caught.value)
        return errors

    bad_value, unknown, agent, catalog, version, part = with_session(work)
    assert bad_value.error.code == -32602
    assert "argument plan_mode='maybe': not a valid bool" in bad_value.error.message
    assert bad_value.error.data == {
        "key": "variables.plan_mode",
        "hint": "write true or false (values are read as JSON)",
    }
    assert "argument 'plan_mod': no such variable of coding-agent" in unknown.error.message
    assert "plan_mode" in unknown.error.data["hint"]
    assert "has no agent 'nobody'" in agent.error.message
    assert "there is no prompt 'no-such-catalog'" in catalog.error.message
    assert "no version of 'coding-agent' satisfies '==9.9.9'" in version.error.message
    assert part.error.code == -32002
    assert "has no part 'no-such-part'" in part.error.message


def test_part_bodies_are_resources() -> None:
    body = (ROOT / "src/catalog/parts/pi/1.0.0").glob("*.md")
    first = sorted(body)[0]

    async def work(session: ClientSession) -> tuple[Any, Any, Any]:
        listed = await session.list_resources()
        templates = await session.list_resource_templates()
        read = await session.read_resource(f"catalog://pi/1.0.0/{first.stem}")
        return listed, templates, read

    listed, templates, read = with_session(work)
    uris = [str(resource.uri) for resource in listed.resources]
    assert "catalog://coding-agent/1.2.0/main-system-prompt" in uris
    assert not [uri for uri in uris if uri.startswith("catalog://pi/1.0.0/")]  # newest only
    assert templates.resource_templates[0].uri_template == "catalog://{name}/{version}/{part}"
    assert read.contents[0].text == first.read_text(encoding="utf-8")


def test_a_release_label_stands_for_the_version_it_points_at(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "catalogs"
    write_catalog(root, "demo", "1.0.0", [{"id": "intro", "body": "Version one."}])
    write_catalog(root, "demo", "1.1.0", [{"id": "intro", "body": "Version two."}])
    store = f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    code, _, err = run_cli(
        capsys, "release", "set", "production", "demo@1.0.0", "--store", store, "--path", str(root)
    )
    assert code == 0, err

    async def work(session: ClientSession) -> tuple[Any, Any, MCPError]:
        released = await session.get_prompt("demo", {"version-spec": "production"})
        newest = await session.get_prompt("demo")
        with pytest.raises(MCPError) as caught:
            await session.get_prompt("demo", {"version-spec": "staging"})
        return released, newest, caught.value

    released, newest, unknown = with_session(work, "--path", str(root), "--store", store)
    assert released.messages[0].content.text == "Version one."
    assert released.meta["version"] == "1.0.0"
    assert released.meta["release"] == "production"
    assert newest.messages[0].content.text == "Version two."
    assert "release" not in newest.meta
    assert "there is no release staging" in unknown.error.message


def test_each_request_is_a_span_carrying_the_prompt_it_answered(tmp_path: Path, spans: Any) -> None:
    from mcp import Client

    from catalog.mcp.library import PromptLibrary
    from catalog.mcp.server import build_server

    root = tmp_path / "catalogs"
    write_catalog(root, "demo", "1.0.0", [{"id": "intro", "body": "Hello world!"}])
    library = PromptLibrary([root])

    async def main() -> Any:
        with anyio.fail_after(SECONDS):
            async with Client(build_server(library)) as client:
                return await client.get_prompt("demo")

    result = anyio.run(main)
    [span] = [s for s in spans.get_finished_spans() if s.name == "prompts/get demo"]
    assert span.kind.name == "SERVER"
    assert span.attributes["mcp.method.name"] == "prompts/get"
    assert span.attributes["gen_ai.prompt.name"] == "demo"
    assert span.attributes["catalog.prompt.catalog"] == "demo"
    assert span.attributes["catalog.prompt.version"] == "1.0.0"
    assert span.attributes["catalog.prompt.agent"] == "main"
    assert (
        span.attributes["catalog.prompt.fingerprint"] == hashlib.sha256(b"Hello world!").hexdigest()
    )
    assert span.attributes["catalog.prompt.tokens"] == result.meta["tokens"]


_SERVING = re.compile(r"serving MCP on (http://\S+/mcp)")


def test_over_http_every_request_needs_the_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess
    import time

    import httpx
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    command = Path(sys.executable).with_name(configured()["command"])
    log = tmp_path / "log"
    token = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    (tmp_path / "token").write_text(token + "\n", encoding="ascii")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(command), "mcp", "--http", "--port", "0", "--token-file", str(tmp_path / "token")],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + SECONDS
        while not (found := _SERVING.search(log.read_text(errors="replace"))):
            assert process.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.1)
        url = found.group(1)
        refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
        assert refused.status_code == 401
        assert "Authorization: Bearer" in refused.json()["error"]

        async def main() -> Any:
            headers = {"Authorization": f"Bearer {token}"}
            with anyio.fail_after(SECONDS):
                async with (
                    httpx2.AsyncClient(headers=headers, timeout=30) as http,
                    streamable_http_client(url, http_client=http) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    listing = await session.list_prompts()
                    return [p.name for p in listing.prompts], await session.get_prompt("pi")

        names, prompt = anyio.run(main)
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert "coding-agent.explore" in names
    assert prompt.messages[0].content.text == cli_text(capsys, "pi")
    assert token not in log.read_text(errors="replace")  # never written to the log
