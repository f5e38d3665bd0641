"""What every command shares and ``catalog --help`` needs: the exit statuses and the
global options (``--path``, ``--color``, ``--format``, ``--counter``).

Kept apart from :mod:`catalog.cli._common` (loading catalogs, building contexts) so
that building the top-level parser loads neither the engine nor pydantic.
"""

from __future__ import annotations

import argparse

from catalog.errors import UsageError

__all__ = [
    "ALL_FORMATS",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
    "add_counter",
    "add_format",
    "common_parser",
    "resolve_globals",
]

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
"""A failure the command did not foresee (a bug): one message, never a traceback."""

ALL_FORMATS = ("text", "json", "markdown", "html")


def common_parser(
    parser: argparse.ArgumentParser, *, prefix: str = "", help_: str | None = None
) -> argparse.ArgumentParser:
    """Add the options every command takes (``--path``, ``--color``) to ``parser``.

    The top-level parser gets them too, with ``prefix`` on their names in
    the namespace and ``--format`` besides, so that they may come before the
    command; :func:`resolve_globals` joins both places.
    """
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        dest=f"{prefix}path",
        metavar="DIR",
        help=help_
        or "a folder of catalogs (<DIR>/<name>/<version>/catalog.toml); repeatable; "
        "searched before CATALOG_PATH, installed packages and the bundled catalogs",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default=None,
        dest=f"{prefix}color",
        help=help_
        or "colour text output: auto (a terminal, unless NO_COLOR is set), always, never",
    )
    if prefix:
        parser.add_argument(
            "--format", choices=ALL_FORMATS, default=None, dest=f"{prefix}format", help=help_
        )
    return parser


def resolve_globals(args: argparse.Namespace) -> None:
    """Join the global options given before the command with those given after it.

    ``--path`` folders before the command come first; a ``--format`` or
    ``--color`` after the command wins over one before it. A format the
    command does not write is a usage error naming those it does.
    """
    args.path = [*getattr(args, "global_path", []), *args.path]
    args.color = args.color or getattr(args, "global_color", None) or "auto"
    chosen = args.format or getattr(args, "global_format", None) or "text"
    if chosen not in args.format_choices:
        raise UsageError(
            f"--format {chosen}: `catalog {args.command}` writes "
            f"{' or '.join(args.format_choices)}",
            hint=f"use --format {args.format_choices[-1]}",
        )
    args.format = chosen


def add_format(parser: argparse.ArgumentParser, *choices: str) -> None:
    """Add ``--format`` with ``text`` first (the default) and ``json`` among ``choices``."""
    formats = ("text", *choices)
    parser.add_argument("--format", choices=formats, default=None, help="output format")
    parser.set_defaults(format_choices=formats)


def add_counter(parser: argparse.ArgumentParser) -> None:
    """Add ``--counter``: how token figures are counted."""
    parser.add_argument(
        "--counter",
        default=None,
        help="token counter: 'chars' (length/4), 'claude' (an offline estimate of "
        "Anthropic's count) or a tiktoken encoding available offline (cl100k_base); "
        "default: the catalog's tokenizer",
    )
