"""`catalog serve --format json`: the server's log as JSON lines.

The server's log hides its secrets (the token, the store's passwords) in every record,
whoever logs it: message, arguments and traceback."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from catalog.server.logs import JsonLogFormatter, json_log_config, text_log_config
from tests.conftest import run_cli

# 2026-11-24T10:02:03.456Z
MOMENT = 1795514523.456


def _record(name: str, msg: str, args: tuple[Any, ...]) -> logging.LogRecord:
    record = logging.LogRecord(name, logging.INFO, __file__, 1, msg, args, None)
    record.created = MOMENT
    return record


def test_an_access_line_gives_its_request_as_fields() -> None:
    record = _record(
        "uvicorn.access",
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:50312", "GET", "/api/catalogs", "1.1", 200),
    )
    assert json.loads(JsonLogFormatter().format(record)) == {
        "time": "2026-11-24T10:02:03.456Z",
        "level": "info",
        "logger": "uvicorn.access",
        "message": '127.0.0.1:50312 - "GET /api/catalogs HTTP/1.1" 200',
        "client": "127.0.0.1:50312",
        "method": "GET",
        "path": "/api/catalogs",
        "http": "1.1",
        "status": 200,
    }


def test_other_lines_give_their_message_and_an_exception_its_traceback() -> None:
    plain = _record("uvicorn.error", "Started server process [%d]", (42,))
    assert json.loads(JsonLogFormatter().format(plain)) == {
        "time": "2026-11-24T10:02:03.456Z",
        "level": "info",
        "logger": "uvicorn.error",
        "message": "Started server process [42]",
    }
    try:
        raise ValueError("boom ü")
    except ValueError:
        failed = _record("uvicorn.error", "Exception in ASGI application", ())
        failed.exc_info = sys.exc_info()
    line = JsonLogFormatter().format(failed)
    assert "\n" not in line and "boom ü" in line  # one line, non-ASCII kept
    entry = json.loads(line)
    assert entry["message"] == "Exception in ASGI application"
    assert entry["error"].startswith("Traceback (most recent call last):")
    assert entry["error"].endswith("ValueError: boom ü")


@pytest.fixture
def uvicorn_loggers() -> Iterator[None]:
    names = ("uvicorn", "uvicorn.error", "uvicorn.access")
    saved = {n: (logging.getLogger(n).handlers[:], logging.getLogger(n).propagate) for n in names}
    yield
    for name, (handlers, propagate) in saved.items():
        logger = logging.getLogger(name)
        logger.handlers[:] = handlers
        logger.propagate = propagate


@pytest.mark.usefixtures("uvicorn_loggers")
def test_the_config_sends_uvicorns_loggers_to_stderr_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logging.config.dictConfig(json_log_config())
    logging.getLogger("uvicorn.error").info("Application startup complete.")
    logging.getLogger("uvicorn.access").info(
        '%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "POST", "/system-prompt", "1.1", 401
    )
    out, err = capsys.readouterr()
    assert out == ""
    first, second = (json.loads(line) for line in err.splitlines())
    assert (first["logger"], first["message"]) == ("uvicorn.error", "Application startup complete.")
    assert (second["method"], second["path"], second["status"]) == ("POST", "/system-prompt", 401)


def test_serve_passes_the_json_config_to_uvicorn_only_with_format_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    calls: list[tuple[Any, list[Any]]] = []

    def run(server: Any, sockets: list[Any]) -> None:
        calls.append((server.config, [sock.getsockname() for sock in sockets]))

    monkeypatch.setattr(uvicorn.Server, "run", run)
    port = "0"  # the system chooses a free one for each run
    assert (
        run_cli(capsys, "serve", "--store", "sqlite://", "--format", "json", "--port", port)[0] == 0
    )
    assert (
        run_cli(capsys, "--format", "json", "serve", "--store", "sqlite://", "--port", port)[0] == 0
    )
    assert run_cli(capsys, "serve", "--store", "sqlite://", "--port", port)[0] == 0
    configs = [config.log_config for config, _ in calls]
    assert configs == [json_log_config(), json_log_config(), text_log_config()]
    # uvicorn's own text configuration, with the server's logger beside its loggers
    assert text_log_config()["loggers"] == {
        **uvicorn.config.LOGGING_CONFIG["loggers"],
        "catalog": {"handlers": ["default"], "level": "INFO", "propagate": False},
    }
    assert [[host for host, _ in sockets] for _, sockets in calls] == [["127.0.0.1"]] * 3
    assert all(bound > 0 for _, sockets in calls for _, bound in sockets)


def test_a_running_server_writes_every_log_line_as_json(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    httpx = pytest.importorskip("httpx")
    from tests._support.serving import running_server

    log = tmp_path / "server.log"
    store = f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    with running_server(["--store", store, "--format", "json"], log) as url:
        assert httpx.get(f"{url}/api/catalogs", timeout=10).status_code == 200
        assert httpx.get(f"{url}/no-such-route", timeout=10).status_code == 404
    entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert any(e["message"].startswith(f"serving on {url} ") for e in entries)
    requests = [(e["method"], e["path"], e["status"]) for e in entries if "status" in e]
    assert ("GET", "/api/catalogs", 200) in requests
    assert ("GET", "/no-such-route", 404) in requests


pytest.importorskip("uvicorn", reason="the serve extra is not installed")


SECRETS = ("Tok3n-abcdefghijklmnop0123456789", "hunter22")


@pytest.mark.parametrize("config", [json_log_config, text_log_config])
def test_every_log_line_hides_the_secrets(config: Callable[..., dict[str, Any]]) -> None:
    settings = config(SECRETS)
    assert all("hidden" in handler["filters"] for handler in settings["handlers"].values())
    made = settings["filters"]["hidden"]
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(made["()"](secrets=made["secrets"]))
    json_lines = config is json_log_config
    handler.setFormatter(JsonLogFormatter() if json_lines else logging.Formatter())
    logger = logging.getLogger(f"tests.hidden.{config.__name__}")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        logger.warning("store postgresql://u:%s@db failed", SECRETS[1])
        try:
            raise RuntimeError(f"bearer {SECRETS[0]} refused")
        except RuntimeError:
            logger.exception("unexpected")
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert "failed" in written and "unexpected" in written and "RuntimeError" in written
    assert SECRETS[0] not in written and SECRETS[1] not in written
    if json_lines:
        lines = [json.loads(line) for line in written.splitlines()]
        assert lines[0]["message"] == "store postgresql://u:***@db failed"
        assert "bearer *** refused" in lines[1]["error"]
    else:
        assert "store postgresql://u:***@db failed" in written and "bearer *** refused" in written
