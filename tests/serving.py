"""Running `catalog serve` as a real process for the tests (and the benchmark's checks)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import httpx

from catalog.server.state import ServerSettings
from tests.conftest import write_catalog

__all__ = [
    "free_port",
    "html_page",
    "running_process",
    "running_server",
    "serving_in_thread",
    "write_demo_catalogs",
]

_BINDINGS = [
    {"name": "p:cwd", "value": "env.cwd", "description": "the working directory"},
    {"name": "file:", "source": "file", "description": "a file's text"},
]
_BASH = {"id": "bash", "kind": "tool", "name": "Bash", "when": '"Bash" in tools', "order": 50,
         "body": "Run shell commands."}  # fmt: skip
_BASH_TIPS = {"id": "bash-tips", "when": '"Bash" in tools', "order": 45,
              "body": "Prefer Bash for builds."}  # fmt: skip


def write_demo_catalogs(root: Path) -> Path:
    """Under ``root``: two versions of ``demo`` that differ in every way a review tells
    apart (new, removed, renamed, rewritten, whitespace only), and ``tpl``, a catalog
    taking a user template, whose prompt names the conversation."""
    write_catalog(root, "demo", "1.0.0", parts=[
        {"id": "intro", "body": "You are a demo agent.", "order": 10},
        {"id": "old-rules", "body": "Old rules that go away.", "order": 20},
        {"id": "moved-text", "body": "A paragraph that keeps its words.", "order": 30},
        {"id": "style", "body": "Write   short answers.", "order": 40},
        _BASH_TIPS,
        _BASH,
    ])  # fmt: skip
    write_catalog(root, "demo", "2.0.0", parts=[
        {"id": "intro", "body": "You are a much better demo agent.", "order": 10},
        {"id": "brand-new", "body": "Something new.", "order": 15},
        {"id": "kept-text", "body": "A paragraph that keeps its words.", "order": 30},
        {"id": "style", "body": "Write short answers.", "order": 40},
        {**_BASH_TIPS, "order": 44},
        _BASH,
    ])  # fmt: skip
    write_catalog(
        root,
        "tpl",
        parts=[{"id": "prompt", "body": "{{ brackets(template, bindings) }}"}],
        variables=[{"name": "template", "type": "str", "default": "Default in [p:cwd]."}],
        agents=[{"name": "helper"}],
        extra={"binding": _BINDINGS},
    )
    return root


def html_page(client: httpx.Client, path: str, status: int = 200) -> str:
    """The HTML page ``client`` gets for ``path``, checked to answer ``status``."""
    response = client.get(path)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    return response.text


def free_port() -> int:
    """A TCP port on loopback that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def running_server(args: Sequence[str], log: Path, *, timeout: float = 60) -> Iterator[str]:
    """Start ``catalog serve ARGS`` on a free loopback port; yield its base URL; stop it."""
    with running_process(args, log, timeout=timeout) as (url, _):
        yield url


@contextlib.contextmanager
def running_process(
    args: Sequence[str], log: Path, *, timeout: float = 60, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start ``catalog serve ARGS`` on a free loopback port (``env`` added to this
    process's environment); yield its base URL and its process once it answers; stop it."""
    port = free_port()
    command = [sys.executable, "-m", "catalog", "serve", "--port", str(port), *args]
    src = str(Path(__file__).resolve().parents[1] / "src")
    path = os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, **(env or {})}
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"catalog serve exited: {log.read_text(errors='replace')}")
            try:
                if httpx.get(f"{url}/api/catalogs", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"catalog serve did not start: {log.read_text(errors='replace')}"
                )
            time.sleep(0.1)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def serving_in_thread(settings: ServerSettings) -> Iterator[str]:
    """Serve ``create_app(settings)`` with uvicorn on a free loopback port, in a thread of
    this process (so a test can read the server's state); yield its base URL; stop it."""
    import uvicorn

    from catalog.server.app import create_app

    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=free_port(), log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
