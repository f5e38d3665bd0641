"""``catalog port OVERLAY --to NAME@VERSION``: carry an overlay over to a new base release."""

from __future__ import annotations

import argparse
import sys

from catalog.changes.port import (
    ACCEPTABLE,
    PortedPart,
    port_overlay,
)
from catalog.cli._common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    add_format,
    emit_json,
    make_catalog_path,
    write_output,
)
from catalog.errors import (
    CatalogError,
    UsageError,
)
from catalog.io.catalog_path import (
    parse_ref,
)
from catalog.io.loader import (
    MANIFEST_NAME,
    VersionDir,
    read_manifest,
    version_folder,
)
from catalog.io.manifests import (
    parse_manifest,
)
from catalog.text.visible import (
    visible,
)
from catalog.tokens import get_counter

__all__ = ["register", "run"]

_MARK = {"same": "=", "carried": "~", "renamed": ">", "changed": "!", "vanished": "-"}
_CHANGED = {
    "whitespace": "changed only in whitespace",
    "placeholders": "changed only in the layout of ${...}",
}


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``port`` command."""
    parser.description = (
        "Port an overlay (a version folder whose [catalog] base names another catalog) to a "
        "new release of its base: report every `from` part that vanished, was renamed (with "
        "the rename found) or changed text (with a diff), and write the overlay with the "
        "pins of unchanged texts updated. A changed text is never carried over unless "
        "--accept names its class (whitespace, placeholders); a prose change needs a review "
        "and `catalog stamp`. Exit 0 when nothing needs a decision, 1 while something "
        "does, 2 on trouble."
    )
    parser.add_argument("overlay", metavar="OVERLAY", help="the overlay's version folder")
    parser.add_argument("--to", required=True, metavar="NAME@VERSION", help="the new base")
    parser.add_argument(
        "--version", help="the ported overlay's version (default: the new base's version)"
    )
    parser.add_argument(
        "--accept",
        action="append",
        default=[],
        choices=ACCEPTABLE,
        metavar="CLASS",
        help="carry over, pins updated, the parts whose text changed only in this class: "
        "whitespace or placeholders (the layout of ${...} expressions); repeatable; "
        "review the diffs first",
    )
    parser.add_argument(
        "-o", "--output", metavar="DIR", help="write the ported overlay's folder here"
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Port, print the report, write the ported manifest."""
    from pathlib import Path

    folder = version_folder(args.overlay)
    # The loader's own reader: bounded, UTF-8 with its BOM dropped, the same errors.
    read = read_manifest(VersionDir(folder.parent, folder.name))
    manifest, text = read.manifest, read.text
    if manifest.catalog.base is None:
        raise UsageError(
            f"{read.file}: not an overlay ([catalog] has no base)",
            hint="port works on catalogs whose parts come `from` a base",
        )
    catalog_path = make_catalog_path(args)
    old_base = catalog_path.load(*parse_ref(manifest.catalog.base))
    new_base = catalog_path.load_ref(args.to)
    version = args.version or str(new_base.version)
    report = port_overlay(
        manifest,
        text,
        old_base,
        new_base,
        base_ref=f"{new_base.name}@=={new_base.version}",
        version=version,
        count=get_counter(None, tokenizer=manifest.catalog.tokenizer),
        accept=args.accept,
    )
    if args.output:
        _write(args.output, report.text)
    if args.format == "json":
        emit_json(report.to_dict())
    else:
        sys.stdout.write(visible(_text(report.old_base, report.new_base, report.parts)))
        if args.output:
            sys.stdout.write(visible(f"wrote {Path(args.output) / MANIFEST_NAME}\n"))
    return EXIT_PROBLEMS if report.needs_decision else EXIT_OK


def _write(output: str, text: str) -> None:
    """Write the ported manifest into the folder ``output``, checked first, so a manifest
    that would not load (a ``--version`` that is not PEP 440) is never saved."""
    from pathlib import Path

    folder = Path(output)
    path = folder / MANIFEST_NAME
    parse_manifest(text, str(path))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CatalogError(
            f"cannot make the folder: {exc.strerror or exc}",
            file=str(folder),
            hint="give -o a folder you may write to",
        ) from None
    write_output(str(path), text)


def _text(old: str, new: str, parts: tuple[PortedPart, ...]) -> str:
    counts = {s: sum(p.status == s for p in parts) for s in _MARK}
    undecided = sum(p.needs_decision for p in parts)
    rows = [
        f"{old} -> {new}: {len(parts)} parts from the base: "
        + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        + f"; {undecided} need a decision"
    ]
    for part in parts:
        line = f"  {_MARK[part.status]} {part.id}  {part.source}"
        if part.status == "renamed":
            line += f" -> {part.target} ({round(100 * (part.similarity or 0))}% alike)"
        if part.status == "vanished":
            line += ": vanished, nothing in the new base carries it"
        elif part.change == "prose":
            line += ": prose changed, pins kept (review, then `catalog stamp`)"
        elif part.needs_decision:
            line += (
                f": {_CHANGED[part.change or '']}, pins kept (review, then "
                f"`--accept {part.change}` or `catalog stamp`)"
            )
        elif part.pinned:
            line += f": {part.change or 'same text'}, pins updated"
        rows.append(line)
        if part.needs_decision:
            rows.extend(f"      {diff_line}" for diff_line in part.unified.split("\n") if diff_line)
    return "\n".join(rows) + "\n"
