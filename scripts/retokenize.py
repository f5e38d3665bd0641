#!/usr/bin/env python3
"""Rewrite the ``tokens`` and ``sha256`` of every part of every bundled catalog version.

Token figures are exact counts of each body as written, with the tokenizer its
manifest names (``cl100k_base``); run this after editing bodies, or after a
tokenizer upgrade, and commit the result. ``--check`` changes nothing and
exits 1 when a figure is stale (tests/catalogs/test_coding_agent.py fails in that
case too).

Run: ``python scripts/retokenize.py [--check] [--root DIR]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from catalog.errors import CatalogError
from catalog.io.loader import MANIFEST_NAME
from catalog.io.stamp import stamp_folder

BUNDLED = Path(__file__).resolve().parents[1] / "src" / "catalog" / "parts"


def version_folders(root: Path) -> list[Path]:
    """Every ``<root>/<name>/<version>/`` holding a manifest, sorted."""
    return sorted(manifest.parent for manifest in root.glob(f"*/*/{MANIFEST_NAME}"))


def main(argv: list[str] | None = None) -> int:
    """Stamp every version folder under ``--root``; exit 1 with ``--check`` when stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    parser.add_argument("--root", type=Path, default=BUNDLED, help="folder of catalogs")
    args = parser.parse_args(argv)
    folders = version_folders(args.root)
    if not folders:
        print(f"no catalog versions under {args.root}", file=sys.stderr)
        return 2
    changed = 0
    try:
        for folder in folders:
            for stamp in stamp_folder(folder, write=not args.check):
                changed += 1
                where = folder.relative_to(args.root).as_posix()
                print(f"{where}: {stamp.part}.{stamp.key}: {stamp.old} -> {stamp.new}")
    except CatalogError as exc:
        print(exc, file=sys.stderr)
        return 2
    verb = "would change" if args.check else "changed"
    print(f"{len(folders)} version(s), {changed} value(s) {verb}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
