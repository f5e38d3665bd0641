"""Running `catalog serve` as a real process for the tests (and the benchmark's checks)."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from catalog.server.state import ServerSettings
from tests.conftest import write_catalog

if TYPE_CHECKING:  # html_page's client, named only in its annotation
    from starlette.testclient import TestClient

__all__ = [
    "html_page",
    "running_process",
    "running_server",
    "serving_in_thread",
    "serving_releases",
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


def html_page(client: TestClient, path: str, status: int = 200) -> str:
    """The HTML page ``client`` gets for ``path``, checked to answer ``status``."""
    response = client.get(path)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    return response.text


_SERVING = re.compile(r"serving on (http://[^\s\"]+) with")


def _answering(process: subprocess.Popen[bytes], log: Path, timeout: float) -> str:
    """The base URL ``catalog serve --port 0`` names in its log, once it answers there."""
    deadline = time.monotonic() + timeout
    while True:
        text = log.read_text(encoding="utf-8", errors="replace")
        if process.poll() is not None:
            raise RuntimeError(f"catalog serve exited: {text}")
        if found := _SERVING.search(text):
            try:
                if httpx.get(f"{found.group(1)}/api/catalogs", timeout=2).status_code == 200:
                    return found.group(1)
            except httpx.TransportError:
                pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"catalog serve did not start: {text}")
        time.sleep(0.1)


@contextlib.contextmanager
def running_server(args: Sequence[str], log: Path, *, timeout: float = 60) -> Iterator[str]:
    """Start ``catalog serve ARGS`` on a port the system chooses; yield its base URL; stop it."""
    with running_process(args, log, timeout=timeout) as (url, _):
        yield url


@contextlib.contextmanager
def running_process(
    args: Sequence[str], log: Path, *, timeout: float = 60, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start ``catalog serve ARGS`` with ``--port 0`` (the system chooses a free port, so
    parallel tests never race for one; the log names it), ``env`` added to this process's
    environment; yield its base URL and its process once it answers; stop it."""
    command = [sys.executable, "-m", "catalog", "serve", "--port", "0", *args]
    src = str(Path(__file__).resolve().parents[1] / "src")
    path = os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, **(env or {})}
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        yield _answering(process, log, timeout), process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def serving_in_thread(settings: ServerSettings) -> Iterator[str]:
    """Serve ``create_app(settings)`` with uvicorn in a thread of this process (so a test
    can read the server's state), on a socket bound here to a port the system chooses
    (held from the start, so parallel tests never race for one); yield its base URL; stop
    it."""
    import uvicorn

    from catalog.server.app import create_app

    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listening.close()


@contextlib.contextmanager
def serving_releases(
    root: Path, name: str, releases: Mapping[str, Sequence[Mapping[str, Any]]]
) -> Iterator[Any]:
    """Write ``releases`` (version -> parts) as catalog ``name`` under ``root`` and serve
    them in process: yield a FastAPI test client."""
    from fastapi.testclient import TestClient

    from catalog.server.app import create_app

    for version, parts in releases.items():
        write_catalog(root / "catalogs", name, version, parts)
    settings = ServerSettings(
        paths=(str(root / "catalogs"),), store_url=f"sqlite:///{root / 'prompts.sqlite'}"
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as served:
        yield served
