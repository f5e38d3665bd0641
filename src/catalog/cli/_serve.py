"""``catalog serve``: run the HTTP server (JSON API, dispatch's routes, web UI)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import logging.config
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from catalog.cli._common import EXIT_OK, add_format
from catalog.cli._listening import add_listening_options, checked_token, start_listening
from catalog.conversations.connect import default_store_url, open_store
from catalog.conversations.urls import url_secrets
from catalog.errors import (
    StoreUnavailableError,
    UsageError,
)
from catalog.io.catalog_path import (
    CatalogPath,
)

if TYPE_CHECKING:
    from catalog.server.state import ServerSettings

__all__ = ["WRITER_ENV", "register", "run"]

WRITER_ENV = "CATALOG_SERVE_WRITER"


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve`` command."""
    parser.description = (
        "Serve the catalogs' JSON API (described at /openapi.json), dispatch's "
        "/system-prompt routes, per-conversation prompts under /conversations and the web "
        "UI. Binds to 127.0.0.1; any other address needs a token ($CATALOG_SERVE_TOKEN or "
        "--token-file), and then every write and every read of a conversation needs "
        "`Authorization: Bearer TOKEN`. Install with: "
        "pip install 'agent-prompt-catalog[serve]'."
    )
    add_listening_options(parser, needed_for="writes and conversation reads")
    parser.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where prompts and templates live: sqlite:///FILE, sqlite:// (memory) or "
        f"postgresql://USER@HOST/DB (default: {default_store_url()})",
    )
    parser.add_argument(
        "--writer",
        default=None,
        metavar="NAME",
        help=f"the name releases record for writes through this server (default: "
        f"${WRITER_ENV}, else a keyed hash of the token)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes accepting connections on the one port (1); each opens its own "
        "store connections, and /metrics adds up every process's figures",
    )
    parser.add_argument(
        "--template-catalog",
        default=None,
        metavar="NAME[@SPEC]",
        help="the catalog whose user template /system-prompt edits "
        "(default: the first catalog that takes one)",
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the options, take the port, then serve until interrupted.

    The server's modules need the serve extra: imported here, so that without it
    ``catalog serve --help`` still works and ``catalog serve`` says what to install."""
    import uvicorn

    from catalog.server.app import create_app
    from catalog.server.state import ServerSettings, writer_problem

    token = checked_token(args)
    writer = args.writer or os.environ.get(WRITER_ENV) or None
    if writer is not None and (problem := writer_problem(writer)) is not None:
        raise UsageError(problem, hint="name the server e.g. eu-west-1")
    if args.workers < 1:
        raise UsageError(
            f"--workers {args.workers}: at least one process must serve",
            hint="give --workers 1 or more, e.g. one per processor core",
        )
    _check_metrics_folder()
    store_url = args.store or default_store_url()
    if url_secrets(store_url):
        sys.stderr.write(
            "catalog: warning: --store holds a password, which the process list shows to "
            "every user of this machine: give it through PGPASSWORD or a password file "
            "(PGPASSFILE, ~/.pgpass) instead\n"
        )
    _check_store(store_url)
    CatalogPath(args.path)  # a --path that is no folder fails now too
    settings = ServerSettings(
        paths=tuple(args.path),
        store_url=store_url,
        token=token,
        template_catalog=args.template_catalog,
        host=args.host,
        writer=writer,
    )
    listening, url, logs = start_listening(args, hidden=url_secrets(store_url), token=token)
    logging.getLogger("catalog.server").info(
        "serving on %s with %d %s (press CTRL+C to quit)",
        url,
        args.workers,
        "process" if args.workers == 1 else "processes",
    )
    with listening:
        if args.workers == 1:
            config = uvicorn.Config(create_app(settings), log_level="info", log_config=logs)
            uvicorn.Server(config).run(sockets=[listening])
        else:
            _serve_workers(settings, listening, args.workers, logs)
    return EXIT_OK


def _serve_workers(
    settings: ServerSettings, listening: socket.socket, workers: int, logs: dict[str, Any]
) -> None:
    """Serve with ``workers`` processes accepting on ``listening``, through uvicorn's
    documented multi-process mode: the application named by an import string (each
    process builds its own from the settings in the environment) and the socket by
    its descriptor. Their metrics go to one folder that ``/metrics`` adds up."""
    import uvicorn

    from catalog.server.app import SETTINGS_ENV, settings_json

    with _metrics_folder():
        os.environ[SETTINGS_ENV] = settings_json(settings)
        uvicorn.run(
            "catalog.server.app:app_from_environment",
            factory=True,
            fd=listening.fileno(),
            workers=workers,
            log_level="info",
            log_config=logs,
        )


@contextlib.contextmanager
def _metrics_folder() -> Iterator[None]:
    """The folder where worker processes write their metrics: the one
    ``PROMETHEUS_MULTIPROC_DIR`` names when set (its owner empties it between runs),
    else a new private folder, deleted when the server stops."""
    from catalog.server.metrics import MULTIPROCESS_ENV

    if MULTIPROCESS_ENV in os.environ:
        yield
        return
    folder = tempfile.mkdtemp(prefix="catalog-metrics-")
    os.environ[MULTIPROCESS_ENV] = folder
    try:
        yield
    finally:
        del os.environ[MULTIPROCESS_ENV]
        shutil.rmtree(folder, ignore_errors=True)


def _check_metrics_folder() -> None:
    """A ``PROMETHEUS_MULTIPROC_DIR`` that names no folder fails now (exit 2), not in
    every process that would write its figures there."""
    from catalog.server.metrics import MULTIPROCESS_ENV

    folder = os.environ.get(MULTIPROCESS_ENV)
    if folder is not None and not os.path.isdir(folder):
        raise UsageError(
            f"${MULTIPROCESS_ENV} names {folder!r}, which is not a folder",
            hint="create the folder (empty), or unset the variable to let catalog serve choose one",
        )


def _check_store(url: str) -> None:
    """Open the store once before serving: a bad URL or an unwritable file fails now
    (exit 2); a database server that is down is a warning, since the server starts
    without it (reads then serve the defaults, writes answer 503)."""
    try:
        open_store(url, timeout=0).close()
    except StoreUnavailableError as exc:
        sys.stderr.write(
            f"catalog: warning: {exc.file}: {exc.message}; serving without it: GET /system-prompt "
            "answers the default template and writes answer 503 until it can be reached\n"
        )
