"""The server's secrets stay secret: the token is strong, read from the environment or
a file (never the process's arguments), compared exactly, never recoverable from what
releases record; a store URL's passwords appear in no message or log line."""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx", reason="httpx is not installed")

from catalog.errors import StoreUnavailableError, UsageError  # noqa: E402
from catalog.server.state import ServerSettings  # noqa: E402
from tests._support.postgres_server import postgres_server  # noqa: E402, F401
from tests._support.serving import running_process, write_demo_catalogs  # noqa: E402
from tests.conftest import run_cli  # noqa: E402

TOKEN = "Strong-Token-7f3a9c2e1b8d4056aa91c3e7"


@pytest.mark.parametrize(
    ("token", "why"),
    [
        ("hunter2", "too short"),
        ("correcthorsebatterystaple", "too short"),
        ("a" * 64, "7 different|1 different"),
        ("passwordpasswordpasswordpassword", "different characters"),
        ("Tr0ub4dor&3xyzTr0ub4dor&3xyzTr0ub4dor&3xyz", "repeated"),
    ],
)
def test_a_weak_token_stops_the_server_at_start(
    token: str, why: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CATALOG_SERVE_TOKEN", token)
    code, _, err = run_cli(capsys, "serve", "--port", "0")
    assert code == 2
    assert "$CATALOG_SERVE_TOKEN: the token is" in err
    assert any(word in err for word in why.split("|"))
    assert token not in err
    with pytest.raises(UsageError):
        ServerSettings(token=token)


def test_the_token_is_never_an_argument(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "serve", "--token", TOKEN)
    assert code == 2
    assert "--token is no longer accepted" in err
    assert "CATALOG_SERVE_TOKEN" in err and "--token-file" in err
    assert TOKEN not in err


def test_a_token_file_is_read_bounded_and_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weak = tmp_path / "weak"
    weak.write_text("hunter2\n")
    code, _, err = run_cli(capsys, "serve", "--token-file", str(weak))
    assert code == 2 and f"--token-file {weak}: the token is too short" in err
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # no writer: reading it would wait forever
    code, _, err = run_cli(capsys, "serve", "--token-file", str(pipe))
    assert code == 2 and "not a regular file" in err
    code, _, err = run_cli(capsys, "serve", "--token-file", str(tmp_path / "missing"))
    assert code == 2 and "cannot read it" in err


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


@pytest.mark.slow
def test_a_real_server_takes_its_token_from_a_file_and_compares_it_exactly(
    tmp_path: Path,
) -> None:
    catalogs = write_demo_catalogs(tmp_path / "catalogs")
    secret = tmp_path / "token"
    secret.write_text(TOKEN + "\n")
    secret.chmod(0o600)
    log = tmp_path / "server.log"
    args = ["--path", str(catalogs), "--store", f"sqlite:///{tmp_path / 'p.sqlite'}"]
    args += ["--token-file", str(secret), "--format", "json"]
    with running_process(args, log) as (url, process):
        if Path("/proc").is_dir():
            assert TOKEN not in _cmdline(process.pid)
        body = {"catalog": "demo", "version": "1.0.0"}
        for wrong in (TOKEN + "x", TOKEN[:-1], TOKEN[:16], TOKEN.swapcase(), TOKEN.lower()):
            answer = httpx.put(
                f"{url}/releases/p", json=body, headers={"Authorization": f"Bearer {wrong}"}
            )
            assert answer.status_code == 401, wrong
        made = httpx.put(
            f"{url}/releases/p", json=body, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert made.status_code == 200, made.text
        shown = httpx.get(f"{url}/releases/p").text
    who = json.loads(shown)["who"]
    assert who.startswith("token:") and len(who) == len("token:") + 12
    plain = hashlib.sha256(TOKEN.encode()).hexdigest()
    assert who.removeprefix("token:") not in plain  # not the plain hash, nor part of it
    assert TOKEN not in log.read_text()


def test_the_writer_is_a_keyed_hash_or_a_name() -> None:
    one, other = ServerSettings(token=TOKEN), ServerSettings(token=TOKEN)
    assert one.writer_id() == one.writer_id()  # stable for one server
    assert one.writer_id() != other.writer_id()  # each server has its own key
    plain = "token:" + hashlib.sha256(TOKEN.encode()).hexdigest()[:12]
    assert plain not in (one.writer_id(), other.writer_id())
    assert ServerSettings(token=TOKEN, writer="eu-west").writer_id() == "name:eu-west"
    assert ServerSettings().writer_id() == "local"
    with pytest.raises(UsageError, match="writer"):
        ServerSettings(writer="a/b")
    assert TOKEN not in repr(one) and one.writer_key not in repr(one)


# -- a store URL's password, in both URL forms, against a real PostgreSQL


def _with_password(server: str, form: str, password: str, database: str) -> str:
    """``server`` (``postgresql://postgres@/?host=...``) naming ``database``, with
    ``password`` as the URL's user information or as its ``password`` parameter."""
    if form == "userinfo":
        return server.replace("postgres@/?", f"postgres:{password}@/{database}?")
    return server.replace("/?", f"/{database}?password={password}&")


@pytest.mark.parametrize("form", ["userinfo", "parameter"])
def test_a_store_password_is_in_no_message(postgres_server: str, form: str) -> None:  # noqa: F811
    from catalog.conversations import open_store

    password = f"pw{uuid.uuid4().hex[:10]}"
    url = _with_password(postgres_server, form, password, "no_such_database")
    with pytest.raises(StoreUnavailableError) as caught:
        open_store(url, timeout=0)
    assert password not in str(caught.value) and password not in (caught.value.file or "")
    assert "***" in str(caught.value)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["userinfo", "parameter"])
def test_a_store_password_is_in_no_log_line(
    postgres_server: str,  # noqa: F811
    form: str,
    tmp_path: Path,
) -> None:
    password = f"pw{uuid.uuid4().hex[:10]}"
    url = _with_password(postgres_server, form, password, "no_such_database")
    catalogs = write_demo_catalogs(tmp_path / "catalogs")
    log = tmp_path / "server.log"
    args = ["--path", str(catalogs), "--store", url, "--format", "json"]
    with running_process(args, log) as (base, process):
        answer = httpx.put(f"{base}/system-prompt", json={"template": "T"}, timeout=60)
        assert answer.status_code == 503
        if Path("/proc").is_dir():
            assert password in _cmdline(process.pid)  # the operator's own choice, not ours
    text = log.read_text()
    assert "does not exist" in text  # the store's failure was logged and warned about
    assert "--store holds a password" in text  # and told to use PGPASSWORD instead
    assert password not in text
