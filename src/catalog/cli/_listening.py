"""The options of a command that listens on a port (``serve``, ``mcp --http``): the
address, the port and the token, checked before anything is started."""

from __future__ import annotations

import argparse
import logging.config
import os
import socket
from typing import Any

from catalog.errors import UsageError
from catalog.io.listening import LOOPBACK, listen, token_problem

__all__ = ["TOKEN_ENV", "add_listening_options", "checked_token", "start_listening"]

TOKEN_ENV = "CATALOG_SERVE_TOKEN"


def add_listening_options(parser: argparse.ArgumentParser, *, token_help: str) -> None:
    """Add ``--host``, ``--port`` and ``--token`` (whose help starts with ``token_help``)."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8000, help="port (8000); 0 takes a free one, named in the log"
    )
    parser.add_argument(
        "--token",
        default=None,
        help=f"{token_help}: printable ASCII, no spaces (default: ${TOKEN_ENV}); required "
        "off loopback",
    )


def checked_token(args: argparse.Namespace) -> str | None:
    """The server's token (``--token``, else ``$CATALOG_SERVE_TOKEN``, else None), once
    the token, the address and the port are checked: a :class:`UsageError` for a token
    that breaks :func:`~catalog.io.listening.token_problem`'s rule, an address other
    machines reach without a token, or a port out of range."""
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if token is not None and (problem := token_problem(token)) is not None:
        given = "--token" if args.token else f"${TOKEN_ENV}"
        raise UsageError(
            f"{given}: {problem}", hint="make one with e.g. `openssl rand -hex 32` or `uuidgen`"
        )
    if args.host not in LOOPBACK and token is None:
        raise UsageError(
            f"binding to {args.host} exposes the server to other machines",
            hint=f"give --token TOKEN (or set {TOKEN_ENV}) so that it is needed, or bind "
            "to 127.0.0.1",
        )
    if not 0 <= args.port <= 65535:
        raise UsageError(f"port {args.port} is out of range", hint="give a port from 1 to 65535")
    return token


def start_listening(args: argparse.Namespace) -> tuple[socket.socket, str, dict[str, Any]]:
    """Take ``--host``:``--port`` and set up the log (JSON lines with ``--format json``,
    uvicorn's own text otherwise): the listening socket, the base URL it answers at (with
    the port the system chose for ``--port 0``) and the log configuration for uvicorn."""
    from catalog.server.logs import json_log_config, text_log_config

    listening = listen(args.host, args.port)
    port: int = listening.getsockname()[1]
    logs = json_log_config() if args.format == "json" else text_log_config()
    logging.config.dictConfig(logs)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    return listening, f"http://{shown}:{port}", logs
