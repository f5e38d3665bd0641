"""Opening a prompt store from a URL, and where the default one lives.

``sqlite:///prompts.sqlite`` (relative), ``sqlite:////var/lib/x.sqlite``
(absolute: four slashes, as SQLAlchemy spells it), ``sqlite://`` (in memory),
or ``postgresql://user:password@host:5432/db`` (``postgres://`` too). A bare
path is an SQLite file.
"""

from __future__ import annotations

from pathlib import Path

from catalog.conversations.base import RETRY_SECONDS, ReleaseStore
from catalog.conversations.sqlite import SQLiteStore
from catalog.conversations.urls import public_url
from catalog.errors import SessionError
from catalog.io.userdirs import private_folder, user_data_dir

__all__ = ["default_store_url", "open_store", "user_data_dir"]

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def default_store_url() -> str:
    """``sqlite:///`` a file ``prompts.sqlite`` in :func:`user_data_dir`."""
    return f"sqlite:///{user_data_dir() / 'prompts.sqlite'}"


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
            private_folder(Path(text).parent, check=0)
        except OSError as exc:
            raise SessionError(
                f"cannot create the folder of the prompt store: {exc.strerror}",
                file=text,
                hint="give a writable file path",
            ) from None
    return SQLiteStore(text, timeout=timeout)
