"""``catalog stamp DIR...``: record bodies' sha256 and token counts in their manifests."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from catalog.cli._common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    add_format,
    emit_json,
    emit_text,
    make_catalog_path,
)
from catalog.io.stamp import stamp_folder

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``stamp`` command."""
    parser.description = (
        "After editing part bodies, record their new sha256 and token counts. "
        "Comments and layout of catalog.toml are kept. Parts with `from` take their body from "
        "the catalog's base, found like any catalog (--path, CATALOG_PATH...)."
    )
    parser.add_argument("folders", nargs="+", metavar="DIR", help="catalog version folders")
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 when a value would change",
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Stamp each folder and report what changed (a value not recorded before is "set")."""
    # Only overlays need a catalog path (for their base): build one lazily unless --path is given.
    catalog_path = make_catalog_path(args) if args.path else None
    changes = [
        {"folder": folder, **asdict(stamp)}
        for folder in args.folders
        for stamp in stamp_folder(folder, write=not args.check, catalog_path=catalog_path)
    ]
    if args.format == "json":
        emit_json({"check": args.check, "changed": len(changes), "changes": changes})
    else:
        for change in changes:
            what = f"{change['part']}.{change['key']}"
            if change["old"] is None:
                emit_text(f"{change['folder']}: {what}: set to {change['new']}\n")
            else:
                emit_text(f"{change['folder']}: {what}: {change['old']} -> {change['new']}\n")
        verb = "would change" if args.check else "changed"
        emit_text(f"{len(changes)} value(s) {verb}\n")
    return EXIT_PROBLEMS if args.check and changes else EXIT_OK
