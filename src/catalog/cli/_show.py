"""``catalog show NAME[@SPEC]``: a catalog version's agents, variables, definitions and parts."""

from __future__ import annotations

import argparse
import sys

from catalog.cli._common import EXIT_OK, add_format, emit_json, load_ref
from catalog.cli._table import aligned
from catalog.lang.values import to_json
from catalog.text.visible import visible_line

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

    def out(line: str) -> None:
        """One line of the description: whatever it quotes stays on it, hidden
        characters shown."""
        sys.stdout.write(visible_line(line) + "\n")

    out(f"{cat.name} {cat.version}  {cat.summary}")
    out(f"from: {cat.location}")
    out(f"agents: {', '.join(cat.agents)}")
    if cat.slots:
        out(f"slots: {', '.join(cat.slots)}")
    for var in manifest.variable:
        default = to_json(var.effective_default())
        out(f"variable {var.name}: {var.type} = {default}  {var.description}")
    for name, source in manifest.definitions.items():
        out(f"definition {name} = {source}")
    for name, entries in manifest.lines.items():
        out(f"lines {name}:")
        for entry in entries:
            what = to_json(entry.text) if entry.text is not None else f"items {entry.items}"
            out(f"  - {what}{'' if entry.when == 'true' else f'  when {entry.when}'}")
    for kind, defaults in manifest.defaults.items():
        given = defaults.model_dump(exclude_none=True)
        shown = "; ".join(f"{key} = {_plain(value)}" for key, value in given.items())
        out(f"defaults for {kind} parts: {shown}")
    written = {decl.id: decl for decl in manifest.part}
    sys.stdout.write("\n")
    table = [["order", "id", "kind", "stability", "tokens", "agents / when"]]
    for part in cat.parts:
        decl = part.decl
        when = decl.when
        if "when" not in written[decl.id].model_fields_set and when != written[decl.id].when:
            when = f"(defaults for {decl.kind})"
        table.append(
            [
                str(decl.order),
                decl.id,
                decl.kind,
                decl.stability,
                str(decl.tokens),
                f"{','.join(decl.agents)} / {when}"
                + (f" (group {decl.group})" if decl.group is not None else ""),
            ]
        )
    for line in aligned(table, right=(0, 4)):
        out(line)
    return EXIT_OK


def _plain(value: object) -> str:
    return ",".join(value) if isinstance(value, list | tuple) else str(value)
