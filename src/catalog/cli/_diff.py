"""``catalog diff A B``: what changed between two catalog versions."""

from __future__ import annotations

import argparse
import os
import sys

from catalog.changes.compute import diff
from catalog.changes.render import render_html, render_json, render_markdown, render_text
from catalog.cli._common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    add_context_options,
    add_counter,
    add_format,
    context_from_args,
    context_requested,
    load_ref,
    write_output,
)

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``diff`` command."""
    parser.description = (
        "Compare catalog version A with B: parts added, removed, renamed (same or nearly the "
        "same body under a new id), changed (prose, whitespace only, placeholders only, "
        "assembly keys, metadata only; with a unified diff of the body), moved, with changed "
        "conditions, agents, stability or slot, and token deltas. With --context, --tools, "
        "--set or --agent, also diff the two assembled prompts. Exit 0 identical, 1 different, "
        "2 trouble."
    )
    parser.add_argument("old", metavar="A", help="NAME@VERSION or a version folder")
    parser.add_argument("new", metavar="B", help="NAME@VERSION or a version folder")
    parser.add_argument(
        "--agent", default=None, help="diff the prompts assembled for this agent (default main)"
    )
    add_context_options(parser)
    add_counter(parser)
    add_format(parser, "markdown", "json", "html")
    parser.add_argument(
        "--all",
        action="store_true",
        dest="all_changes",
        help="text and markdown: list every changed part, also those changed only in "
        "whitespace, inside ${...} placeholders or in metadata (counted on one line otherwise)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.set_defaults(func=run)


def _use_color(args: argparse.Namespace) -> bool:
    if args.color != "auto":
        return bool(args.color == "always")
    if args.output or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def run(args: argparse.Namespace) -> int:
    """Diff and print; exit 0 when identical, 1 when different."""
    old = load_ref(args, args.old)
    new = load_ref(args, args.new)
    wants_prompt = bool(args.agent) or context_requested(args)
    context = context_from_args(args, new, old) if wants_prompt else None
    result = diff(old, new, context=context, agent=args.agent, counter=args.counter)
    if args.format == "json":
        text = render_json(result) + "\n"
    elif args.format == "markdown":
        text = render_markdown(result, all_changes=args.all_changes)
    elif args.format == "html":
        text = render_html(result)
    else:
        text = render_text(result, color=_use_color(args), all_changes=args.all_changes)
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK if result.identical else EXIT_PROBLEMS
