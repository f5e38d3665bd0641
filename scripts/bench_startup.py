#!/usr/bin/env python3
"""Benchmark: how long ``catalog`` takes to start, beside ``python -m pytest --version``.

Prints, for ``catalog --help``, ``catalog --version`` and ``catalog list``, the
median wall-clock time of a fresh interpreter running it and the number of
modules it imports, with the same figures for ``python -m pytest --version``
and the ratio of each to it. Start-up is meant to stay within twice pytest's.
Figures only, never asserted.

Run: ``python scripts/bench_startup.py [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

_COUNT = "import atexit, sys\natexit.register(lambda: print(len(sys.modules), file=sys.stderr))\n"
_PYTEST = "import pytest\npytest.main(['--version'])\n"
_CATALOG = "from catalog.cli import main\nmain({argv!r})\n"
_RUNS = {
    "catalog --help": ["--help"],
    "catalog --version": ["--version"],
    "catalog list": ["list"],
}


def _measure(code: str, repeat: int) -> tuple[float, int]:
    """The median seconds of ``repeat`` fresh interpreters running ``code``, and the
    number of modules it had imported when it ended."""
    times = []
    modules = 0
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _COUNT + code], capture_output=True, text=True, check=False
        )
        times.append(time.perf_counter() - start)
        modules = int(done.stderr.split()[-1])
    return statistics.median(times), modules


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    base_time, base_modules = _measure(_PYTEST, repeat)
    print(f"{'run':<20} {'median ms':>10} {'modules':>8} {'/ pytest':>9}")
    print(f"{'pytest --version':<20} {base_time * 1000:>10.0f} {base_modules:>8} {1:>9.2f}")
    for name, argv in _RUNS.items():
        seconds, modules = _measure(_CATALOG.format(argv=argv), repeat)
        print(f"{name:<20} {seconds * 1000:>10.0f} {modules:>8} {seconds / base_time:>9.2f}")


if __name__ == "__main__":
    main()
