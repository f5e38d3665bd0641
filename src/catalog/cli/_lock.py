"""``catalog lock NAME[@SPEC]``: write a lock file pinning a version byte for byte."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from catalog.cli._common import EXIT_OK, load_ref, write_output
from catalog.context import load_context
from catalog.lock import dump_lock, make_lock

__all__ = ["register", "run"]


def register(subparsers: Any, parent: argparse.ArgumentParser) -> None:
    """Add the ``lock`` command."""
    parser = subparsers.add_parser(
        "lock",
        parents=[parent],
        help="write a lock file: exact version, part hashes, prompt fingerprints",
        description="Write a TOML lock file naming the catalog and its exact version, the "
        "sha256 of every part body and of the manifest, and for each --context the "
        "fingerprint of the assembled prompt (the context is embedded). Check it later with "
        "`catalog verify FILE`, or load with catalog.load(..., lock=FILE).",
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    parser.add_argument(
        "--context",
        action="append",
        default=[],
        metavar="FILE",
        help="a context file (.toml or .json) whose prompt fingerprint to record; repeatable",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME",
        help="record the prompt of this agent for each context (default main); repeatable",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the lock and write it."""
    cat = load_ref(args, args.ref)
    contexts = [(path, load_context(path)) for path in args.context]
    text = dump_lock(make_lock(cat, contexts, agents=args.agent or ["main"]))
    if args.output:
        write_output(args.output, text)
        sys.stderr.write(f"locked {cat.name} {cat.version} in {args.output}\n")
    else:
        sys.stdout.write(text)
    return EXIT_OK
