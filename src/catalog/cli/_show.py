"""``catalog show NAME[@SPEC]``: a catalog version's agents, variables and parts."""

from __future__ import annotations

import argparse
import sys

from catalog.cli._common import EXIT_OK, add_format, emit_json, load_ref
from catalog.lang.values import to_json

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``show`` command."""
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the version's description."""
    cat = load_ref(args, args.ref)
    manifest = cat.manifest
    if args.format == "json":
        data = manifest.model_dump(mode="json", by_alias=True)
        data["location"] = cat.location
        data["source"] = cat.source
        emit_json(data)
        return EXIT_OK
    out = sys.stdout.write
    out(f"{cat.name} {cat.version}  {cat.summary}\n")
    out(f"from: {cat.location}\n")
    out(f"agents: {', '.join(cat.agents)}\n")
    if cat.slots:
        out(f"slots: {', '.join(cat.slots)}\n")
    for var in manifest.variable:
        default = to_json(var.effective_default())
        out(f"variable {var.name}: {var.type} = {default}  {var.description}\n")
    out(f"\n{'order':>5}  {'id':<28} {'kind':<8} {'stability':<9} {'tokens':>6}  agents / when\n")
    for part in cat.parts:
        decl = part.decl
        agents = ",".join(decl.agents)
        out(
            f"{decl.order:>5}  {decl.id:<28} {decl.kind:<8} {decl.stability:<9} "
            f"{decl.tokens:>6}  {agents} / {decl.when}\n"
        )
    return EXIT_OK
