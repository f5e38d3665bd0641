"""``catalog schema manifest|context``: JSON Schema for editors."""

from __future__ import annotations

import argparse
from typing import Any

from catalog.cli._common import EXIT_OK, add_format, emit_json
from catalog.errors import UsageError
from catalog.schema.context import Context
from catalog.schema.manifest import Manifest

__all__ = ["register", "run"]

_MODELS: dict[str, Any] = {"manifest": Manifest, "context": Context}
_WHAT = {
    "manifest": "a catalog.toml (point your editor's TOML schema setting at it)",
    "context": "a context file given with --context (.toml or .json)",
}


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``schema`` command."""
    parser.description = "Print the JSON Schema of " + "; or of ".join(
        f"{name}: {what}" for name, what in _WHAT.items()
    )
    parser.add_argument(
        "which",
        nargs="?",
        choices=sorted(_MODELS),
        metavar="manifest|context",
        help="which schema: manifest or context",
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema (JSON whatever the format: a schema is JSON)."""
    if args.which is None:
        raise UsageError(
            "catalog schema needs to know which schema to print",
            hint="; ".join(f"`catalog schema {name}` for {what}" for name, what in _WHAT.items()),
        )
    schema = _MODELS[args.which].model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    emit_json(schema)
    return EXIT_OK
