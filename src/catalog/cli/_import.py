"""``catalog import piebald``: turn Claude Code's published prompt parts into a catalog."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from catalog.cli._common import EXIT_OK, add_format, emit_json, emit_text
from catalog.cli._formatters import RawHelpFormatter
from catalog.importers.piebald.parse import UPSTREAM
from catalog.importers.piebald.read import read_checkout, read_history
from catalog.importers.piebald.write import ImportedVersion, import_releases

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
    piebald.add_argument(
        "--force",
        action="store_true",
        help="replace versions that exist with other content, and a NAME/LICENSE file "
        "with another text",
    )
    # Unset unless given here, so that a --format given before `piebald` holds.
    piebald.add_argument(
        "--format", choices=("text", "json"), default=argparse.SUPPRESS, help="output format"
    )
    piebald.set_defaults(func=run, parser=piebald)


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
        on_version=None if as_json else _print_version,
    )
    size = report.size
    if as_json:
        emit_json(
            {
                "name": args.name,
                "folder": str(report.folder),
                "versions": [asdict(item) for item in report.versions],
                "bodies": {
                    "distinct": report.distinct_bodies,
                    "stored_bytes": report.shared_bytes,
                    "per_version_bytes": report.unshared_bytes,
                },
                "size": asdict(size),
            }
        )
        return EXIT_OK
    emit_text(
        f"{args.name}: {len(report.versions)} version(s) imported into {report.folder}\n"
        f"bodies of these versions: {report.distinct_bodies} distinct taking "
        f"{_bytes(report.shared_bytes)} stored once each, against "
        f"{_bytes(report.unshared_bytes)} with a copy per version\n"
        f"store: {size.versions} version(s), {_bytes(size.total_bytes)} on disk "
        f"({_bytes(size.manifest_bytes)} of manifests, {size.parts_files} parts files in _parts "
        f"taking {_bytes(size.parts_bytes)}, {size.blobs} bodies in _blobs taking "
        f"{_bytes(size.blob_bytes)})\n"
    )
    return EXIT_OK


def _print_version(item: ImportedVersion) -> None:
    emit_text(
        f"{item.version:<12} {item.parts:>5} parts {item.new_bodies:>5} new bodies  {item.status}\n"
    )


def _bytes(count: int) -> str:
    if count < 1000:
        return f"{count} B"
    if count < 1_000_000:
        return f"{count / 1000:.1f} kB"
    return f"{count / 1_000_000:.1f} MB"
