"""``catalog verify FILE``: does the installed catalog still match a lock file?"""

from __future__ import annotations

import argparse

from catalog.cli._common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    add_format,
    emit_json,
    emit_text,
    make_catalog_path,
)
from catalog.errors import NotFoundError
from catalog.io.lockfile import read_lock, verify, verify_report

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``verify`` command."""
    parser.description = (
        "Exit 0 when the installed catalog matches the lock byte for byte, 1 with "
        "one line per difference (changed or missing part, missing body file, different "
        "version installed, changed prompt), 2 when the lock file is malformed or the "
        "installed catalog cannot be loaded."
    )
    parser.add_argument("file", metavar="FILE")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Verify and report."""
    read = read_lock(args.file)
    lock = read.lock
    catalog, problems = verify(read, make_catalog_path(args))
    if catalog is None:
        # Nothing to compare with: bad input (a catalog not installed), not a mismatch.
        (missing,) = problems
        raise NotFoundError(
            missing.message,
            file=read.file,
            line=missing.line,
            hint="install the catalog, or add its folder with --path or CATALOG_PATH",
        )
    if args.format == "json":
        emit_json(verify_report(read, catalog, problems))
    else:
        out = emit_text
        for problem in problems:
            where = f"{read.file}:{problem.line}" if problem.line else read.file
            out(f"{where}: {problem.message}\n")
        label = f"{lock.catalog.name} {lock.catalog.version}"
        if problems:
            out(f"{read.file}: {label} does not match the lock: {len(problems)} difference(s)\n")
        else:
            out(
                f"{read.file}: {label} matches ({len(lock.parts)} parts, "
                f"{len(lock.prompt)} prompt(s))\n"
            )
    return EXIT_PROBLEMS if problems else EXIT_OK
