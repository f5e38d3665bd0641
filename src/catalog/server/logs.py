"""The server's log: uvicorn's text, or JSON lines for ``catalog serve --format json``;
either way with the server's own logger (``catalog``) beside uvicorn's.

As JSON, one object per line on stderr: ``time`` (UTC, ISO 8601), ``level``, ``logger``
and ``message``; a request line of uvicorn's access log also gives ``client``,
``method``, ``path``, ``http`` and ``status``, and a logged exception its
traceback as ``error``. A log collector reads the fields instead of parsing text.
"""

from __future__ import annotations

import copy
import datetime
import json
import logging
from collections.abc import Sequence
from typing import Any

from catalog.conversations.urls import scrub

__all__ = ["HiddenSecrets", "JsonLogFormatter", "json_log_config", "text_log_config"]

_ACCESS_FIELDS = ("client", "method", "path", "http", "status")


class HiddenSecrets(logging.Filter):
    """Writes each of ``secrets`` (the token, the store URL's passwords) as ``***`` in
    a record's message, its arguments and its traceback, whoever logged it."""

    def __init__(self, secrets: Sequence[str] = ()) -> None:
        super().__init__()
        self._secrets = tuple(sorted((s for s in secrets if s), key=len, reverse=True))

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secrets:
            return True
        if isinstance(record.args, tuple) and record.name == "uvicorn.access":
            record.args = tuple(self._hide(arg) for arg in record.args)
        else:
            record.msg, record.args = self._hide(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text, self._secrets)
        return True

    def _hide(self, value: object) -> object:
        return scrub(value, self._secrets) if isinstance(value, str) else value


class JsonLogFormatter(logging.Formatter):
    """Writes a log record as one line of JSON."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.datetime.fromtimestamp(record.created, tz=datetime.UTC)
        entry: dict[str, Any] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            entry.update(zip(_ACCESS_FIELDS, args, strict=True))
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["error"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False, default=str)


def _hidden(secrets: Sequence[str]) -> dict[str, Any]:
    """The ``filters`` section hiding ``secrets``."""
    return {"hidden": {"()": HiddenSecrets, "secrets": list(secrets)}}


def json_log_config(secrets: Sequence[str] = ()) -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for uvicorn's ``log_config``: its loggers
    write through :class:`JsonLogFormatter` to stderr, ``secrets`` hidden."""
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "json",
        "stream": "ext://sys.stderr",
        "filters": ["hidden"],
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLogFormatter}},
        "filters": _hidden(secrets),
        "handlers": {"json": handler},
        "loggers": {
            "uvicorn": {"handlers": ["json"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["json"], "level": "INFO", "propagate": False},
            "catalog": {"handlers": ["json"], "level": "INFO", "propagate": False},
        },
    }


def text_log_config(secrets: Sequence[str] = ()) -> dict[str, Any]:
    """uvicorn's own text log configuration, with the ``catalog`` logger written like
    uvicorn's (``WARNING:  ...`` on stderr), ``secrets`` hidden."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = _hidden(secrets)
    for handler in config["handlers"].values():
        handler["filters"] = ["hidden"]
    config["loggers"]["catalog"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config
