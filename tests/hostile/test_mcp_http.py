"""``catalog mcp --http`` attacked over HTTP on 127.0.0.1: a web page of another site
reaching it by DNS rebinding (``Host``/``Origin``, compared whole), requests without
the token on every route and method, oversized, malformed and mistyped bodies, too
many sessions. Every answer is a 4xx or a JSON-RPC error, never a 500 or a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
httpx = pytest.importorskip("httpx")

from catalog.mcp.http import MAX_SESSIONS  # noqa: E402
from tests._support.mcp_messages import INIT  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "3f9c1a7be2d84605a1c9e7b3d5f20864"
ACCEPT = "application/json, text/event-stream"
_SERVING = re.compile(r"serving MCP on (http://[^\s\"]+)/mcp")

pytestmark = pytest.mark.slow


@contextlib.contextmanager
def mcp_http(tmp_path: Path, token: str | None = None) -> Iterator[tuple[str, Path]]:
    """Start ``catalog mcp --http --port 0`` on 127.0.0.1; yield its base URL and its
    log once it answers; stop it."""
    log = tmp_path / "mcp.log"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CATALOG_PATH", "CATALOG_SERVE_TOKEN")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    if token is not None:
        env["CATALOG_SERVE_TOKEN"] = token
    command = [sys.executable, "-m", "catalog", "mcp", "--http", "--port", "0"]
    command += ["--store", f"sqlite:///{tmp_path / 'prompts.sqlite'}", "--format", "json"]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        while not (found := _SERVING.search(log.read_text(encoding="utf-8", errors="replace"))):
            assert process.poll() is None, log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, log.read_text(encoding="utf-8")
            time.sleep(0.1)
        yield found.group(1), log
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def post(client: Any, url: str, body: Any, **headers: str) -> Any:
    """POST ``body`` (JSON unless bytes) to ``url``/mcp with the MCP headers."""
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"content-type": "application/json", "accept": ACCEPT, **headers}
    return client.post(f"{url}/mcp", content=content, headers=sent)


def jsonrpc(response: Any) -> dict[str, Any]:
    """The JSON-RPC message of a JSON or event-stream answer."""
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    message: dict[str, Any] = json.loads(text)
    return message


def test_a_page_of_another_site_is_refused_whatever_its_host_or_origin(tmp_path: Path) -> None:
    with mcp_http(tmp_path) as (url, log), httpx.Client(timeout=30) as client:
        port = url.rsplit(":", 1)[1]
        hosts = [
            "evil.example",
            f"evil.example:{port}",
            f"127.0.0.1:{port}.evil.example",
            f"127.0.0.1:{port}@evil.example",
            f"localhost:{port}.evil.example",
            f"127.0.0.1:{int(port) + 1}",  # another server's port
            "127.0.0.1",
        ]
        for host in hosts:
            response = post(client, url, INIT, host=host)
            assert response.status_code == 421, host
        origins = [
            "http://evil.example",
            f"http://127.0.0.1:{port}.evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1@evil.example",
            "null",
            "http://[::1]x",
            "file://",
        ]
        for origin in origins:
            response = post(client, url, INIT, origin=origin)
            assert response.status_code == 403, origin
            assert "Traceback" not in response.text
        allowed: list[dict[str, str]] = [
            {"origin": f"http://127.0.0.1:{port}"},
            {"origin": "http://localhost:5173"},
            {},  # not a browser: no Origin
        ]
        for extra in allowed:
            response = post(client, url, INIT, **extra)
            assert response.status_code == 200, (extra, response.text)
            assert jsonrpc(response)["result"]["serverInfo"]["name"] == "catalog"
        # Same for a GET and a DELETE, and the answer never reaches the SDK.
        for method in ("GET", "DELETE"):
            response = client.request(method, f"{url}/mcp", headers={"host": "evil.example"})
            assert response.status_code == 421
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_the_token_is_needed_on_every_route_and_method(tmp_path: Path) -> None:
    with mcp_http(tmp_path, TOKEN) as (url, log), httpx.Client(timeout=30) as client:
        good = {"authorization": f"Bearer {TOKEN}"}
        wrong = [
            {},
            {"authorization": TOKEN},
            {"authorization": f"bearer {TOKEN}"},
            {"authorization": f"Bearer {TOKEN[:-1]}"},
            {"authorization": f"Bearer {TOKEN}x"},
            {"authorization": f"Basic {TOKEN}"},
        ]
        for headers in wrong:
            for method, path in (("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp")):
                response = client.request(method, f"{url}{path}", headers=headers)
                assert response.status_code == 401, (method, headers)
            for path in ("/", "/mcp/", "/docs", "/../mcp", "/%2e%2e/mcp"):
                assert client.get(f"{url}{path}", headers=headers).status_code == 401, path
        # The right token with a wrong one besides is refused.
        doubled = httpx.Headers([("authorization", f"Bearer {TOKEN}"), ("authorization", "x")])
        response = client.post(f"{url}/mcp", content=json.dumps(INIT), headers=doubled)
        assert response.status_code == 401
        response = post(client, url, INIT, **good)
        assert response.status_code == 200
        assert jsonrpc(response)["result"]["serverInfo"]["name"] == "catalog"
    assert TOKEN not in log.read_text(encoding="utf-8")


def test_malformed_requests_are_4xx_or_json_rpc_errors(tmp_path: Path) -> None:
    with mcp_http(tmp_path) as (url, log), httpx.Client(timeout=60) as client:
        opened = post(client, url, INIT)
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        for body in (b"{{{", b"", b"[1,2]", b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000):
            response = post(client, url, body, **session)
            assert 400 <= response.status_code < 500, body[:20]
            assert "Traceback" not in response.text
        response = post(client, url, b"a" * (5 * 1024 * 1024))
        assert response.status_code == 413
        mistyped = [
            {"name": "coding-agent", "arguments": {"plan_mode": 5}},
            {"name": "coding-agent", "arguments": {"enabled-tools": ["Bash"]}},
            {"name": "coding-agent", "arguments": "x"},
            {"name": ["coding-agent"]},
            {},
        ]
        for index, params in enumerate(mistyped, start=2):
            call = {"jsonrpc": "2.0", "id": index, "method": "prompts/get", "params": params}
            response = post(client, url, call, **session)
            assert response.status_code < 500, params
            error = jsonrpc(response)["error"]
            assert error["code"] == -32602, (params, error)
            assert "Traceback" not in error["message"]
        unknown = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "x"}}
        assert "error" in jsonrpc(post(client, url, unknown, **session))
        for method in ("PUT", "PATCH"):
            assert 400 <= client.request(method, f"{url}/mcp").status_code < 500
        response = post(client, url, INIT, **{"mcp-session-id": "not-a-session"})
        assert 400 <= response.status_code < 500
        response = post(client, url, INIT, **{"content-type": "text/plain"})
        assert 400 <= response.status_code < 500
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_open_sessions_are_bounded(tmp_path: Path) -> None:
    with mcp_http(tmp_path) as (url, _), httpx.Client(timeout=60) as client:
        sessions = []
        for _ in range(MAX_SESSIONS):
            opened = post(client, url, INIT)
            assert opened.status_code == 200
            sessions.append(opened.headers["mcp-session-id"])
        refused = post(client, url, INIT)
        assert refused.status_code == 503
        assert "Too many open sessions" in jsonrpc(refused)["error"]["message"]
        # Ending one makes room for another.
        ended = client.delete(f"{url}/mcp", headers={"mcp-session-id": sessions[0]})
        assert ended.status_code == 200
        assert post(client, url, INIT).status_code == 200
