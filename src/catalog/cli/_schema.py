"""``catalog schema manifest|context``: JSON Schema for editors."""

from __future__ import annotations

import argparse
from typing import Any

from catalog.cli._common import EXIT_OK, emit_json
from catalog.context import Context
from catalog.manifest.models import Manifest

__all__ = ["register", "run"]

_MODELS: dict[str, Any] = {"manifest": Manifest, "context": Context}


def register(subparsers: Any, parent: argparse.ArgumentParser) -> None:
    """Add the ``schema`` command."""
    parser = subparsers.add_parser(
        "schema", parents=[parent], help="print the JSON Schema of a manifest or a context"
    )
    parser.add_argument("which", choices=sorted(_MODELS), help="which schema")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    schema = _MODELS[args.which].model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    emit_json(schema)
    return EXIT_OK
