"""``catalog stamp DIR...``: record bodies' sha256 and token counts in their manifests."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from catalog.cli._common import EXIT_OK, EXIT_PROBLEMS, make_store
from catalog.stamp import stamp_folder

__all__ = ["register", "run"]


def register(subparsers: Any, parent: argparse.ArgumentParser) -> None:
    """Add the ``stamp`` command."""
    parser = subparsers.add_parser(
        "stamp",
        parents=[parent],
        help="rewrite the sha256 and tokens of every part in version folders",
        description="After editing part bodies, record their new sha256 and token counts. "
        "Comments and layout of catalog.toml are kept. Parts with `from` take their body from "
        "the catalog's base, found like any catalog (--path, CATALOG_PATH...).",
    )
    parser.add_argument("folders", nargs="+", metavar="DIR", help="catalog version folders")
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 when a value would change",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Stamp each folder and report what changed."""
    changed = 0
    # Only overlays need a store (for their base): build one lazily unless --path is given.
    store = make_store(args) if args.path else None
    for folder in args.folders:
        for stamp in stamp_folder(folder, write=not args.check, store=store):
            changed += 1
            sys.stdout.write(f"{folder}: {stamp.part}.{stamp.key}: {stamp.old} -> {stamp.new}\n")
    verb = "would change" if args.check else "changed"
    sys.stdout.write(f"{changed} value(s) {verb}\n")
    return EXIT_PROBLEMS if args.check and changed else EXIT_OK
