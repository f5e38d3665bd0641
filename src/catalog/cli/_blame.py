"""``catalog blame NAME@VERSION PART``: each line of a part with the version it dates from."""

from __future__ import annotations

import argparse
import sys

from catalog.cli._common import EXIT_OK, add_format, emit_json
from catalog.cli._history import history_of, holder_lines
from catalog.text.visible import visible_line

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``blame`` command."""
    parser.description = (
        "Each line of PART's body in VERSION (default: the newest) with the version that "
        "last introduced it: the earliest version from which the line is present in every "
        "version up to VERSION, following the part's renames (the k-th copy of a repeated "
        "line: present at least k times)."
    )
    parser.add_argument("ref", metavar="NAME[@VERSION]", help="a catalog name and version")
    parser.add_argument("part", metavar="PART", help="a part id of that version")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the blamed lines; exit 0."""
    history, spec = history_of(args, args.ref, spec=True)
    found = history.blame(args.part, spec)
    if args.format == "json":
        emit_json(found.to_dict())
        return EXIT_OK
    width = max((len(line.version) for line in found.lines), default=0)
    digits = len(str(len(found.lines)))
    held = holder_lines(
        args.part,
        found.holders,
        lambda holder: f"catalog blame {history.name}@=={holder.last} {args.part}",
    )
    sys.stdout.write(
        "".join(visible_line(line) + "\n" for line in held)
        + "".join(
            f"{line.version:<{width}} {line.line:>{digits}}  {visible_line(line.text)}\n"
            for line in found.lines
        )
    )
    return EXIT_OK
