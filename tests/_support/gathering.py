"""Helpers for tests that gather contexts from temporary folders (no real home, clock or git)."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from catalog import Catalog, Context, gather
from catalog.gathering import Gathering, gather_with_provenance

NOW = datetime(2025, 1, 31, 14, 5, 9, tzinfo=timezone(timedelta(hours=1), "CET"))
ENVIRON = {"USER": "ada", "SHELL": "/usr/bin/zsh", "PATH": "/usr/bin:/bin"}


def clock() -> datetime:
    """A fixed time: Friday 2025-01-31 14:05:09 CET."""
    return NOW


def write(path: Path, text: str | bytes) -> Path:
    """Write ``text`` to ``path``, creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def skill(folder: Path, front: str, body: str = "Do it.") -> Path:
    """A ``SKILL.md`` in ``folder`` with the front matter ``front``."""
    return write(folder / "SKILL.md", f"---\n{front}\n---\n{body}\n")


def gather_in(cat: Catalog, cwd: Path, **kwargs: Any) -> Context:
    """:func:`catalog.gather` with a fixed clock and environment, no git, home at ``/``
    unless given, so nothing of this machine's user leaks into a test."""
    return gather(cat, cwd, **_quiet(cwd, kwargs))


def trace_in(cat: Catalog, cwd: Path, **kwargs: Any) -> Gathering:
    """:func:`catalog.gathering.gather_with_provenance` with the defaults of :func:`gather_in`."""
    return gather_with_provenance(cat, cwd, **_quiet(cwd, kwargs))


def _quiet(cwd: Path, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {"home": cwd.anchor, "clock": clock, "environ": ENVIRON, "git": False, **kwargs}


def git_env(home: Path) -> dict[str, str]:
    """An environment for git with no user or system configuration and a commit identity."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` under :func:`git_env`; new repos start on ``trunk``. Returns stdout."""
    config = ["-c", "init.defaultBranch=trunk"]
    done = subprocess.run(
        ["git", *config, *args], cwd=cwd, env=git_env(cwd), check=True, capture_output=True
    )
    return done.stdout.decode("utf-8")
