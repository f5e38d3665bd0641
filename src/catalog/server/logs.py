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
from typing import Any

__all__ = ["JsonLogFormatter", "json_log_config", "text_log_config"]

_ACCESS_FIELDS = ("client", "method", "path", "http", "status")


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
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def json_log_config() -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for uvicorn's ``log_config``: its loggers
    write through :class:`JsonLogFormatter` to stderr."""
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "json",
        "stream": "ext://sys.stderr",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLogFormatter}},
        "handlers": {"json": handler},
        "loggers": {
            "uvicorn": {"handlers": ["json"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["json"], "level": "INFO", "propagate": False},
            "catalog": {"handlers": ["json"], "level": "INFO", "propagate": False},
        },
    }


def text_log_config() -> dict[str, Any]:
    """uvicorn's own text log configuration, with the ``catalog`` logger written like
    uvicorn's (``WARNING:  ...`` on stderr)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["catalog"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config
