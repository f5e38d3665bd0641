"""``catalog mcp``: serve the catalogs' prompts over the Model Context Protocol."""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING, Any

from catalog.cli._common import EXIT_OK, add_format
from catalog.cli._listening import add_listening_options, checked_token, start_listening
from catalog.conversations.connect import default_store_url
from catalog.io.catalog_path import CatalogPath

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``mcp`` command."""
    parser.description = (
        "Serve every catalog's prompts over the Model Context Protocol, on standard input "
        "and output (how MCP clients start a server), or with --http over streamable HTTP "
        "at /mcp: one prompt per catalog and agent (NAME, NAME.AGENT) with arguments for "
        "the version or release label, the tools, the model and each variable, giving "
        "exactly the text of `catalog assemble`; part bodies as resources "
        "catalog://NAME/VERSION/PART. Install with: pip install 'agent-prompt-catalog[mcp]'."
    )
    parser.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where release labels are read: sqlite:///FILE or postgresql://USER@HOST/DB "
        f"(default: {default_store_url()})",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve over streamable HTTP at /mcp instead of standard input and output",
    )
    add_listening_options(parser, needed_for="every request over --http")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes the connection (stdio) or until interrupted (HTTP)."""
    # Imported here: the SDK comes with the mcp extra (the registry names it when missing).
    from catalog.mcp.library import PromptLibrary
    from catalog.mcp.server import build_server, serve_stdio

    token = checked_token(args) if args.http else None
    CatalogPath(args.path)  # a --path that is no folder fails now, not at the first request
    library = PromptLibrary(args.path, store_url=args.store)
    try:
        if args.http:
            _serve_http(args, build_server(library), token)
        else:
            serve_stdio(build_server(library))
    finally:
        library.close()
    return EXIT_OK


def _serve_http(args: argparse.Namespace, server: Server[Any], token: str | None) -> None:
    """Take the port, say where the server listens, and answer HTTP until interrupted."""
    from catalog.mcp.http import PATH, http_app, serve_http

    listening, url, logs = start_listening(args, token=token)
    logging.getLogger("catalog.server").info(
        "serving MCP on %s%s (press CTRL+C to quit)", url, PATH
    )
    with listening:
        port = listening.getsockname()[1]
        app = http_app(server, host=args.host, port=port, token=token)
        serve_http(app, listening, logs)
