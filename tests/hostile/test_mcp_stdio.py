"""``catalog mcp`` over standard input and output fed by a hostile or careless
client: garbage, invalid UTF-8, huge and deeply nested lines, mistyped requests,
standard input closed mid-request, standard output closed. The server answers what
it can and exits with status 0, writing no traceback and no error to standard error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests._support.mcp_messages import INIT, INITIALIZED

pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 120  # a bound for one whole exchange, however slow the machine

pytestmark = pytest.mark.slow


def line(message: Any) -> bytes:
    """``message`` as one line of JSON."""
    return json.dumps(message).encode() + b"\n"


def start(tmp_path: Path, *, stdout: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """``catalog mcp`` on pipes, with only the bundled catalogs."""
    env = {key: value for key, value in os.environ.items() if key != "CATALOG_PATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "catalog", "mcp"]
    command += ["--store", f"sqlite:///{tmp_path / 'prompts.sqlite'}"]
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE, env=env
    )


def answers(out: bytes) -> dict[Any, dict[str, Any]]:
    """The answers written, by request id."""
    found = {}
    for text in out.splitlines():
        message = json.loads(text)
        found[message.get("id")] = message
    return found


def test_garbage_and_huge_lines_are_skipped_and_the_rest_answered(tmp_path: Path) -> None:
    process = start(tmp_path)
    sent = b"".join(
        [
            line(INIT),
            line(INITIALIZED),
            b"garbage\n",
            b"\xff\xfe\x00\n",
            b"\n",
            b"[" * 200_000 + b"]" * 200_000 + b"\n",
            b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": ' + b"x" * 5_000_000 + b"\n",
            line({"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": 5}}),
            line(
                {
                    "jsonrpc": "2.0",
                    "id": 4,
                    "method": "prompts/get",
                    "params": {"name": "pi", "arguments": {"model-name": ["x"]}},
                }
            ),
            line({"jsonrpc": "2.0", "id": 5, "method": "no/such/method"}),
            line({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "x"}}),
            line({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
        ]
    )
    assert process.stdin is not None and process.stdout is not None
    watchdog = threading.Timer(SECONDS, process.kill)  # a hung server fails, never hangs
    watchdog.start()
    try:
        process.stdin.write(sent)
        process.stdin.flush()
        written: list[bytes] = []
        while not written or json.loads(written[-1]).get("id") != 7:
            written.append(process.stdout.readline())
            assert written[-1], "the server stopped before answering the last ping"
        out, err = process.communicate(timeout=SECONDS)
    finally:
        watchdog.cancel()
    assert process.returncode == 0, err
    assert err == b""
    got = answers(b"".join(written) + out)
    assert got[1]["result"]["serverInfo"]["name"] == "catalog"
    assert got[3]["error"]["code"] == -32602
    assert got[4]["error"]["code"] == -32602
    assert got[5]["error"]["code"] == -32601
    assert got[7]["result"] == {}
    assert b"Traceback" not in out


def test_standard_input_closed_mid_request_ends_quietly(tmp_path: Path) -> None:
    process = start(tmp_path)
    request = {"jsonrpc": "2.0", "id": 2, "method": "prompts/get"}
    request["params"] = {"name": "coding-agent"}
    sent = line(INIT) + line(INITIALIZED) + line(request)[:-20]  # cut mid-line
    out, err = process.communicate(sent, timeout=SECONDS)
    assert process.returncode == 0, err
    assert err == b""
    assert answers(out)[1]["result"]["serverInfo"]["name"] == "catalog"


def test_standard_output_closed_by_the_client_ends_quietly(tmp_path: Path) -> None:
    process = start(tmp_path)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(line(INIT))
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["id"] == 1
    process.stdout.close()  # the client stops reading
    more = line(INITIALIZED) + b"".join(
        line({"jsonrpc": "2.0", "id": index, "method": "prompts/list"}) for index in range(2, 6)
    )
    _, err = process.communicate(more, timeout=SECONDS)
    assert process.returncode == 0, err
    assert b"Traceback" not in err
    assert b"error" not in err
