#!/usr/bin/env python3
"""Benchmark: loading one catalog version costs time linear in its number of parts.

Writes synthetic catalog versions of 10, 100, 1,000 and 10,000 parts (bodies
with and without placeholders, constant and real conditions, descriptions and
metadata, as an imported release has) and prints, for each, the median time
to load it (wall clock, and the CPU time of this process, which other work on
a shared machine disturbs less), the CPU time per part, and the ratio to the
previous size: a ratio near 10 for ten times the parts is linear growth.
The last two columns are the CPU time per part and its ratio with Python's
cyclic garbage collector paused during the load: the collector walks the
ever larger set of live objects, so these show how the loader's own work
grows, apart from the collector's. Figures only, never asserted.

Run: ``python scripts/bench_load.py [--sizes 10,100,1000,10000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import statistics
import tempfile
import time
from pathlib import Path

import tomli_w

from catalog import CatalogPath

# Kinds of body and of condition, taken in turn: plain text, placeholders, a
# loop; always, a tool test, a test of a list and of the agent.
_BODIES = (
    "Part {index}: " + "Steady guidance for the agent, said once. " * 10 + "\n",
    "Part {index}: the project is in {{{{ env.cwd }}}} ({{{{ env.os }}}}).\n",
    "Part {index}: " + "More guidance. " * 20 + "\n",
    "Part {index}, servers:\n{{% for s in mcp_servers %}}- {{{{ s.name }}}}\n{{% endfor %}}",
)
_CONDITIONS = (
    "true",
    '"Tool{index}" in tools',
    "true",
    "len(mcp_servers) > 0 and not agent.is_subagent",
    "true",
)


def write_version(root: Path, parts: int) -> None:
    """``root/bench/1.0.0``: a version of ``parts`` parts."""
    folder = root / "bench" / "1.0.0"
    folder.mkdir(parents=True)
    declared = []
    for i in range(parts):
        body = _BODIES[i % len(_BODIES)].format(index=i)
        (folder / f"p{i}.md").write_text(body, encoding="utf-8")
        declared.append(
            {
                "id": f"p{i:05d}",
                "file": f"p{i}.md",
                "description": f"Guidance number {i} for the agent",
                "order": i * 10,
                "when": _CONDITIONS[i % len(_CONDITIONS)].format(index=i),
                "tokens": len(body) // 4,
                "sha256": hashlib.sha256(body.encode()).hexdigest(),
                "meta": {"upstream": f"part-{i}", "since": "1.0.0"},
            }
        )
    data = {"catalog": {"name": "bench", "version": "1.0.0"}, "part": declared}
    (folder / "catalog.toml").write_text(tomli_w.dumps(data), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,10000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    previous: float | None = None
    previous_quiet: float | None = None
    columns = (
        ("wall (median)", 14),
        ("CPU (median)", 13),
        ("per part", 10),
        ("x previous", 11),
        ("no GC, per part", 16),
        ("x previous", 11),
    )
    print(f"{'parts':>8}" + "".join(f" {title:>{width}}" for title, width in columns))
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            write_version(root, size)
            path = CatalogPath([root], use_env=False, use_entry_points=False, use_bundled=False)
            walls, cpus, quiet = [], [], []
            for _ in range(max(1, args.repeat if size < 10_000 else min(args.repeat, 3))):
                start, start_cpu = time.perf_counter(), time.process_time()
                loaded = path.load("bench")
                cpus.append(time.process_time() - start_cpu)
                walls.append(time.perf_counter() - start)
                del loaded
                gc.collect()
                gc.disable()
                try:
                    start_cpu = time.process_time()
                    loaded = path.load("bench")
                    quiet.append(time.process_time() - start_cpu)
                finally:
                    gc.enable()
            assert len(loaded.parts) == size
        wall, cpu, cpu_quiet = (statistics.median(v) for v in (walls, cpus, quiet))
        ratio = f"{cpu / previous:10.1f}x" if previous else f"{'':>11}"
        ratio_quiet = f"{cpu_quiet / previous_quiet:10.1f}x" if previous_quiet else ""
        print(
            f"{size:>8} {wall * 1e3:11.1f} ms {cpu * 1e3:10.1f} ms "
            f"{cpu / size * 1e6:7.1f} µs {ratio} {cpu_quiet / size * 1e6:13.1f} µs {ratio_quiet}"
        )
        previous, previous_quiet = cpu, cpu_quiet


if __name__ == "__main__":
    main()
