"""``catalog serve``: run the HTTP server (JSON API, dispatch's routes, web UI)."""

from __future__ import annotations

import argparse
import os

from catalog.cli._common import EXIT_OK, add_format
from catalog.conversations.connect import default_store_url, open_store
from catalog.errors import UsageError
from catalog.io.catalog_path import CatalogPath
from catalog.server.logs import json_log_config
from catalog.server.state import LOOPBACK, ServerSettings

__all__ = ["TOKEN_ENV", "register", "run"]

TOKEN_ENV = "CATALOG_SERVE_TOKEN"


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve`` command."""
    parser.description = (
        "Serve the catalogs' JSON API (described at /openapi.json), dispatch's "
        "/system-prompt routes, per-conversation prompts under /conversations and the web "
        "UI. Binds to 127.0.0.1; any other address needs --token, and then every write "
        "needs `Authorization: Bearer TOKEN`. Install with: "
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
    parser.add_argument(
        "--token",
        default=None,
        help=f"the token writes need (default: ${TOKEN_ENV}); required off loopback",
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
    """Check the options, then serve until interrupted."""
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if args.host not in LOOPBACK and token is None:
        raise UsageError(
            f"binding to {args.host} exposes the server to other machines",
            hint=f"give --token TOKEN (or set {TOKEN_ENV}) so that writes need it, or bind "
            "to 127.0.0.1",
        )
    if not 0 <= args.port <= 65535:
        raise UsageError(f"port {args.port} is out of range", hint="give a port from 1 to 65535")
    try:
        import uvicorn

        from catalog.server.app import create_app
    except ImportError as exc:
        raise UsageError(
            f"catalog serve needs the serve extra ({exc.name} is not installed)",
            hint="pip install 'agent-prompt-catalog[serve]'",
        ) from None
    store_url = args.store or default_store_url()
    if not store_url.startswith(("postgresql://", "postgres://")):
        # A bad URL or an unwritable file fails now, not at the first request; a database
        # server may be down at start (reads then serve the defaults).
        open_store(store_url).close()
    CatalogPath(args.path)  # a --path that is no folder fails now too
    settings = ServerSettings(
        paths=tuple(args.path),
        store_url=store_url,
        token=token,
        template_catalog=args.template_catalog,
        host=args.host,
    )
    # With --format json the log is JSON lines; otherwise uvicorn's own text.
    logs = json_log_config() if args.format == "json" else uvicorn.config.LOGGING_CONFIG
    uvicorn.run(
        create_app(settings), host=args.host, port=args.port, log_level="info", log_config=logs
    )
    return EXIT_OK
