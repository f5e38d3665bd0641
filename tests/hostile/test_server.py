"""`catalog serve` against hostile clients, on real servers on loopback: every text of a
request checked in one place (NUL and lone surrogates, alike on SQLite and PostgreSQL),
one error shape that shows no server folder nor Python class, stalled bodies timed
out, the token-count memo bounded by bytes, prompts bounded, pages that may not be
framed and satisfy their content security policy."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
pytest.importorskip("httpx")

import httpx
from fastapi.testclient import TestClient

from catalog.conversations.base import MAX_PROMPT_CHARS
from catalog.engine import assemble
from catalog.errors import UsageError
from catalog.server.app import create_app
from catalog.server.headers import PAGE_POLICY
from catalog.server.state import ServerSettings
from catalog.text.suggest import guess
from catalog.tokens import MEMO_BYTES, memo_bytes
from tests._support.postgres_server import fresh_database, postgres_server
from tests._support.serving import (
    running_process,
    running_server,
    serving_in_thread,
    write_demo_catalogs,
)
from tests.conftest import run_cli

__all__ = ["fresh_database", "postgres_server"]  # fixtures used below

# A Python class name in an answer: ValueError, UnicodeEncodeError, sqlite3.DataError...
_CLASS_NAME = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]*)*(?:Error|Exception)\b|Traceback")


@pytest.fixture
def catalogs(tmp_path: Path) -> Path:
    return write_demo_catalogs(tmp_path / "catalogs")


class _Answer(Protocol):
    """An HTTP answer as both clients give it: httpx's from a served process, and
    httpx2's from Starlette's TestClient."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def text(self) -> str: ...
    def json(self) -> Any: ...


