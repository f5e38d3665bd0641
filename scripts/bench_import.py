#!/usr/bin/env python3
"""Benchmark of ``catalog import piebald --git`` on a synthetic history (never asserted).

Builds a repository in the format of Piebald-AI/claude-code-system-prompts
with ``scripts/synthetic_history.py`` (``--releases`` release commits growing
to ``--parts`` files, with messy headers, rewrites, reformatted placeholders,
removals and renames). Then it imports the whole history into a temporary
folder, printing progress, and prints the time taken, the parts written, the
distinct bodies, the store's size and its ratio to one plain copy of the
bodies per release, and the time to load the newest version.

Run: ``python scripts/bench_import.py [--releases 240] [--parts 700] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from catalog import CatalogPath
from catalog.importers.piebald.read import read_history
from catalog.importers.piebald.write import ImportedVersion, import_releases
from synthetic_history import build_history  # scripts/ is on sys.path when run as a script


def _megabytes(count: int) -> str:
    return f"{count / 1e6:.1f} MB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=int, default=240)
    parser.add_argument("--parts", type=int, default=700, help="parts in the newest release")
    parser.add_argument("--keep", metavar="DIR", help="build and import in DIR, and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(args.keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
        start = time.perf_counter()
        total = build_history(work / "upstream", args.releases, args.parts)
        print(f"built {args.releases} releases ({total} part files) in "
              f"{time.perf_counter() - start:.1f} s")  # fmt: skip

        start = time.perf_counter()
        releases = read_history(work / "upstream")

        def progress(item: ImportedVersion) -> None:
            print(f"\r  {item.version:<10} {item.parts:>5} parts", end="", flush=True)

        report = import_releases(releases, name="synthetic", out=work / "out", on_version=progress)
        print()
        elapsed = time.perf_counter() - start
        size = report.size
        print(f"imported {len(report.versions)} versions, "
              f"{sum(v.parts for v in report.versions)} parts in {elapsed:.1f} s")  # fmt: skip
        print(f"store: {_megabytes(size.total_bytes)} = manifests {_megabytes(size.manifest_bytes)}"
              f" + {size.blobs} distinct bodies {_megabytes(size.blob_bytes)}; bodies stored per "
              f"version would take {_megabytes(report.unshared_bytes)}")  # fmt: skip
        ratio = size.total_bytes / max(1, report.unshared_bytes)
        print(f"store ratio: {ratio:.1%} of one plain copy of the bodies per release "
              f"(manifests {size.manifest_bytes / max(1, report.unshared_bytes):.1%})")  # fmt: skip

        start = time.perf_counter()
        newest = CatalogPath([work / "out"], use_env=False, use_entry_points=False).load(
            "synthetic"
        )
        print(f"load {newest.name} {newest.version} ({len(newest.parts)} parts): "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
