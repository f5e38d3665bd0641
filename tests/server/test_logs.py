"""The server's log hides its secrets (the token, the store's passwords) in every record,
whoever logs it: message, arguments and traceback."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the serve extra is not installed")

from catalog.server.logs import JsonLogFormatter, json_log_config, text_log_config

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
