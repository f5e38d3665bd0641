"""``catalog init NAME [--path DIR]``: write a new catalog to start from.

The catalog is small but shows every moving piece: two parts (one given to
every agent, one under a condition on a declared variable), a variable, a
sub-agent, and the sha256 and token count of each body, recorded by the
same code as ``catalog stamp``. It validates and assembles at once:
``catalog assemble NAME --path DIR``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from catalog.cli._common import EXIT_OK, add_format, emit_json, emit_text
from catalog.cli._report import write_warning
from catalog.errors import CatalogError, UsageError
from catalog.io.catalog_path import CatalogPath, check_name
from catalog.io.loader import MANIFEST_NAME
from catalog.io.stamp import stamp_folder
from catalog.io.textfile import write_text
from catalog.io.validate import check_catalog

__all__ = ["register", "run"]

_VERSION = "1.0.0"

_MANIFEST = """\
# The catalog {name}: one folder per version, each with this manifest and the
# part bodies it names. Format: docs/format.md; expressions: docs/expressions.md.

[catalog]
name = "{name}"
version = "{version}"               # equal to the folder's name
summary = "A new catalog: edit the parts, then run `catalog stamp` on this folder"

[[variable]]                      # set with --set plan_mode=true or a context's [variables]
name = "plan_mode"
type = "bool"
default = false
description = "The agent is planning, not yet changing files"

[[agent]]                         # a sub-agent: catalog assemble {name} --agent reviewer
name = "reviewer"
description = "Reads a change and reports problems"
tools = ["Read", "Grep"]

[[part]]
id = "identity"
file = "identity.md"
order = 10
agents = ["*"]                    # every agent, sub-agents included (default: main only)
description = "Who the agent is"

[[part]]
id = "planning"
file = "planning.md"
order = 20
when = "plan_mode"                # a condition over the context and the variables
stability = "session"
description = "Plan before acting, while plan mode is on"
"""

_BODIES = {
    "identity.md": (
        "You are {{ agent.name }}, an assistant of the {name} catalog.\n"
        "{% if agent.is_subagent %}\n"
        "{{ agent.description }}. You may use: {{ agent.tools }}.\n"
        "{% endif %}\n"
    ),
    "planning.md": "Plan mode is on: write a plan and wait for approval before changing files.\n",
}


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``init`` command."""
    parser.description = (
        f"Write DIR/NAME/{_VERSION}/ (DIR: the first --path, else the current folder) with a "
        "manifest and two part bodies: a part for every agent, a part under a condition on a "
        "variable, and a sub-agent, each body's sha256 and tokens recorded. Then: "
        "`catalog assemble NAME --path DIR`."
    )
    parser.add_argument(
        "name", metavar="NAME", help="the catalog's name (lowercase, e.g. my-agent)"
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the catalog, stamp it and check that it loads."""
    check_name(args.name)
    root = Path(args.path[0] if args.path else ".")
    folder = root / args.name / _VERSION
    if folder.exists():
        raise UsageError(
            "this folder exists already; nothing was written",
            file=str(folder),
            hint="choose another NAME or --path, or remove the folder",
        )
    hint = "check that --path names a folder you may write to"
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise CatalogError(
            f"cannot write the catalog: {exc.strerror or exc}", file=str(folder), hint=hint
        ) from None
    texts = {MANIFEST_NAME: _MANIFEST.format(name=args.name, version=_VERSION)}
    texts.update((file, body.replace("{name}", args.name)) for file, body in _BODIES.items())
    for file, text in texts.items():
        write_text(folder / file, text, CatalogError, hint)
    stamp_folder(folder)
    problems = check_catalog(CatalogPath([root], use_env=False).load(args.name, _VERSION))
    files = [str(folder / name) for name in (MANIFEST_NAME, *_BODIES)]
    if args.format == "json":
        emit_json({"name": args.name, "version": _VERSION, "folder": str(folder), "files": files})
    else:
        path = f" --path {root}" if args.path else ""
        emit_text(
            f"wrote {args.name} {_VERSION} in {folder}\n"
            f"try: catalog assemble {args.name}{path} --set plan_mode=true\n"
            f"     catalog assemble {args.name}{path} --agent reviewer\n"
        )
    for problem in problems:
        write_warning(str(problem), as_json=args.format == "json")
    return EXIT_OK
