"""The ``catalog`` command line.

Each command lives in its own module exposing ``register(subparsers, parent)``;
this module builds the parser, runs the command and turns every library
error into a one-paragraph message on stderr (never a traceback).

Exit codes: 0 success; 1 problems found (``validate``, a differing ``diff``,
a failed ``verify``); 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from catalog import __version__
from catalog.cli import (
    _assemble,
    _diff,
    _import,
    _list,
    _lock,
    _schema,
    _serve,
    _show,
    _stamp,
    _tokens,
    _validate,
    _variables,
    _verify,
)
from catalog.cli._common import EXIT_OK, EXIT_USAGE, common_parser
from catalog.errors import CatalogError

__all__ = ["build_parser", "main"]

_COMMANDS = (
    _list,
    _show,
    _assemble,
    _tokens,
    _variables,
    _diff,
    _lock,
    _verify,
    _validate,
    _schema,
    _stamp,
    _import,
    _serve,
)

_EPILOG = """\
exit status:
  0  success (diff: identical)
  1  problems found (validate, stamp --check), catalogs differ (diff), the
     installed catalog does not match the lock (verify)
  2  bad usage or bad input (unknown catalog or version, malformed manifest,
     context or lock file, a typo in a condition...)

Catalogs are found in this package, in packages registered under the entry
point group 'catalog.catalogs', in CATALOG_PATH and in --path folders."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for documentation and tests)."""
    parser = _Parser(
        prog="catalog",
        description="Assemble, inspect and check versioned prompt catalogs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    parent = common_parser()
    for module in _COMMANDS:
        module.register(subparsers, parent)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except CatalogError as exc:
        sys.stderr.write(f"catalog: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``catalog ... | head``): not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    return status
