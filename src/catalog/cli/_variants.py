"""``catalog variants NAME[@SPEC] --by model --model ID...``: which part of each group of
alternatives each model gets, release by release, and where a variant drifted."""

from __future__ import annotations

import argparse

from catalog.changes.variants import Variants, variants
from catalog.cli._common import EXIT_OK, add_format, emit_json, emit_text, make_catalog_path
from catalog.cli._table import aligned
from catalog.io.catalog_path import parse_ref
from catalog.io.contexts import load_context
from catalog.schema.manifest import MAIN_AGENT

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``variants`` command."""
    parser.description = (
        "For each version SPEC selects (default: every final release), which part of each "
        "group of alternatives each --model gets; and, between consecutive versions, each "
        "group where some parts changed (their text or condition) while the others did not."
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]", help="a catalog and a range of versions")
    parser.add_argument(
        "--by",
        choices=("model",),
        default="model",
        help="the context field the values are for (default: model)",
    )
    parser.add_argument(
        "--model",
        dest="values",
        action="append",
        default=[],
        metavar="ID",
        help="a model id to assemble for; repeatable",
    )
    parser.add_argument("--agent", default=MAIN_AGENT, help="the agent (default: main)")
    parser.add_argument(
        "--context", metavar="FILE", help="a context file for the other fields (.toml or .json)"
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the variants and the drift; exit 0."""
    name, spec = parse_ref(args.ref)
    refs = make_catalog_path(args).select(name, spec)
    context = {}
    if args.context:
        context = load_context(args.context).model_dump(exclude_defaults=True)
    found = variants(
        [ref.load() for ref in refs],
        args.values,
        by=args.by,
        agent=args.agent,
        context=context,
    )
    if args.format == "json":
        emit_json(found.to_dict())
    else:
        emit_text("".join(line + "\n" for line in report(found)))
    return EXIT_OK


def report(found: Variants) -> list[str]:
    """The variants as text: a header, a table of each version's groups by value, then
    the drift."""
    count = len(found.versions)
    lines = [
        f"{found.catalog}: the part of each group each {found.by} gets (agent {found.agent}), "
        f"{count} version{'' if count == 1 else 's'}"
    ]
    if found.rows:
        head = ["version", "group", *found.values]
        body = [[row.version, row.group, *(t or "-" for t in row.taken)] for row in found.rows]
        lines += aligned([head, *body])
    elif not found.values:
        lines.append(f"no --{found.by} given: drift only")
    else:
        lines.append("no group of alternatives in these versions")
    if count < 2:
        return lines
    if not found.drift:
        lines.append("no drift: no part of a group changed without the others")
        return lines
    lines.append("drift: parts of a group that changed while the others did not")
    lines += aligned(
        [
            [
                drift.version,
                drift.group,
                ", ".join(f"{part} ({change})" for part, change in drift.changed)
                + f" changed since {drift.previous}; not {', '.join(drift.unchanged)}",
            ]
            for drift in found.drift
        ]
    )
    return lines
