"""The options of a command that listens on a port (``serve``, ``mcp --http``): the
address, the port and the token, checked before anything is started."""

from __future__ import annotations

import argparse
import logging.config
import os
import socket
import stat
from collections.abc import Iterable
from typing import Any

from catalog.errors import UsageError
from catalog.io.listening import LOOPBACK, TOKEN_HINT, listen, token_problem

__all__ = ["TOKEN_ENV", "add_listening_options", "checked_token", "start_listening"]

TOKEN_ENV = "CATALOG_SERVE_TOKEN"
_MAX_TOKEN_FILE = 4096


def add_listening_options(parser: argparse.ArgumentParser, *, needed_for: str) -> None:
    """Add ``--host``, ``--port`` and ``--token-file`` (the token ``needed_for`` what),
    and ``--token``, hidden, to refuse it with a reason."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8000, help="port (8000); 0 takes a free one, named in the log"
    )
    parser.add_argument("--token", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--token-file",
        default=None,
        metavar="FILE",
        help=f"a file holding the token {needed_for} need (default: ${TOKEN_ENV}); long "
        "and random (see docs/serving.md), required off loopback",
    )


def _token(args: argparse.Namespace) -> str | None:
    """The server's token: read from ``--token-file``, else ``$CATALOG_SERVE_TOKEN``;
    refused when weak (:func:`~catalog.io.listening.token_problem`). ``--token TOKEN``
    is refused: every user of the machine reads a process's arguments."""
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
        raise UsageError(f"{given}: {problem}", hint=TOKEN_HINT)
    return token


def checked_token(args: argparse.Namespace) -> str | None:
    """The server's token (see :func:`_token`; None without one), once the address and
    the port are checked too: a :class:`UsageError` for an address other machines reach
    without a token, or a port out of range."""
    token = _token(args)
    if args.host not in LOOPBACK and token is None:
        raise UsageError(
            f"binding to {args.host} exposes the server to other machines",
            hint=f"set {TOKEN_ENV} or give --token-file FILE so that a token is needed, "
            "or bind to 127.0.0.1",
        )
    if not 0 <= args.port <= 65535:
        raise UsageError(f"port {args.port} is out of range", hint="give a port from 1 to 65535")
    return token


def start_listening(
    args: argparse.Namespace, *, hidden: Iterable[str] = (), token: str | None = None
) -> tuple[socket.socket, str, dict[str, Any]]:
    """Take ``--host``:``--port`` and set up the log (JSON lines with ``--format json``,
    uvicorn's own text otherwise), with ``hidden`` and ``token`` masked wherever they
    would be written: the listening socket, the base URL it answers at (with the port
    the system chose for ``--port 0``) and the log configuration for uvicorn."""
    from catalog.server.logs import json_log_config, text_log_config

    listening = listen(args.host, args.port)
    port: int = listening.getsockname()[1]
    secrets = (*hidden, *([] if token is None else [token]))
    logs = json_log_config(secrets) if args.format == "json" else text_log_config(secrets)
    logging.config.dictConfig(logs)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    return listening, f"http://{shown}:{port}", logs
