"""Opening a prompt store from a URL, and where the default one lives.

``sqlite:///prompts.sqlite`` (relative), ``sqlite:////var/lib/x.sqlite``
(absolute: four slashes, as SQLAlchemy spells it), ``sqlite://`` (in memory),
or ``postgresql://user:password@host:5432/db`` (``postgres://`` too). A bare
path is an SQLite file.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from catalog.conversations.base import RETRY_SECONDS, ReleaseStore
from catalog.conversations.sqlite import SQLiteStore
from catalog.conversations.urls import public_url
from catalog.errors import SessionError

__all__ = ["default_store_url", "open_store", "user_data_dir"]

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def user_data_dir() -> Path:
    """The per-user data folder: ``$XDG_DATA_HOME`` (default ``~/.local/share``),
    ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` on Windows;
    then ``prompt-catalog`` inside it."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "prompt-catalog"


def default_store_url() -> str:
    """``sqlite:///`` a file ``prompts.sqlite`` in :func:`user_data_dir`."""
    return f"sqlite:///{user_data_dir() / 'prompts.sqlite'}"


def _private_folders(folder: Path) -> None:
    """Create ``folder`` and its missing parents, each readable by its owner alone (0700):
    the prompts inside hold what clients gathered. Existing folders are left as they are."""
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made by another process meanwhile
            each.mkdir(mode=0o700)


def open_store(url: str | Path, *, timeout: float = RETRY_SECONDS) -> ReleaseStore:
    """Open the store ``url`` names (see the module docstring); missing folders of an
    SQLite file are created for its owner alone (0700), the file too (0600). ``timeout``
    bounds the retries of a busy or unreachable database."""
    text = str(url)
    if text.startswith(_POSTGRES_SCHEMES):
        try:
            from catalog.conversations.postgres import PostgresStore
        except ImportError:
            raise SessionError(
                "a PostgreSQL store needs psycopg 3, which is not installed",
                file=public_url(text),
                hint="pip install 'agent-prompt-catalog[postgres]' (or '[serve]')",
            ) from None
        return PostgresStore(text, timeout=timeout)
    if text.startswith("sqlite://"):
        path = text.removeprefix("sqlite://")
        if path in ("", "/", "/:memory:"):
            return SQLiteStore(":memory:", timeout=timeout)
        text = path.removeprefix("/")
    elif "://" in text:
        raise SessionError(
            f"unknown prompt store URL {public_url(text)!r}",
            hint="use sqlite:///FILE, sqlite:// (in memory) or postgresql://USER@HOST/DB",
        )
    if "\0" in text:  # the system calls refuse it with ValueError, not OSError
        raise SessionError(
            "the prompt store's path holds a NUL character",
            file=text,
            hint="give a writable file path",
        )
    if text != ":memory:":
        try:
            _private_folders(Path(text).parent)
        except OSError as exc:
            raise SessionError(
                f"cannot create the folder of the prompt store: {exc.strerror}",
                file=text,
                hint="give a writable file path",
            ) from None
    return SQLiteStore(text, timeout=timeout)
