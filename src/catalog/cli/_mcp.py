"""``catalog mcp``: serve the catalogs' prompts over the Model Context Protocol."""

from __future__ import annotations

import argparse

from catalog.cli._common import EXIT_OK, add_format
from catalog.conversations.connect import default_store_url

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``mcp`` command."""
    parser.description = (
        "Serve every catalog's prompts over the Model Context Protocol, on standard input "
        "and output (how MCP clients start a server): one prompt per catalog and agent "
        "(NAME, NAME.AGENT) with arguments for the version or release label, the tools, "
        "the model and each variable, giving exactly the text of `catalog assemble`; part "
        "bodies as resources catalog://NAME/VERSION/PART. Install with: pip install "
        "'agent-prompt-catalog[mcp]'."
    )
    parser.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where release labels are read: sqlite:///FILE or postgresql://USER@HOST/DB "
        f"(default: {default_store_url()})",
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes the connection. Without the mcp extra, the import
    fails and the command says what to install (the registry's ``extra``)."""
    from catalog.mcp.library import PromptLibrary
    from catalog.mcp.server import build_server, serve_stdio

    library = PromptLibrary(args.path, store_url=args.store)
    try:
        serve_stdio(build_server(library))
    finally:
        library.close()
    return EXIT_OK
