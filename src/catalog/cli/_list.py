"""``catalog list``: every catalog found, its versions and summary."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from catalog.cli._common import EXIT_OK, add_format, emit_json, make_store


def register(subparsers: Any, parent: argparse.ArgumentParser) -> None:
    """Add the ``list`` command."""
    parser = subparsers.add_parser("list", parents=[parent], help="list catalogs and versions")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List catalogs; reads the newest manifest of each for its summary, no bodies."""
    store = make_store(args)
    rows = []
    for name in store.names():
        refs = store.versions(name)
        if not refs:
            continue
        newest = refs[-1]
        rows.append(
            {
                "name": name,
                "versions": [str(r.version) for r in refs],
                "newest": str(newest.version),
                "summary": newest.manifest().catalog.summary,
                "source": newest.source,
            }
        )
    if args.format == "json":
        emit_json(rows)
        return EXIT_OK
    for row in rows:
        versions = ", ".join(row["versions"])
        sys.stdout.write(f"{row['name']:<20} {versions:<24} {row['summary']}\n")
    return EXIT_OK
