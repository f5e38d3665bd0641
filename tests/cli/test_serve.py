"""`catalog serve --workers N`: several processes accepting on one port, every accepted
connection sending small answers at once (TCP_NODELAY), and /metrics adding up every
process's figures."""

from __future__ import annotations

import http.client
import os
import socket
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx")

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from catalog.io.listening import listen  # noqa: E402
from tests._support.serving import running_process, write_demo_catalogs  # noqa: E402
from tests.conftest import run_cli  # noqa: E402


def _nodelay(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_the_listening_socket_gives_accepted_connections_tcp_nodelay() -> None:
    listening = listen("127.0.0.1", 0)
    with listening:
        assert listening.proto == socket.IPPROTO_TCP  # what asyncio checks before it sets it
        # A worker gets the socket by its descriptor, as uvicorn passes it: the Python
        # object then says nothing of TCP, and the operating system's option must hold.
        as_worker = socket.fromfd(listening.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)
        with as_worker, socket.create_connection(listening.getsockname()) as client:
            accepted, _ = as_worker.accept()
            with accepted:
                assert _nodelay(accepted) != 0
                del client


def _worker_of(server_port: int, client_port: int, workers: list[int]) -> int | None:
    """The worker process holding the server's side of the connection from
    ``client_port`` (Linux: the socket's inode in /proc/net/tcp, then in each worker's
    descriptors)."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if int(local.split(":")[1], 16) == server_port and int(remote.split(":")[1], 16) == (
            client_port
        ):
            inode = fields[9]
    if inode is None:
        return None
    for pid in workers:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if os.readlink(fd) == f"socket:[{inode}]":
                    return pid
            except OSError:  # closed meanwhile
                continue
    return None


def _children(parent: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            found.append(int(stat.parent.name))
    return found


def _keep_alive(connection: http.client.HTTPConnection, count: int) -> None:
    """Send ``count`` requests on one kept-alive connection, each answered."""
    for _ in range(count):
        connection.request("GET", "/system-prompt/variables")
        response = connection.getresponse()
        response.read()
        assert response.status == 200


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads the connections in /proc")
def test_two_workers_share_the_port_and_one_metrics(tmp_path: Path) -> None:
    """Both processes accept connections on the one port (each kept-alive connection
    is served by one of them) and /metrics adds up their figures. That each accepted
    connection has TCP_NODELAY is the operating system's doing, checked above on the
    socket as a worker gets it; what it saves (a delayed acknowledgement, 40 ms on
    Linux, per kept-alive request) shows in the latencies of scripts/bench_serve.py."""
    catalogs = write_demo_catalogs(tmp_path / "catalogs")
    store = f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    args = [
        "--workers",
        "2",
        "--store",
        store,
        "--path",
        str(catalogs),
        "--template-catalog",
        "tpl",
    ]
    with running_process(args, tmp_path / "serve.log") as (url, process):
        port = int(url.rsplit(":", 1)[1])
        served_by: dict[int, int] = {}
        connections: list[http.client.HTTPConnection] = []
        try:
            while len(served_by) < 2 and len(connections) < 64:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                connections.append(connection)
                _keep_alive(connection, 8)
                assert connection.sock is not None
                client_port = connection.sock.getsockname()[1]
                pid = _worker_of(port, client_port, _children(process.pid))
                assert pid is not None
                served_by[pid] = served_by.get(pid, 0) + 1
        finally:
            for connection in connections:
                connection.close()
        assert len(served_by) == 2, "one process accepted every connection"

        # Constructions answered by either process are added up by /metrics.
        for index in range(20):
            with httpx.Client(timeout=30) as fresh:  # a new connection each time
                made = fresh.put(f"{url}/conversations/c{index}", json={"catalog": "tpl"})
                assert made.status_code == 200, made.text
        text = httpx.get(f"{url}/metrics", timeout=30).text
        total = sum(
            sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name == "catalog_constructions_total"
        )
        assert total == 20
    log = (tmp_path / "serve.log").read_text()
    assert "with 2 processes" in log


def test_workers_must_be_at_least_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "serve", "--workers", "0")
    assert code == 2
    assert "--workers 0: at least one process must serve" in err


def test_a_metrics_folder_that_is_none_stops_the_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "missing"))
    code, _, err = run_cli(capsys, "serve", "--workers", "2", "--store", "sqlite://")
    assert code == 2
    assert "$PROMETHEUS_MULTIPROC_DIR names" in err and "which is not a folder" in err
