"""``catalog lock NAME[@SPEC]``: write a lock file pinning a version byte for byte.

``catalog lock --update FILE`` locks again, keeping the prompts the lock
already pins (each context, with its data, and agent) and writing the lock
back to ``FILE``: the way to accept a reviewed change of the catalog.

``--agent`` without ``--context`` pins each agent's prompt for an empty
context: naming agents never writes a lock that pins no prompt.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from catalog.cli._common import (
    EXIT_OK,
    add_format,
    emit_json,
    load_ref,
    write_output,
)
from catalog.engine.catalog import Catalog
from catalog.errors import UsageError
from catalog.io.contexts import load_context
from catalog.io.lockfile import dump_lock, make_lock, read_lock
from catalog.schema.lock import LockedPrompt

__all__ = ["EMPTY_CONTEXT", "register", "run"]

EMPTY_CONTEXT = "(empty context)"
"""The label of a prompt pinned for ``--agent`` without ``--context``."""


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``lock`` command."""
    parser.description = (
        "Write a TOML lock file naming the catalog and its exact version, the "
        "sha256 of every part body and of the manifest, and for each --context the "
        "fingerprint of the assembled prompt (the context is embedded). Check it later with "
        "`catalog verify FILE`, or load with catalog.load(..., lock=FILE)."
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR", nargs="?")
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
        help="record the prompt of this agent for each context (default main), or for an "
        "empty context when no --context is given; repeatable",
    )
    parser.add_argument(
        "--update",
        metavar="FILE",
        help="lock again the prompts FILE pins (its contexts and agents), plus any --context, "
        "and write the result to FILE (or to -o); NAME[@SPEC] defaults to FILE's catalog",
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the lock and write it (TOML; ``--format json`` prints the same data as JSON)."""
    previous = read_lock(args.update).lock if args.update else None
    ref = args.ref or (previous.catalog.name if previous else None)
    if ref is None:
        raise UsageError(
            "catalog lock needs a catalog", hint="give NAME[@SPEC] or a folder, or --update FILE"
        )
    cat = load_ref(args, ref)
    _check_agents(cat, args.agent)
    contexts: list[tuple[str, Any]] = [(path, load_context(path)) for path in args.context]
    if args.agent and not contexts:
        # An agent named to pin, but no context: its prompt for an empty context.
        contexts = [(EMPTY_CONTEXT, {})]
    lock = make_lock(cat, contexts, agents=args.agent or ["main"])
    if previous is not None:
        # A prompt locked again now replaces the one the file pinned for it.
        fresh = {(prompt.context, prompt.agent) for prompt in lock.prompt}
        kept = tuple(
            _relock(cat, prompt)
            for prompt in previous.prompt
            if (prompt.context, prompt.agent) not in fresh
        )
        lock = lock.model_copy(update={"prompt": kept + lock.prompt})
    output = args.output or args.update
    if output:
        write_output(output, dump_lock(lock))
        sys.stderr.write(f"locked {cat.name} {cat.version} in {output}\n")
    if args.format == "json":
        emit_json({"file": output, **lock.model_dump(mode="json")})
    elif not output:
        sys.stdout.write(dump_lock(lock))
    return EXIT_OK


def _check_agents(cat: Catalog, agents: list[str]) -> None:
    """Refuse an agent the catalog does not have, before anything is written."""
    for agent in agents:
        cat.plan(agent)  # raises the catalog's own "has no agent" error


def _relock(cat: Catalog, prompt: LockedPrompt) -> LockedPrompt:
    """``prompt`` (context label, agent, data) assembled again from ``cat``."""
    _check_agents(cat, [prompt.agent])
    (fresh,) = make_lock(cat, [(prompt.context, prompt.data)], agents=[prompt.agent]).prompt
    return fresh