def _error(response: _Answer, status: int) -> dict[str, Any]:
    """The error object of an answer, checked for the one shape and for leaks."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error: dict[str, Any] = response.json()["error"]
    assert set(error) == {"status", "message", "field", "hint"}
    assert error["status"] == status and error["message"]
    assert not _CLASS_NAME.search(response.text), response.text
    return error


# -- one check of every text: NUL and lone surrogates, one answer for both stores

_BAD_TEXTS = [
    ("PUT", "/conversations/a%00b", {"catalog": "tpl"}, "path.conversation_id"),
    ("GET", "/conversations/a%00b", None, "path.conversation_id"),
    ("PUT", "/conversations/c", {"catalog": "tpl", "context": {"env": {"cwd": "a\0b"}}},
     "body.context.env.cwd"),
    ("PUT", "/conversations/c", {"catalog": "tpl", "context": {"env": {"cwd": "\ud800"}}},
     "body.context.env.cwd"),
    ("PUT", "/conversations/c", {"catalog": "tpl", "context": {"files": {"a\0": "x"}}},
     "body.context.files"),
    ("PUT", "/system-prompt", {"template": "Hello\0[p:cwd]"}, "body.template"),
    ("PUT", "/system-prompt", {"template": "Hello \udfff"}, "body.template"),
    ("POST", "/conversations/c/rebuild", {"catalog": "tpl", "append": "x\ud83d"}, "body.append"),
    ("POST", "/api/assemble", {"catalog": "tpl", "context": {"variables": {"\ud800": 1}}},
     "body.context.variables"),
    ("POST", "/api/tokens", {"catalog": "tpl", "context": {"tools": ["Bash", "\udc80"]}},
     "body.context.tools[1]"),
    ("POST", "/api/verify", {"lock": "\ud800"}, "body.lock"),
    ("GET", "/api/diff?old=demo%00&new=demo", None, "query.old"),
]  # fmt: skip


def _answers(url: str) -> list[tuple[int, Any]]:
    answers = []
    with httpx.Client(base_url=url, timeout=30) as http:
        for method, path, body, _ in _BAD_TEXTS:
            # json.dumps writes the NUL and the surrogates as \u escapes: valid JSON.
            content = None if body is None else json.dumps(body).encode()
            headers = {"content-type": "application/json"}
            response = http.request(method, path, content=content, headers=headers)
            answers.append((response.status_code, response.json()))
        # Nothing was stored: the refused conversation has no prompt.
        assert http.get("/conversations/c").status_code == 404
        assert http.get("/system-prompt").json() == {"template": "Default in [p:cwd]."}
    return answers


@pytest.mark.slow
def test_bad_texts_get_one_answer_naming_the_field_on_both_stores(
    catalogs: Path, tmp_path: Path, fresh_database: str
) -> None:
    answers = {}
    for name, store in (("sqlite", f"sqlite:///{tmp_path / 'p.sqlite'}"), ("pg", fresh_database)):
        args = ["--store", store, "--path", str(catalogs), "--template-catalog", "tpl"]
        with running_server(args, tmp_path / f"{name}.log") as url:
            answers[name] = _answers(url)
    assert answers["sqlite"] == answers["pg"]
    for (status, body), (_, path, _, field) in zip(answers["sqlite"], _BAD_TEXTS, strict=True):
        assert status == 422, (path, body)
        error = body["error"]
        assert error["field"] == field, (path, error)
        assert error["message"].startswith(f"{field}: the ")
        assert ("NUL" in error["message"]) != ("surrogate" in error["message"])
        assert error["hint"]


# -- one error shape, no server folder, no class name


def _app(catalogs: Path, tmp_path: Path, **settings: Any) -> TestClient:
    options = {
        "paths": (str(catalogs),),
        "store_url": f"sqlite:///{tmp_path / 'p.sqlite'}",
        "template_catalog": "tpl",
        **settings,
    }
    app = create_app(ServerSettings(**options))
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def test_every_error_has_one_shape(catalogs: Path, tmp_path: Path) -> None:
    with _app(catalogs, tmp_path) as client:
        json_type = {"content-type": "application/json"}
        cases = [
            (client.get("/nowhere"), 404, None),
            (client.delete("/system-prompt"), 405, None),
            (client.get("/", headers={"host": "attacker.example"}), 400, "header.host"),
            (client.post("/api/assemble", content=b'{"catalog": "demo"}'), 415,
             "header.content-type"),
            (client.post("/api/assemble", content=b"{}", headers={"content-type": "text/plain"}),
             415, "header.content-type"),
            (client.post("/api/assemble", content=b"{", headers=json_type), 422, "body"),
            (client.post("/api/assemble", json={"catalog": 5}), 422, "body.catalog"),
            (client.post("/api/assemble", json={"catalog": "demo", "context": {"tools": 3}}),
             422, "body.context.tools"),
            (client.post("/api/assemble", json={"catalog": "nope"}), 404, None),
            (client.post("/api/assemble", content=b"[" * 200_000, headers=json_type), 422, "body"),
            (client.post("/api/assemble", content=b"x" * 1_100_000, headers=json_type), 413,
             "body"),
        ]  # fmt: skip
        for response, status, field in cases:
            assert _error(response, status)["field"] == field, response.text
        missing = _error(client.post("/api/assemble", content=b'{"catalog": "demo"}'), 415)
        assert "Content-Type header is missing" in missing["message"]
        assert missing["hint"] == "send Content-Type: application/json"
        too_large = client.post("/api/assemble", content=b"x" * 1_100_000, headers=json_type)
        assert too_large.headers["connection"] == "close"
        for unknown in (client.get("/nowhere"), client.delete("/system-prompt")):
            assert "/openapi.json lists the routes" in unknown.json()["error"]["hint"]


def test_a_body_that_is_not_utf_8_is_told_so_with_what_to_send(
    catalogs: Path, tmp_path: Path
) -> None:
    with _app(catalogs, tmp_path) as client:
        response = client.post(
            "/api/assemble",
            content=b'{"catalog": "\xff\xfe"}',
            headers={"content-type": "application/json"},
        )
        error = _error(response, 400)
        assert error["field"] == "body"
        assert error["message"] == "the request body cannot be read as JSON"
        assert "UTF-8" in error["hint"]


def test_unexpected_failures_are_a_500_that_tells_nothing(
    catalogs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError(f"secret detail in {tmp_path}")

    monkeypatch.setattr("catalog.server.api.describe", broken)
    with _app(catalogs, tmp_path) as client:
        response = client.get("/api/catalogs/demo/1.0.0")
        error = _error(response, 500)
        assert "secret" not in response.text and str(tmp_path) not in response.text
        assert "log" in error["hint"]
        # Sent outside every middleware, the 500 carries the security headers all the same.
        assert response.headers["content-security-policy"] == PAGE_POLICY
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"


def test_errors_show_no_server_folder(catalogs: Path, tmp_path: Path) -> None:
    """A broken installed catalog, a missing file, an unreachable database: the answers
    say what is wrong without the folders the server keeps them in."""
    version = catalogs / "demo" / "1.0.0"
    (version / "intro.md").write_text("Tampered.", encoding="utf-8")
    (catalogs / "demo" / "3.0.0").mkdir()
    (catalogs / "demo" / "3.0.0" / "catalog.toml").write_text("[catalog\n", encoding="utf-8")
    with _app(catalogs, tmp_path) as client:
        for response in (
            client.post("/api/assemble", json={"catalog": "demo@1.0.0"}),
            client.post("/api/assemble", json={"catalog": "demo@3.0.0"}),
            client.get("/api/catalogs/demo"),
        ):
            _error(response, response.status_code)
            assert 400 <= response.status_code < 500
            assert str(catalogs) not in response.text
            assert str(tmp_path) not in response.text
    socket_folder = tmp_path / "no-database-here"
    store = f"postgresql://nobody@/db?host={socket_folder}"
    with _app(catalogs, tmp_path, store_url=store, store_timeout=0.2) as client:
        response = client.put("/system-prompt", json={"template": "T"})
        error = _error(response, 503)
        assert "busy or unreachable" in error["message"]
        assert str(socket_folder) not in response.text and "PGSQL" not in response.text


# -- the token: refused at start unless plain ASCII; conversations are read with it


@pytest.mark.parametrize("token", ["café", "two words", "tab\there"])
def test_a_token_that_clients_cannot_send_as_it_is_is_refused(
    token: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    token = token + "-0f9e8d7c6b5a49382716-long-enough"
    with pytest.raises(UsageError, match="printable ASCII"):
        ServerSettings(token=token)
    monkeypatch.setenv("CATALOG_SERVE_TOKEN", token)
    code, _, err = run_cli(capsys, "serve")
    assert code == 2
    expected = "catalog: error: $CATALOG_SERVE_TOKEN: the token must be printable ASCII"
    assert expected in err


def test_with_a_token_a_conversations_prompt_is_read_with_it(
    catalogs: Path, tmp_path: Path
) -> None:
    with _app(catalogs, tmp_path, token="s3cret-Token_1-0f9e8d7c6b5a49382716") as client:
        right = {"Authorization": "Bearer s3cret-Token_1-0f9e8d7c6b5a49382716"}
        made = client.put("/conversations/c", json={"catalog": "tpl"}, headers=right)
        assert made.status_code == 200
        _error(client.get("/conversations/c"), 401)
        utf8 = {"Authorization": "Bearer s3cret-Token_1-0f9e8d7c6b5a49382716é".encode()}
        _error(client.get("/conversations/c", headers=utf8), 401)  # type: ignore[arg-type]
        assert client.get("/conversations/c", headers=right).json() == made.json()
        assert client.get("/system-prompt").status_code == 200  # the template stays open
        assert client.post("/api/assemble", json={"catalog": "demo"}).status_code == 200


# -- bodies: bounded in time (slowloris) and size; prompts bounded


def _read_answer(sock: socket.socket, deadline: float) -> bytes:
    """Everything the server sends until it closes the connection (or ``deadline``)."""
    answer = b""
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            return answer
        answer += chunk
    raise AssertionError(f"the connection stayed open: {answer!r}")


def test_a_body_sent_a_byte_at_a_time_is_cut_off(catalogs: Path, tmp_path: Path) -> None:
    settings = ServerSettings(
        paths=(str(catalogs),),
        store_url=f"sqlite:///{tmp_path / 'p.sqlite'}",
        body_timeout=1.0,
    )
    with serving_in_thread(settings) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.settimeout(0.2)
            sock.sendall(
                b"POST /api/assemble HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
            )
            answer = b""
            sent = 1
            # A byte every 0.2 s, for up to 40 s (a whole body would take over 3 minutes):
            # each arrives well within any per-read timeout.
            for byte in b" " * 200:
                try:
                    sock.sendall(bytes([byte]))
                except OSError:  # the server closed the connection
                    break
                sent += 1
                try:
                    answer += sock.recv(65536)
                except TimeoutError:
                    continue
                if answer:
                    break
            answer += _read_answer(sock, time.monotonic() + 10)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 "), answer
        assert b"connection: close" in head.lower()
        error = json.loads(body)["error"]
        assert error["message"] == "the request body did not arrive within 1 seconds"
        assert sent < 200  # cut off long before the body could end (1,000 bytes announced)
        # The server still answers others.
        assert httpx.post(f"{url}/api/assemble", json={"catalog": "demo"}).status_code == 200


def test_prompts_are_bounded(catalogs: Path, tmp_path: Path) -> None:
    """A context of less than 1 MiB can make a prompt of millions of characters (a
    template naming one file many times): refused before it is counted or stored."""
    big = "x" * 700_000
    context = {"variables": {"template": "[file:a]" * 4}, "files": {"a": big}}
    with _app(catalogs, tmp_path) as client:
        for method, path in (
            ("POST", "/api/assemble"),
            ("POST", "/api/tokens"),
            ("PUT", "/conversations/big"),
        ):
            response = client.request(method, path, json={"catalog": "tpl", "context": context})
            error = _error(response, 400)
            assert error["field"] == "body.context"
            assert f"over the limit of {MAX_PROMPT_CHARS:,}" in error["message"]
        assert client.get("/conversations/big").status_code == 404
        fits = {"variables": {"template": "[file:a]" * 2}, "files": {"a": big}}
        answer = client.post("/api/tokens", json={"catalog": "tpl", "context": fits})
        assert answer.status_code == 200


def test_a_context_naming_many_unknown_tools_costs_no_more_than_its_size(
    catalogs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """80,000 distinct unknown tool names (a body under 1 MiB) were each given a spelling
    suggestion (seconds of CPU against a catalog of many tools) and answered 11 MB of
    notes: at most 10 are named, the rest counted, each name once."""
    unknown = [f"Bas{number}" for number in range(80_000)]
    guesses: list[str] = []

    def counted(name: str, *args: Any, **kwargs: Any) -> str:
        guesses.append(name)
        return guess(name, *args, **kwargs)

    monkeypatch.setattr(assemble, "guess", counted)
    with _app(catalogs, tmp_path) as client:
        response = client.post(
            "/api/assemble", json={"catalog": "demo", "context": {"tools": ["Bash", *unknown]}}
        )
        assert response.status_code == 200
        notes = response.json()["notes"]
        assert guesses == [f"Bas{number}" for number in range(10)]  # the work: ten guesses
        assert len(response.content) < 20_000
        assert notes[0] == (
            "tool 'Bas0' matches no part and no agent's tools of demo 2.0.0; did you mean 'Bash'?"
        )
        assert len(notes) == 11
        assert notes[-1] == "79990 more tools match no part and no agent's tools of demo 2.0.0"
        twice = client.post(
            "/api/assemble", json={"catalog": "demo", "context": {"tools": ["Zzz"] * 50_000}}
        )
        assert twice.json()["notes"] == [
            "tool 'Zzz' matches no part and no agent's tools of demo 2.0.0"
        ]


# -- memory: the token-count memo is bounded by bytes, whatever clients send


def _distinct_text(number: int, size: int) -> str:
    return f"{number} " + "a " * (size // 2)


@pytest.mark.slow
def test_distinct_large_requests_keep_the_count_memo_bounded(
    catalogs: Path, tmp_path: Path
) -> None:
    settings = ServerSettings(paths=(str(catalogs),), store_url="sqlite://")
    size = 200_000
    requests = MEMO_BYTES * 5 // 4 // size  # more distinct text than the memo holds
    with serving_in_thread(settings) as url, httpx.Client(base_url=url, timeout=60) as http:
        for number in range(requests):
            template = _distinct_text(number, size)
            counter = "claude" if number % 8 == 0 else "cl100k_base"
            body = {
                "catalog": "tpl",
                "counter": counter,
                "context": {"variables": {"template": template}},
            }
            response = http.post("/api/tokens", json=body)
            assert response.status_code == 200, response.text
            assert memo_bytes() <= MEMO_BYTES
    assert memo_bytes() > MEMO_BYTES // 2  # it remembers: the bound is what holds it back


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_a_servers_memory_stays_bounded_under_distinct_large_requests(
    catalogs: Path, tmp_path: Path
) -> None:
    """A sanity check on the process as a whole: once warm, 70 more requests assembling
    and counting distinct 900 KB prompts (63 MB in all, which the server used to keep)
    grow it by less than twice the memo's bound."""
    if not Path("/proc/self/status").exists():
        pytest.skip("reads the resident size from /proc")
    args = ["--store", "sqlite://", "--path", str(catalogs)]
    # glibc keeps freed large blocks for reuse once its threshold has adapted to them:
    # a fixed threshold returns them, so the resident size follows what is live.
    fixed = {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_ARENA_MAX": "2"}
    with (
        running_process(args, tmp_path / "server.log", env=fixed) as (url, process),
        httpx.Client(base_url=url, timeout=60) as http,
    ):

        def ask(number: int) -> None:
            context = {"variables": {"template": "[file:a]"}}
            context["files"] = {"a": _distinct_text(number, 900_000)}
            body = {"catalog": "tpl", "counter": "cl100k_base", "context": context}
            assert http.post("/api/tokens", json=body).status_code == 200

        for number in range(30):  # imports, the encoding, the memo filled, arenas grown
            ask(number)
        before = _rss_mib(process.pid)
        for number in range(30, 100):
            ask(number)
        grown = _rss_mib(process.pid) - before
    assert grown < 2 * MEMO_BYTES / 2**20, f"the server grew by {grown:.0f} MiB"


# -- framing and the content security policy


def _no_inline_code(page: str) -> None:
    """A page the policy allows as it is: no inline script, style or event handler."""
    assert "<style" not in page and " style=" not in page
    assert re.search(r"<script(?![^>]*\ssrc=)", page) is None
    assert re.search(r"\son[a-z]+=", page) is None


def test_pages_may_not_be_framed_and_satisfy_their_policy(catalogs: Path, tmp_path: Path) -> None:
    with _app(catalogs, tmp_path) as client:
        for path in (
            "/",
            "/catalogs/demo",
            "/catalogs/demo/2.0.0",
            "/playground?catalog=demo",
            "/editor",
            "/diff?old=demo@1.0.0&new=demo@2.0.0",
            "/api/catalogs",
        ):
            response = client.get(path)
            assert response.status_code == 200, path
            assert response.headers["x-frame-options"] == "DENY"
            policy = response.headers["content-security-policy"]
            assert policy == PAGE_POLICY and "frame-ancestors 'none'" in policy
            assert "unsafe" not in policy
            assert response.headers["x-content-type-options"] == "nosniff"
            if path != "/api/catalogs":
                _no_inline_code(response.text)
        # The side-by-side report is framed by the diff page, of this server alone; it
        # has no script and no inline style: its style sheet comes from the server.
        report = client.get("/diff/report?old=demo@1.0.0&new=demo@2.0.0")
        assert report.headers["x-frame-options"] == "SAMEORIGIN"
        policy = report.headers["content-security-policy"]
        assert "frame-ancestors 'self'" in policy and "script-src" not in policy
        assert "style-src 'self'" in policy and "unsafe" not in policy
        _no_inline_code(report.text)
        assert '<link rel=stylesheet href="/static/diff.css">' in report.text
        sheet = client.get("/static/diff.css")
        assert sheet.headers["content-type"].startswith("text/css")
        assert "table.side" in sheet.text


# -- the store unreachable at start: a warning, and reads answer at once


@pytest.mark.slow
def test_an_unreachable_database_at_start_is_a_warning_and_reads_answer_at_once(
    catalogs: Path, tmp_path: Path
) -> None:
    store = f"postgresql://nobody@/db?host={tmp_path / 'no-database-here'}"
    args = ["--store", store, "--path", str(catalogs), "--template-catalog", "tpl"]
    log = tmp_path / "server.log"
    with running_server(args, log) as url:
        for _ in range(3):
            answer = httpx.get(f"{url}/system-prompt", timeout=30)
            assert answer.json() == {"template": "Default in [p:cwd]."}
        # A write is tried within the documented retry bound, then refused (not hung).
        _error(httpx.put(f"{url}/system-prompt", json={"template": "T"}, timeout=30), 503)
    warning = [line for line in log.read_text().splitlines() if "warning" in line]
    assert len(warning) == 1, log.read_text()
    assert warning[0].startswith(
        f"catalog: warning: {store}: the prompt store is busy or unreachable"
    )
    assert "GET /system-prompt answers the default template" in warning[0]


def test_serve_on_a_port_in_use_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        store = f"sqlite:///{tmp_path / 'p.sqlite'}"
        code, out, err = run_cli(capsys, "serve", "--port", str(port), "--store", store)
    assert code == 2 and out == ""
    assert err == (
        f"catalog: error: port {port} on 127.0.0.1 is in use: stop the program using it, "
        f"or choose another port with --port\n"
    )
