"""Runtime facts: the machine and the clock, read once per gathering."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["Clock", "default_environ", "machine_facts", "time_facts"]

Clock = Callable[[], datetime]
"""Returns the current time; an aware datetime keeps its zone, a naive one is local."""

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def time_facts(clock: Clock) -> dict[str, str]:
    """``date``, ``time``, ``datetime``, ``datetime_utc``, ``weekday``, ``timezone``,
    ``tzname``: one reading."""
    now = clock()
    if now.tzinfo is None:
        now = now.astimezone()
    zone = getattr(now.tzinfo, "key", None) or now.tzname() or ""
    return {
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M"),
        "datetime": now.isoformat(timespec="seconds"),
        # JavaScript's Date.toISOString(): UTC, milliseconds, "Z".
        "datetime_utc": now.astimezone(UTC).isoformat(timespec="milliseconds")[:-6] + "Z",
        # Not %A: that one follows the process locale.
        "weekday": _WEEKDAYS[now.weekday()],
        "timezone": zone,
        "tzname": now.tzname() or "",
    }


def machine_facts(environ: Mapping[str, str]) -> dict[str, str]:
    """Host name, OS, architecture, user and shell of this process."""
    shell = environ.get("SHELL") or environ.get("COMSPEC") or ""
    return {
        "os": platform.system(),
        "os_version": platform.release(),
        "arch": platform.machine(),
        "hostname": platform.node(),
        "platform": sys.platform,
        "user": environ.get("USER") or environ.get("LOGNAME") or environ.get("USERNAME") or "",
        "shell": Path(shell.replace("\\", "/")).stem if shell else "",
    }


def default_environ() -> Mapping[str, str]:
    """The process environment (a function so tests and callers can pass their own)."""
    return os.environ
