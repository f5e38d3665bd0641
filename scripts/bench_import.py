#!/usr/bin/env python3
"""Benchmark of ``catalog import piebald --git`` and ``catalog import git`` (figures
printed, never asserted).

Builds a synthetic history in the format of Piebald-AI/claude-code-system-prompts
(``tests/synthetic_history.py``: ``--releases`` release commits of up to
``--parts`` Markdown parts, about ``--change`` of them rewritten per release),
or takes a real clone with ``--git``, imports every release into a temporary
folder with progress, and prints the time to read the history alone (with
dulwich, nothing run), the import time, the store's size (manifests, shared
parts files, distinct bodies), the imported bodies stored once against one
plain copy per release and the ratio of the two, and the time to load the
newest version.

With ``--tags N``, ``catalog import git`` instead: a history of N release tags
(``--parts`` prompt files, a tenth of them rewritten every tenth release, and
code beside them changed in every release) is built and imported, and the
time, the versions written and the trees and blobs read are printed.

Run: ``python scripts/bench_import.py [--releases 265] [--parts 700] [--git CLONE] [--keep DIR]``
or ``python scripts/bench_import.py --tags 1000 [--parts 40]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._support.git_history import History
from tests._support.synthetic_history import build_history

from catalog import CatalogPath
from catalog.importers.git import import_git
from catalog.importers.piebald.read import read_history
from catalog.importers.piebald.write import ImportedVersion, import_releases


def _megabytes(count: int) -> str:
    return f"{count / 1e6:.1f} MB"


def _progress(item: ImportedVersion) -> None:
    print(f"  {item.version:<10} {item.parts:>5} parts {item.new_bodies:>4} new bodies",
          flush=True)  # fmt: skip


def _bench_tags(work: Path, tags: int, parts: int, quiet: bool) -> None:
    """Build a history of ``tags`` release tags and time ``catalog import git`` on it."""
    start = time.perf_counter()
    history = History(work / "tagged")
    parent = None
    for number in range(tags):
        files = {f"prompts/p{i}.md": f"Prompt {i}, edition {number // 10 if i % 10 == 0 else 0}"
                 for i in range(parts)}  # fmt: skip
        files["src/main.py"] = f"VERSION = {number}"
        parent = history.commit(files, parent)
        history.tag(f"v1.{number // 100}.{number % 100}", parent)
    history.save()
    print(f"built {tags} tags in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    done = import_git(
        history.path,
        name="tagged",
        out=work / "out",
        tags=["v*"],
        includes=["prompts/*.md"],
        roots=["prompts"],
        on_version=None if quiet else _progress,
    )
    elapsed = time.perf_counter() - start
    print(f"imported {len(done.report.versions)} versions in {elapsed:.1f} s: "
          f"{done.stats.trees_read} trees read, {done.stats.trees_reused} known from an "
          f"earlier release, {done.stats.blobs_read} blobs read; "
          f"{done.report.size.blobs} distinct bodies stored")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=int, default=265)
    parser.add_argument("--parts", type=int, default=700, help="parts in the newest release")
    parser.add_argument("--change", type=float, default=0.03, help="share of bodies rewritten")
    parser.add_argument("--git", metavar="CLONE", help="import this clone instead")
    parser.add_argument("--keep", metavar="DIR", help="build and import in DIR, and keep it")
    parser.add_argument("--quiet", action="store_true", help="no line per version")
    parser.add_argument("--tags", type=int, help="import git: a history of this many tags")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(args.keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        if args.tags:
            _bench_tags(work, args.tags, min(args.parts, 200), args.quiet)
            return 0
        repo = Path(args.git) if args.git else work / "upstream"
        if not args.git:
            start = time.perf_counter()
            history = build_history(repo, args.releases, args.parts, change=args.change)
            print(f"built {len(history.versions)} releases ({history.part_files} part files) "
                  f"in {time.perf_counter() - start:.1f} s")  # fmt: skip

        start = time.perf_counter()
        parts = sum(len(release.parts) for release in read_history(repo))
        print(f"read the history alone: {parts} parts in "
              f"{time.perf_counter() - start:.1f} s")  # fmt: skip

        start = time.perf_counter()
        report = import_releases(
            read_history(repo),
            name="synthetic",
            out=work / "out",
            on_version=None if args.quiet else _progress,
        )
        elapsed = time.perf_counter() - start
        size = report.size
        print(f"imported {len(report.versions)} versions, "
              f"{sum(v.parts for v in report.versions)} parts in {elapsed:.1f} s")  # fmt: skip
        print(f"store: {_megabytes(size.total_bytes)} = manifests {_megabytes(size.manifest_bytes)}"
              f" + {size.parts_files} parts files {_megabytes(size.parts_bytes)}"
              f" + {size.blobs} distinct bodies {_megabytes(size.blob_bytes)}")  # fmt: skip
        plain = report.unshared_bytes
        ratio, bodies = size.total_bytes / plain, report.shared_bytes / plain
        print(f"bodies: {report.distinct_bodies} distinct, {_megabytes(report.shared_bytes)} "
              f"stored once, against {_megabytes(plain)} with a copy per release; "
              f"store / plain = {ratio:.1%} (bodies alone {bodies:.1%})")  # fmt: skip

        start = time.perf_counter()
        newest = CatalogPath([work / "out"], use_env=False, use_entry_points=False).load(
            "synthetic"
        )
        print(f"load {newest.name} {newest.version} ({len(newest.parts)} parts): "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
