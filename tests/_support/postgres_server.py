"""A throwaway PostgreSQL server for the tests: Debian's binaries, a temporary folder,
a unix socket inside it, stopped (and deleted) after the test session.

Skips cleanly when the binaries or psycopg are missing (CI installs both).
When running as root, the server runs as the ``postgres`` user, which
PostgreSQL requires.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from catalog.conversations import ReleaseStore

__all__ = [
    "bin_dir",
    "create_database",
    "fresh_database",
    "postgres_server",
    "store",
    "store_url",
    "throwaway_postgres",
]


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def bin_dir() -> Path | None:
    """Where Debian (or PATH) keeps initdb and pg_ctl; None when PostgreSQL is absent."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@contextlib.contextmanager
def throwaway_postgres(binaries: Path) -> Iterator[str]:
    """Start a PostgreSQL server in a new temporary folder (unix socket inside it, no
    TCP); yield the base URL (no database); stop it and delete the folder."""
    folder = Path(tempfile.mkdtemp(prefix="pgtest"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data = folder / "data"
    run = _as_server_user
    try:
        subprocess.run(
            run([str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                 "-E", "UTF8", "--no-sync"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        subprocess.run(
            run([str(binaries / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w",
                 "-t", "60", "-o",
                 f"-k {folder} -c listen_addresses='' -c fsync=off -c max_connections=200",
                 "start"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        log = folder / "log"
        detail = log.read_text(errors="replace") if log.exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {exc}\n{detail}") from None
    try:
        yield f"postgresql://postgres@/?host={folder}"
    finally:
        subprocess.run(
            run([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True, timeout=60,
        )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def create_database(server: str) -> str:
    """A new, empty database on ``server`` (a base URL); returns its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.replace("/?", "/postgres?"), autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    return server.replace("/?", f"/{name}?")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The base URL (no database) of a PostgreSQL server running for this test session."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install '.[test]')")
    binaries = bin_dir()
    if binaries is None:
        pytest.skip("PostgreSQL binaries not found (apt-get install postgresql)")
    with throwaway_postgres(binaries) as url:
        yield url


@pytest.fixture
def fresh_database(postgres_server: str) -> str:
    """The URL of a new, empty database on the test server."""
    return create_database(postgres_server)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a new, empty prompt store: an SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    url: str = request.getfixturevalue("fresh_database")
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[ReleaseStore]:
    """The store at ``store_url``, open for the test and closed after it."""
    from catalog.conversations import open_store

    opened = open_store(store_url)
    yield opened
    opened.close()
