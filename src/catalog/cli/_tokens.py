"""``catalog tokens NAME[@SPEC]``: where an assembled prompt's tokens go."""

from __future__ import annotations

import argparse
import sys

from catalog.cli._common import (
    EXIT_OK,
    add_context_options,
    add_counter,
    add_format,
    context_from_args,
    emit_json,
    emit_text,
    load_ref,
    warn_notes,
)
from catalog.engine.prompt import AssembledPrompt, share_of

__all__ = ["register", "run", "table"]

_BAR_WIDTH = 32
_EIGHTHS = " ▏▎▍▌▋▊▉█"


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``tokens`` command."""
    parser.description = (
        "Assemble like `catalog assemble` and print one row per part, in prompt "
        "order, with its tokens, its share of the total and a bar scaled to the largest part; "
        "then the tool descriptions and any part dropped to fit the token budget."
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR")
    parser.add_argument("--agent", default="main", help="main (default) or a sub-agent's name")
    add_context_options(parser)
    add_counter(parser)
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Assemble and print the table."""
    cat = load_ref(args, args.ref)
    prompt = cat.assemble(context_from_args(args, cat), agent=args.agent, counter=args.counter)
    warn_notes(args, prompt.notes)
    if args.format == "json":
        emit_json(prompt.token_report())
    else:
        unicode = (sys.stdout.encoding or "").lower().replace("-", "") in ("utf8", "utf16")
        emit_text(table(prompt, unicode=unicode))
    return EXIT_OK


def _bar(tokens: int, largest: int, unicode: bool) -> str:
    if not largest:
        return ""
    eighths = round(_BAR_WIDTH * 8 * tokens / largest)
    if not unicode:
        return "#" * ((eighths + 4) // 8)
    full, rest = divmod(eighths, 8)
    return ("█" * full + _EIGHTHS[rest]).rstrip()


def table(prompt: AssembledPrompt, *, unicode: bool = True) -> str:
    """The text report: a row per part with tokens, share and bar, then tools and drops."""
    total = prompt.tokens
    largest = max((p.tokens for p in prompt.parts), default=0)
    budget = f", budget {prompt.budget}" if prompt.budget is not None else ""
    # The name column fits the longest id, so long (imported) ids keep the columns aligned.
    width = max([32, *(len(p.id) for p in prompt.parts), *(len(t.name) for t in prompt.tools)])
    rows = [
        f"{prompt.catalog} {prompt.version}, agent {prompt.agent}: {total} tokens "
        f"({prompt.counter}){budget}",
        f"{'order':>10}  {'part':<{width}} {'tokens':>7} {'share':>6}",
    ]
    for part in prompt.parts:
        share = share_of(part.tokens, total)
        bar = _bar(part.tokens, largest, unicode)
        rows.append(f"{part.order:>10}  {part.id:<{width}} {part.tokens:>7} {share:>5.1f}%  {bar}")
    if prompt.separator_tokens:
        separators = prompt.separator_tokens
        share = share_of(separators, total)
        rows.append(f"{'':>10}  {'(separators)':<{width}} {separators:>7} {share:>5.1f}%")
    rows.append(f"{'':>10}  {'total':<{width}} {total:>7}")
    if prompt.tools:
        tool_total = sum(t.tokens for t in prompt.tools)
        rows.append(f"\ntools array (not in the text): {tool_total} tokens")
        rows.extend(f"{'':>10}  {t.name:<{width}} {t.tokens:>7}" for t in prompt.tools)
    dropped = [e for e in prompt.excluded if e.reason == "budget"]
    if dropped:
        rows.append("\ndropped to fit the budget:")
        rows.extend(f"  - {e.id}: {e.why}" for e in dropped)
    return "\n".join(rows) + "\n"
