"""``catalog import``: turn prompts published elsewhere into a catalog (``piebald``: Claude
Code's prompt parts; ``git``: any repository's prompt files, release by release)."""

from __future__ import annotations

import argparse

from catalog.cli import _import_git
from catalog.cli._common import EXIT_OK, add_format, emit_json, emit_text
from catalog.cli._formatters import RawHelpFormatter
from catalog.cli._import_report import (
    add_shared_options,
    print_version,
    summary_json,
    summary_text,
)
from catalog.importers.piebald.parse import UPSTREAM
from catalog.importers.piebald.read import read_checkout, read_history
from catalog.importers.piebald.write import import_releases

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``import`` command and its source formats (``--path`` means nothing here).

    ``--format`` is taken after ``import`` and after the source format alike.
    """
    parser.description = "Write catalog versions from prompt collections published elsewhere."
    add_format(parser, "json")
    formats = parser.add_subparsers(dest="source_format", metavar="FORMAT", required=True)
    piebald = formats.add_parser(
        "piebald",
        help=f"Claude Code's prompt parts as published by {UPSTREAM}",
        description=f"Import {UPSTREAM}: a checkout SRC as one catalog version (the release "
        "its README names), or with --git every release commit of a clone (subjects like "
        "'v2.1.37 (+0 tokens)'), one version each. Parts are raw text (template = false) with "
        "the upstream name, ccVersion, variables, agent metadata, token count and the body's "
        "${...} placeholders in meta; "
        "bodies are stored once under NAME/_blobs/. The repository is read without running "
        "git or anything it configures. Exit 0 on success, 2 on bad input.",
        formatter_class=RawHelpFormatter,
    )
    piebald.add_argument("src", nargs="?", metavar="SRC", help="a checkout of the repository")
    piebald.add_argument("--git", metavar="REPO", help="a clone: import every release commit")
    piebald.add_argument("--name", required=True, help="the catalog name, e.g. claude-code")
    piebald.add_argument(
        "--out",
        metavar="DIR",
        help="where catalogs are written (DIR/NAME/VERSION/); default '.' for SRC, "
        "required with --git",
    )
    piebald.add_argument("--version", help="with SRC: the release, when its README names none")
    piebald.add_argument(
        "--versions",
        metavar="SPEC",
        help="with --git: only releases matching this PEP 440 specifier, e.g. '>=2.1.30'",
    )
    add_shared_options(piebald)
    piebald.set_defaults(func=run, parser=piebald)
    _import_git.register(formats)


def run(args: argparse.Namespace) -> int:
    """Import, print a line per version and the summary (``--format json``: the summary)."""
    parser: argparse.ArgumentParser = args.parser
    if (args.src is None) == (args.git is None):
        parser.error("give either SRC (a checkout) or --git REPO (a clone), not both")
    if args.git is not None:
        if args.version is not None:
            parser.error("--version is for SRC; with --git each release names its own")
        if args.out is None:
            parser.error("--out DIR is required with --git")
        releases = read_history(args.git, args.versions)
    else:
        if args.versions is not None:
            parser.error("--versions is for --git; SRC holds one release")
        releases = iter([read_checkout(args.src, args.version)])
    as_json = args.format == "json"
    report = import_releases(
        releases,
        name=args.name,
        out=args.out or ".",
        force=args.force,
        on_version=None if as_json else print_version,
    )
    if as_json:
        emit_json(summary_json(args.name, report))
    else:
        emit_text(summary_text(args.name, report))
    return EXIT_OK
