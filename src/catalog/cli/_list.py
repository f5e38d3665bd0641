"""``catalog list``: every catalog found, its versions and summary."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from catalog.cli._common import EXIT_OK, EXIT_USAGE, add_format, emit_json, make_catalog_path
from catalog.cli._report import write_error
from catalog.cli._table import aligned
from catalog.errors import CatalogError
from catalog.text.visible import visible_line

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``list`` command."""
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List catalogs; reads the newest manifest of each for its summary, no bodies.

    A manifest that cannot be read does not hide the other catalogs: its row
    is listed without a summary, the error goes to stderr and the exit status is 2.
    """
    catalog_path = make_catalog_path(args)
    rows: list[dict[str, Any]] = []
    broken = []
    for name in catalog_path.names():
        try:
            refs = catalog_path.versions(name)
        except CatalogError as exc:  # two folders of one version
            broken.append(exc)
            continue
        if not refs:
            continue
        newest = refs[-1]
        try:
            summary = newest.manifest().catalog.summary
        except CatalogError as exc:
            broken.append(exc)
            summary = ""
        rows.append(
            {
                "name": name,
                "versions": [str(r.version) for r in refs],
                "newest": str(newest.version),
                "summary": summary,
                "source": newest.source,
            }
        )
    if args.format == "json":
        emit_json(rows)
    else:
        table = [
            [str(row["name"]), _versions(row["versions"]), str(row["summary"])] for row in rows
        ]
        for line in aligned(table):
            sys.stdout.write(visible_line(line) + "\n")
    for error in broken:
        write_error(error, as_json=args.format == "json")
    return EXIT_USAGE if broken else EXIT_OK


_SHOWN_VERSIONS = 6


def _versions(versions: list[str]) -> str:
    """The versions of a catalog, oldest first; a long history (an imported one holds
    hundreds) as its first and last two and the count, so the column stays readable."""
    if len(versions) <= _SHOWN_VERSIONS:
        return ", ".join(versions)
    return f"{', '.join(versions[:2])}, ..., {', '.join(versions[-2:])} ({len(versions)})"
