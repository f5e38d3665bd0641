"""``catalog serve``: run the HTTP server (JSON API, dispatch's routes, web UI)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import logging.config
import os
import shutil
import socket
import stat
import sys
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from catalog.cli._common import EXIT_OK, add_format
from catalog.conversations.connect import default_store_url, open_store
from catalog.conversations.urls import url_secrets
from catalog.errors import (
    StoreUnavailableError,
    UsageError,
)
from catalog.io.catalog_path import (
    CatalogPath,
)
from catalog.server.logs import (
    json_log_config,
    text_log_config,
)

if TYPE_CHECKING:
    from catalog.server.state import ServerSettings

__all__ = ["TOKEN_ENV", "WRITER_ENV", "register", "run"]

TOKEN_ENV = "CATALOG_SERVE_TOKEN"
WRITER_ENV = "CATALOG_SERVE_WRITER"
_MAX_TOKEN_FILE = 4096


def _token(args: argparse.Namespace) -> str | None:
    """The server's token: read from ``--token-file``, else ``$CATALOG_SERVE_TOKEN``;
    refused when weak (:func:`~catalog.server.state.token_problem`). ``--token TOKEN``
    is refused: every user of the machine reads a process's arguments."""
    from catalog.server.state import token_problem

    if args.token is not None:
        raise UsageError(
            "--token is no longer accepted: the process list shows a command's arguments "
            "to every user of the machine",
            hint=f"set {TOKEN_ENV} or give --token-file FILE (a file readable by the "
            "server's user alone)",
        )
    if args.token_file is not None:
        given = f"--token-file {args.token_file}"
        try:
            # Not blocking: a named pipe is refused, not waited on.
            descriptor = os.open(args.token_file, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(descriptor, "rb") as file:
                if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                    raise UsageError(f"{given}: not a regular file", hint="give the token's file")
                raw = file.read(_MAX_TOKEN_FILE + 1)
        except OSError as exc:
            raise UsageError(
                f"{given}: cannot read it: {exc.strerror}", hint="give the token's file"
            ) from None
        # Not ASCII: U+FFFD, which the check below refuses.
        token: str | None = raw.decode("ascii", errors="replace").strip("\r\n")
    else:
        given = f"${TOKEN_ENV}"
        token = os.environ.get(TOKEN_ENV) or None
    if token is not None and (problem := token_problem(token)) is not None:
        raise UsageError(f"{given}: {problem}", hint="make one with e.g. `openssl rand -hex 32`")
    return token


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
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (8000)")
    parser.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where prompts and templates live: sqlite:///FILE, sqlite:// (memory) or "
        f"postgresql://USER@HOST/DB (default: {default_store_url()})",
    )
    parser.add_argument("--token", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--token-file",
        default=None,
        metavar="FILE",
        help=f"a file holding the token writes and conversation reads need (default: "
        f"${TOKEN_ENV}); long and random (see docs/serving.md), required off loopback",
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
    from catalog.server.state import LOOPBACK, ServerSettings, writer_problem

    token = _token(args)
    if args.host not in LOOPBACK and token is None:
        raise UsageError(
            f"binding to {args.host} exposes the server to other machines",
            hint=f"set {TOKEN_ENV} or give --token-file FILE so that writes need a token, "
            "or bind to 127.0.0.1",
        )
    writer = args.writer or os.environ.get(WRITER_ENV) or None
    if writer is not None and (problem := writer_problem(writer)) is not None:
        raise UsageError(problem, hint="name the server e.g. eu-west-1")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"port {args.port} is out of range", hint="give a port from 1 to 65535")
    if args.workers < 1:
        raise UsageError(
            f"--workers {args.workers}: at least one process must serve",
            hint="give --workers 1 or more, e.g. one per processor core",
        )
    _check_metrics_folder()
    store_url = args.store or default_store_url()
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
    listening = _listen(args.host, args.port)
    port: int = listening.getsockname()[1]  # the one the system chose for --port 0
    # With --format json the log is JSON lines; otherwise uvicorn's own text.
    hidden = (*url_secrets(store_url), *([] if token is None else [token]))
    logs = json_log_config(hidden) if args.format == "json" else text_log_config(hidden)
    logging.config.dictConfig(logs)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    logging.getLogger("catalog.server").info(
        "serving on http://%s:%d with %d %s (press CTRL+C to quit)",
        shown,
        port,
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


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` whose accepted connections send small
    answers at once (``TCP_NODELAY``); a port in use or an address this machine does
    not have is a :class:`UsageError` saying what to do.

    Without ``TCP_NODELAY`` a keep-alive request waits for the client's delayed
    acknowledgement (about 40 ms on Linux) between an answer's headers and its body.
    asyncio sets it on a connection accepted from a socket whose protocol says TCP,
    which ``socket.create_server`` leaves unsaid: the socket is made again on the same
    descriptor, saying it. Worker processes get the socket from uvicorn by its
    descriptor, without that: the option set on the listening socket itself is given by
    the operating system to every connection it accepts (Linux and the BSDs do).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        created = socket.create_server((host, port), family=family)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"port {port} on {host} is in use: stop the program using it, or choose "
                "another port with --port"
            ) from None
        if exc.errno == errno.EACCES:
            raise UsageError(
                f"this user may not listen on port {port}",
                hint="choose a port from 1024 up, e.g. --port 8000",
            ) from None
        reason = exc.strerror or str(exc)
        raise UsageError(
            f"cannot listen on {host}:{port}: {reason}",
            hint="give --host an address of this machine, e.g. 127.0.0.1",
        ) from None
    listening = socket.socket(
        family, socket.SOCK_STREAM, socket.IPPROTO_TCP, fileno=created.detach()
    )
    listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return listening
