#!/usr/bin/env python3
"""Benchmark of ``catalog log``, ``blame`` and ``grep`` on long histories (figures
printed, never asserted).

Imports a synthetic history in the format of Piebald-AI/claude-code-system-prompts
(``tests/synthetic_history.py``: ``--releases`` releases growing to ``--parts``
parts, about 3% rewritten per release), and the fixture releases when they are
there (``--fixtures``), then for each store prints:

* the index: versions x parts, the distinct records and runs it keeps, the
  distinct bodies, the time to build it (once, from the manifests) and the size
  of its cache file;
* each command as a whole process (``python -m catalog ...``), the cache built:
  the best and the median wall time of ``--repeat`` runs, the best CPU time
  (user and system: what a busy machine disturbs least), and the peak memory
  (the resident set's high-water mark, from ``/proc``: Linux) of one run;
  first, importing the command line alone, for the cost of starting Python and
  the package.

The part logged and blamed is the newest version's part with the most body
changes; the text looked for is ``--text`` (a word in many parts).

Run: ``python scripts/bench_history.py [--releases 265] [--parts 700] [--keep DIR]
[--fixtures DIR] [--repeat 5]``. With ``--keep DIR`` the imported stores stay in
DIR and are reused by the next run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._support.messy_history import history_from_folders
from tests._support.synthetic_history import build_history

from catalog.changes.history import cache, open_history
from catalog.importers.piebald.read import read_history
from catalog.importers.piebald.write import import_releases

ROOT = Path(__file__).resolve().parent.parent
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
# Runs the command in this process and prints its peak memory: the high-water mark of
# its resident set (VmHWM, in KiB), which starts afresh at exec, unlike ru_maxrss.
_MEASURED = (
    "import sys\n"
    "from catalog.cli import main\n"
    "try:\n"
    "    if sys.argv[1:]:\n"
    "        sys.exit(main(sys.argv[1:]))\n"
    "finally:\n"
    "    with open('/proc/self/status', encoding='ascii') as status:\n"
    "        peak = next(line.split()[1] for line in status if line.startswith('VmHWM'))\n"
    "    sys.stderr.write(f'maxrss {peak}\\n')\n"
)


def _imported(out: Path, name: str, make_repo: Callable[[Path], object]) -> None:
    """Import the history ``make_repo(repo)`` writes into ``out/name`` unless it is there."""
    if (out / name).is_dir():
        return
    repo = out.parent / f"{name}-upstream"
    if not repo.exists():
        make_repo(repo)
    start = time.perf_counter()
    import_releases(read_history(repo), name=name, out=out)
    print(f"imported {name} in {time.perf_counter() - start:.1f} s", flush=True)


def _run(args: list[str]) -> tuple[float, float, str]:
    """Run ``args``: its wall time, its CPU time (user and system) and its stderr."""
    env = {**os.environ, **_GIT_ENV, "PYTHONPATH": str(ROOT / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return elapsed, cpu, done.stderr


def _bench(label: str, argv: list[str], repeat: int, command: list[str] | None = None) -> None:
    command = command or [sys.executable, "-m", "catalog", *argv]
    runs = [_run(command) for _ in range(repeat)]
    wall = sorted(run[0] for run in runs)
    cpu = sorted(run[1] for run in runs)
    *_, err = _run([sys.executable, "-c", _MEASURED, *argv])
    peak = next(int(line.split()[1]) for line in err.splitlines() if line.startswith("maxrss"))
    print(f"  {label:<46} wall {wall[0]:.2f} s (median {statistics.median(wall):.2f})"
          f"  cpu {cpu[0]:.2f} s  peak {peak / 1024:.0f} MiB")  # fmt: skip


def bench_store(out: Path, name: str, text: str, repeat: int) -> None:
    """Print the figures of catalog ``name`` in the folder of catalogs ``out``."""
    cached = out / name / cache.CACHE_DIR
    for stale in cached.glob("*"):
        stale.unlink()
    start = time.perf_counter()
    history = open_history(name, paths=[out])
    built = time.perf_counter() - start
    index = history.index
    cells = sum(run.end - run.start for run in index.runs)
    bodies = len({record.sha256 for record in index.records})
    print(f"{name}: {len(index.versions)} versions, {cells} version x part records")
    print(f"  index: {len(index.records)} distinct records, {len(index.runs)} runs, "
          f"{bodies} distinct bodies, {len(history.lineages)} parts over all versions")  # fmt: skip
    size = (cached / cache.CACHE_FILE).stat().st_size
    print(f"  index built from the manifests in {built:.2f} s; cache file {size / 1e6:.1f} MB")
    newest = set(history.parts())
    changes = Counter(
        e.id
        for kind in ("system", "tool", "agent", "reminder")
        for e in history.log(kind=kind).entries
        if e.id in newest and e.text is not None
    )
    part = max(sorted(changes), key=lambda p: changes[p])
    path = ["--path", str(out)]
    # What every command pays before it starts: Python, and the package's command line.
    _bench("python -c 'import catalog.cli'", [], repeat,
           [sys.executable, "-c", "import catalog.cli"])  # fmt: skip
    _bench(f"log {name} PART ({changes[part]} body changes)", ["log", name, part, *path], repeat)
    _bench(f"log {name} --kind reminder", ["log", name, "--kind", "reminder", *path], repeat)
    _bench(f"blame {name} PART", ["blame", name, part, *path], repeat)
    found = len(history.grep(text).matches)
    _bench(f"grep {text!r} {name} ({found} parts)", ["grep", text, name, *path], repeat)
    _bench(f"grep --pattern -i {text.replace(' ', '*')!r}",
           ["grep", "--pattern", "-i", text.replace(" ", "*"), name, *path], repeat)  # fmt: skip
    _bench("grep --format json", ["grep", text, name, "--format", "json", *path], repeat)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=int, default=265)
    parser.add_argument("--parts", type=int, default=700, help="parts in the newest release")
    parser.add_argument("--text", default="agent tool", help="what grep looks for (synthetic)")
    default_fixtures = ROOT.parent / "shared" / "fixtures" / "claude-code-system-prompts"
    parser.add_argument(
        "--fixtures",
        type=Path,
        default=default_fixtures,
        help="the fixture releases, one folder each (skipped when absent)",
    )
    parser.add_argument("--keep", metavar="DIR", help="import into DIR, and keep it")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command")
    args = parser.parse_args()
    os.environ.update(_GIT_ENV)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(args.keep or scratch)
        out = work / "out"
        out.mkdir(parents=True, exist_ok=True)
        synthetic = f"synthetic-{args.releases}x{args.parts}"
        _imported(out, synthetic, lambda repo: build_history(repo, args.releases, args.parts))
        bench_store(out, synthetic, args.text, args.repeat)
        if args.fixtures.is_dir():
            _imported(out, "claude-code", lambda repo: history_from_folders(
                repo, args.fixtures.iterdir()))  # fmt: skip
            bench_store(out, "claude-code", "TodoWrite", args.repeat)
        else:
            print(f"no fixture releases at {args.fixtures}: skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
