"""``catalog grep TEXT NAME``: which parts say TEXT, and in which versions."""

from __future__ import annotations

import argparse
import sys

from catalog.changes.history import KINDS, GrepMatch
from catalog.cli._common import EXIT_OK, EXIT_PROBLEMS, add_format, emit_json
from catalog.cli._history import add_versions, history_of
from catalog.text.visible import visible_line

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``grep`` command."""
    parser.description = (
        "The parts whose body holds TEXT (plain text, case-sensitive by default), each with "
        "the first and the last version holding it, how many versions do, and whether the "
        "newest version searched still does; parts followed through their renames. Exit 0 "
        "when some part holds it, 1 when none does."
    )
    parser.add_argument("text", metavar="TEXT", help="the text to look for")
    parser.add_argument("name", metavar="NAME", help="a catalog name")
    add_versions(parser, "search these versions")
    parser.add_argument("--kind", choices=KINDS, help="search the parts of this kind only")
    parser.add_argument(
        "-i", "--ignore-case", action="store_true", help="compare the text case-folded"
    )
    parser.add_argument(
        "--pattern",
        action="store_true",
        help="TEXT is a pattern: '*' stands for any run of characters within one line "
        "('\\*' for a star); matched in linear time, never as a regular expression",
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def _line(match: GrepMatch, newest: str) -> str:
    span = match.first if match.first == match.last else f"{match.first} .. {match.last}"
    count = len(match.versions)
    where = f"{span} ({count} version{'' if count == 1 else 's'})"
    state = f"still in {newest}" if match.in_newest else f"not in {newest}"
    also = [i for i in match.ids if i != match.part]
    named = f" (also as {', '.join(also)})" if also else ""
    return f"{match.part}{named}: {where}, {state}"


def run(args: argparse.Namespace) -> int:
    """Print the parts found; exit 0 when there are some, 1 when none."""
    history, _ = history_of(args, args.name, spec=False)
    found = history.grep(
        args.text,
        versions=args.versions,
        kind=args.kind,
        pattern=args.pattern,
        ignore_case=args.ignore_case,
    )
    if args.format == "json":
        emit_json(found.to_dict())
    else:
        lines = [_line(match, found.newest) for match in found.matches]
        count = len(found.matches)
        lines.append(
            f"{count} part{'' if count == 1 else 's'} of {history.name} in "
            f"{found.searched} version{'' if found.searched == 1 else 's'} searched"
        )
        sys.stdout.write("".join(visible_line(line) + "\n" for line in lines))
    return EXIT_OK if found.matches else EXIT_PROBLEMS
