"""Runtime facts: the machine, the clock and git, read once per gathering."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from catalog.gather._files import warn

__all__ = ["Clock", "default_environ", "git_facts", "machine_facts", "time_facts"]

Clock = Callable[[], datetime]
"""Returns the current time; an aware datetime keeps its zone, a naive one is local."""

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def time_facts(clock: Clock) -> dict[str, str]:
    """``date``, ``time``, ``datetime``, ``weekday``, ``timezone``, ``tzname``: one reading."""
    now = clock()
    if now.tzinfo is None:
        now = now.astimezone()
    zone = getattr(now.tzinfo, "key", None) or now.tzname() or ""
    return {
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M"),
        "datetime": now.isoformat(timespec="seconds"),
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


def git_facts(cwd: Path, environ: Mapping[str, str], timeout: float) -> dict[str, Any]:
    """``is_git_repo``, ``git_branch`` and ``git_status`` (short); empty when not a repository.

    One ``git status --short --branch`` call, with a timeout. No git, not a
    repository or a git that fails: the facts are absent, not an error; a
    timeout also warns.
    """
    env = {**environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "status", "--short", "--branch", "--no-renames"],
            cwd=cwd,
            env=env,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        warn(f"{cwd}: git status took longer than {timeout:g}s; git facts left out")
        return {}
    except OSError:
        return {}
    if done.returncode != 0:
        return {}
    lines = done.stdout.decode("utf-8", errors="replace").splitlines()
    head = lines[0][3:] if lines and lines[0].startswith("## ") else ""
    return {
        "is_git_repo": True,
        "git_branch": _branch(head),
        "git_status": "\n".join(lines[1:]),
    }


def _branch(head: str) -> str:
    for prefix in ("No commits yet on ", "Initial commit on "):
        if head.startswith(prefix):
            return head[len(prefix) :]
    if head.startswith("HEAD (no branch)"):
        return "HEAD"
    return head.split("...")[0].split(" ")[0]


def default_environ() -> Mapping[str, str]:
    """The process environment (a function so tests and callers can pass their own)."""
    return os.environ
