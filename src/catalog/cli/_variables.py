"""``catalog variables NAME[@SPEC]``: the names a catalog adds for its users.

Two lists: the declared ``[[variable]]``s (type, default, description), which
a context sets under ``variables``, and the ``[[binding]]``s a user's bracket
template may use (``[system:date]``), dynamic types (``[file:PATH]``) included.
"""

from __future__ import annotations

import argparse

from catalog.cli._common import EXIT_OK, add_format, emit_json, emit_text, load_ref
from catalog.lang.values import to_json

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``variables`` command."""
    parser.description = (
        "Print the variables a catalog declares (set them with --set NAME=VALUE "
        "or a context's `variables` table) and the [type:name] bindings a user's bracket "
        "template may use."
    )
    parser.add_argument("ref", metavar="NAME[@SPEC]|DIR")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the catalogue of variables and bindings."""
    cat = load_ref(args, args.ref)
    variables = [
        {
            "name": var.name,
            "type": var.type,
            "default": var.effective_default(),
            "description": var.description,
        }
        for var in cat.manifest.variable
    ]
    bindings = [
        {
            "name": decl.name,
            "dynamic": decl.name.endswith(":"),
            "value": decl.value,
            "source": decl.source,
            "description": decl.description,
        }
        for decl in cat.bindings
    ]
    if args.format == "json":
        emit_json(
            {
                "catalog": cat.name,
                "version": str(cat.version),
                "variables": variables,
                "bindings": bindings,
            }
        )
        return EXIT_OK
    out = [f"{cat.name} {cat.version}", "", "variables:" if variables else "variables: none"]
    for var in variables:
        default = to_json(var["default"])
        if len(default) > 40:
            default = default[:37] + "..."
        out.append(f"  {var['name']:<22} {var['type']:<5} default {default}")
        if var["description"]:
            out.append(f"      {var['description']}")
    if bindings:
        out += ["", "template bindings ([type:name]):"]
        for item in bindings:
            shown = f"[{item['name']}NAME]" if item["dynamic"] else f"[{item['name']}]"
            origin = f"from {item['source']}s" if item["source"] else item["value"]
            out.append(f"  {shown:<28} {origin}")
            if item["description"]:
                out.append(f"      {item['description']}")
    emit_text("\n".join(out) + "\n")
    return EXIT_OK
