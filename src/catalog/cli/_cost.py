"""``catalog cost NAME[@SPEC] --model ID``: what a prompt costs per conversation, cached or not."""

from __future__ import annotations

import argparse

from catalog.cli._common import (
    EXIT_OK,
    add_context_options,
    add_counter,
    add_format,
    add_price_options,
    context_from_args,
    emit_json,
    emit_text,
    load_ref,
    warn_notes,
)
from catalog.errors import UsageError
from catalog.review.economics import conversation_cost, split
from catalog.review.prices import load_prices
from catalog.review.report import cost_lines

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``cost`` command."""
    parser.description = (
        "Assemble like `catalog assemble` and work out what the prompt costs over one "
        "conversation of N turns on a model, with and without prompt caching: the cached "
        "prefix P (tools and the parts before the first turn part), the rest V, and "
        "p*(w*P + V + (N-1)*(r*P + V)) against N*(P+V)*p. Prices ship with the package "
        "(with their date and source); --prices gives your own. --model ID (required) "
        "names the model priced, and is the context's model (and env.model)."
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR")
    parser.add_argument("--agent", default="main", help="main (default) or a sub-agent's name")
    add_price_options(parser)
    add_context_options(parser)
    add_counter(parser)
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Assemble, work out both costs and print them."""
    model_id = args.model
    if not model_id:
        raise UsageError(
            "`catalog cost` needs --model ID, the model to price",
            hint="e.g. --model claude-sonnet-4-5; the prices list the models there are",
        )
    prices = load_prices(args.prices)
    model = prices.model(model_id)
    cat = load_ref(args, args.ref)
    if args.agent not in cat.agents:
        raise UsageError(
            f"{cat.name} {cat.version} has no agent {args.agent!r}",
            hint=f"agents: {', '.join(cat.agents)}",
        )
    context = context_from_args(args, cat)  # --model sets the context's model and env.model
    prompt = cat.assemble(context, agent=args.agent, counter=args.counter)
    warn_notes(args, prompt.notes)
    cost = conversation_cost(split(prompt), model, turns=args.turns, ttl=args.ttl)
    if args.format == "json":
        emit_json(
            {
                "catalog": prompt.catalog,
                "version": prompt.version,
                "agent": prompt.agent,
                "counter": prompt.counter,
                "prices_taken": prices.taken,
                "prices_sources": list(prices.urls),
                **cost.to_dict(),
            }
        )
        return EXIT_OK
    head = f"{prompt.catalog} {prompt.version}, agent {prompt.agent} ({prompt.counter} tokens)"
    source = f"prices of {prices.taken} from {', '.join(prices.urls) or ', '.join(prices.files)}"
    emit_text("\n".join([head, *cost_lines(cost), source]) + "\n")
    return EXIT_OK
