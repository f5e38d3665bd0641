"""``catalog assemble NAME[@SPEC]``: print the prompt an agent would get."""

from __future__ import annotations

import argparse
import sys

from catalog.cli._common import (
    EXIT_OK,
    add_context_options,
    add_counter,
    add_format,
    gathering_from_args,
    load_ref,
    warn_notes,
)
from catalog.engine.prompt import check_prompt_size
from catalog.lang.placeholders import written_as
from catalog.text.visible import json_visible, visible

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``assemble`` command."""
    parser.description = (
        "Print the assembled system prompt. With --explain, a table of every part "
        "(in or out, why, tokens) goes to stderr, so stdout stays the prompt alone; with "
        "--from-dir, followed by the gathered files (where each came from, what was cut)."
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR")
    parser.add_argument("--agent", default="main", help="main (default) or a sub-agent's name")
    add_context_options(parser)
    add_format(parser, "json")
    parser.add_argument(
        "--explain", action="store_true", help="say why each part is in or out and what it costs"
    )
    add_counter(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Assemble and print."""
    cat = load_ref(args, args.ref)
    context, gathering = gathering_from_args(args, cat)
    prompt = cat.assemble(context, agent=args.agent, counter=args.counter)
    check_prompt_size(
        prompt.text,
        hint=f"`catalog tokens {cat.name}@{cat.version}` shows where the size goes; leave parts "
        "out with the context where the catalog's conditions read it (--tools, --set, "
        "--agent), else with an overlay",
    )
    if args.format == "json":
        sys.stdout.write(json_visible(prompt.to_json()) + "\n")
    else:
        sys.stdout.write(prompt.text + "\n")
    if args.explain:
        # A report for a person, hidden characters shown; stdout keeps the exact prompt.
        sys.stderr.write(visible(prompt.explain()) + "\n")
        used = {p.id for p in prompt.parts} | {t.part_id for t in prompt.tools}
        unbound = cat.unbound_placeholders(used)
        for name, ids in unbound.items():
            forms = dict.fromkeys(
                written_as(name, cat.part(i).decl.placeholder_syntax) for i in ids
            )
            sys.stderr.write(
                f"  ? {' '.join(forms)} left as written (not in [placeholders]): {', '.join(ids)}\n"
            )
        if gathering is not None:
            sys.stderr.write(gathering.tree() + "\n")
    else:
        warn_notes(args, prompt.notes)
    return EXIT_OK
