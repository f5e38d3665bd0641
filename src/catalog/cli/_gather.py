"""``catalog gather NAME[@SPEC]``: what an agent would load from a folder, and from where."""

from __future__ import annotations

import argparse

from catalog.cli._common import (
    EXIT_OK,
    add_context_options,
    add_format,
    emit_json,
    emit_text,
    gathering_from_args,
    load_ref,
)

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``gather`` command."""
    parser.description = (
        "Gather the context the catalog's [sources] table declares (from the current folder "
        "unless --from-dir says otherwise) and print it: as JSON (the context, every file "
        "looked at with its source, import chain, bytes and what was cut or left out, and "
        "the notes), or as a readable tree. Warnings also go to stderr."
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR")
    add_context_options(parser)
    add_format(parser, "json")
    parser.set_defaults(func=run, from_dir=".")


def run(args: argparse.Namespace) -> int:
    """Gather and print the context with its provenance."""
    cat = load_ref(args, args.ref)
    _, gathering = gathering_from_args(args, cat)
    assert gathering is not None  # --from-dir always has a value here
    if args.format == "json":
        emit_json(gathering.to_dict())
    else:
        emit_text(f"{cat.name} {cat.version}: {gathering.tree()}\n")
    return EXIT_OK
