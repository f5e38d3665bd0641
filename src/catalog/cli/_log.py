"""``catalog log NAME PART``: every version where a part was added, changed, renamed
or removed."""

from __future__ import annotations

import argparse
import sys

from catalog.changes.history import KINDS, LogEntry
from catalog.cli._common import EXIT_OK, add_counter, add_format, emit_json
from catalog.cli._history import add_versions, history_of, holder_lines
from catalog.errors import UsageError
from catalog.text.visible import visible_line

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``log`` command."""
    parser.description = (
        "Every version where PART was added, changed, renamed or removed, oldest first, "
        "following its renames as `catalog diff` pairs them; each with the change as diff "
        "classifies it (prose, whitespace, placeholders, assembly, metadata; added, renamed, "
        "removed), its tokens and their delta. With --kind, every part of that kind together."
    )
    parser.add_argument("name", metavar="NAME", help="a catalog name")
    parser.add_argument("part", metavar="PART", nargs="?", help="a part id (any version's)")
    parser.add_argument("--kind", choices=KINDS, help="log every part of this kind")
    parser.add_argument(
        "--as-of",
        metavar="VERSION",
        help="the part that had the id PART in VERSION (a PEP 440 specifier; the newest "
        "version it selects), when the id was given to another part since (default: the "
        "part holding it in the newest version that has it)",
    )
    add_versions(parser, "list the changes made in these versions")
    add_counter(parser)
    add_format(parser, "json")
    parser.set_defaults(func=run)


def _line(entry: LogEntry, *, with_id: bool) -> str:
    renamed = ""
    if entry.old_id is not None:
        renamed = f"from {entry.old_id}" + (f" ({entry.text})" if entry.text else "")
    what = f"{entry.change:<13} {entry.id} {renamed}" if with_id else f"{entry.change} {renamed}"
    if entry.reused:
        what = f"{what.rstrip()} (an id an earlier part had)"
    delta = f"{entry.delta:+d}" if entry.delta else "0"
    return f"{entry.version:<12} {entry.tokens:>7} {delta:>7}  {what}".rstrip()


def run(args: argparse.Namespace) -> int:
    """Print the log; exit 0."""
    if args.part is None and args.kind is None:
        raise UsageError("name a PART, or a --kind of parts", hint="e.g. --kind reminder")
    history, _ = history_of(args, args.name, spec=False)
    found = history.log(
        args.part, kind=args.kind, versions=args.versions, counter=args.counter, as_of=args.as_of
    )
    if args.format == "json":
        emit_json(found.to_dict())
        return EXIT_OK
    what = args.part if args.part is not None else f"every part of kind {args.kind}"
    if args.part is not None and args.kind is not None:
        what += f" while of kind {args.kind}"
    count = len(found.entries)
    lines = [f"{history.name}: {what}: {count} change{'' if count == 1 else 's'}"]
    lines += holder_lines(
        args.part,
        found.holders,
        lambda holder: f"catalog log {history.name} {args.part} --as-of {holder.last}",
    )
    if count:
        part = " " * 8 + "part" if args.part is None else ""
        lines.append(f"{'version':<12} {'tokens':>7} {'delta':>7}  change{part}")
    lines.extend(_line(entry, with_id=args.part is None) for entry in found.entries)
    sys.stdout.write("".join(visible_line(line) + "\n" for line in lines))
    return EXIT_OK
