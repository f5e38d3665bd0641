#!/usr/bin/env python3
"""Benchmarks printed as comparable figures (never asserted in tests).

Prints:
- the cost of ``import catalog`` over a bare interpreter (``python -c pass``),
  and whether it pulled in pydantic, tiktoken, pytest or syrupy (it must not);
- the wall time of ``catalog assemble coding-agent`` (a whole command: start,
  load, compile, assemble, print) as a multiple of ``python -c pass``, and
  whether it imported pydantic, tiktoken or the metadata and network modules;
  then how much of it is importing the command line, and how much its first
  run in process (finding, reading, compiling and assembling the catalog);

and for a synthetic catalog of about 40 parts:
- the time to load one version, with 1 and with 200 versions installed (it
  must not grow with the number of versions);
- the median of one warm ``assemble`` call, next to a plain Python function
  doing the same selection and joins; then with the fingerprint, with every
  token figure read (memoised counts) and under a token budget.

Run: ``python scripts/bench.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomli_w

PARTS = 40


def _body(index: int) -> str:
    if index % 5 == 0:
        return f"Part {index}: working in {{{{ env.cwd }}}} on {{{{ env.os }}}}.\n"
    if index % 7 == 0:
        return f"Part {index}.\n{{% for s in mcp_servers %}}- {{{{ s.name }}}}\n{{% endfor %}}"
    return f"Part {index}: " + "Some steady guidance for the agent. " * 12 + "\n"


def _when(index: int) -> str:
    if index % 3 == 0:
        return f'"Tool{index}" in tools'
    if index % 4 == 0:
        return "len(mcp_servers) > 0 and not agent.is_subagent"
    return "true"


def write_catalog(root: Path, name: str, versions: int) -> None:
    """A catalog of PARTS parts in ``versions`` versions under ``root``."""
    for v in range(versions):
        folder = root / name / f"1.{v}.0"
        folder.mkdir(parents=True)
        parts = []
        for i in range(PARTS):
            body = _body(i)
            (folder / f"p{i}.md").write_text(body)
            parts.append(
                {
                    "id": f"p{i:02d}",
                    "file": f"p{i}.md",
                    "order": i * 10,
                    "when": _when(i),
                    "tokens": len(body) // 4,
                    "sha256": hashlib.sha256(body.encode()).hexdigest(),
                }
            )
        data = {"catalog": {"name": name, "version": f"1.{v}.0"}, "part": parts}
        (folder / "catalog.toml").write_text(tomli_w.dumps(data))


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """Median seconds of ``repeat`` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


# An installed package has its bytecode written once; with this variable set, every
# run would measure compiling the package's sources again.
_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _walls(runs: int, *argvs: list[str]) -> list[float]:
    """Median wall-clock seconds of running each of ``argvs`` in a fresh process (after
    one warm-up each), the commands taking turns so that a busier moment of the
    machine weighs on all of them alike."""
    samples: list[list[float]] = [[] for _ in argvs]
    for argv in argvs:
        subprocess.run(argv, capture_output=True, check=True, env=_ENV)
    for _ in range(runs):
        for argv, taken in zip(argvs, samples, strict=True):
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True, env=_ENV)
            taken.append(time.perf_counter() - start)
    return [statistics.median(taken) for taken in samples]


def import_time(runs: int) -> tuple[float, float, list[str]]:
    """``python -c "import catalog"`` over ``python -c pass`` (seconds), and heavy modules."""
    bare, loaded = _walls(
        runs, [sys.executable, "-c", "pass"], [sys.executable, "-c", "import catalog"]
    )
    code = (
        "import sys, catalog; "
        "print(*[m for m in ('pydantic', 'tiktoken', 'pytest', 'syrupy') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return bare, loaded - bare, out.stdout.split()


def _catalog_command() -> list[str]:
    """The installed ``catalog`` script beside this interpreter, as users run it; else
    ``python -m catalog`` (which also pays for runpy)."""
    script = Path(sys.executable).with_name("catalog")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "catalog"]


def startup(runs: int) -> tuple[float, float, list[str]]:
    """Wall seconds of ``python -c pass`` and of ``catalog assemble coding-agent``, and
    the heavy modules the command imports."""
    bare, command = _walls(
        runs, [sys.executable, "-c", "pass"], [*_catalog_command(), "assemble", "coding-agent"]
    )
    code = (
        "import contextlib, io, sys; from catalog.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['assemble', 'coding-agent'])\n"
        "heavy = ('pydantic', 'tiktoken', 'email', 'importlib.metadata', 'socket')\n"
        "print(*[m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return bare, command, out.stdout.split()


def command_split(runs: int) -> tuple[float, float]:
    """Median seconds, in fresh processes, of importing the command line and of its
    first ``assemble coding-agent`` run (finding, loading, compiling, assembling)."""
    code = (
        "import time; start = time.perf_counter()\n"
        "import contextlib, io; from catalog.cli import main\n"
        "imported = time.perf_counter()\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['assemble', 'coding-agent'])\n"
        "print(imported - start, time.perf_counter() - imported)"
    )
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_ENV
        )
        samples.append(tuple(map(float, out.stdout.split())))
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def reference(
    context: dict[str, Any], bodies: list[tuple[str, Callable[[dict[str, Any]], bool]]]
) -> str:
    """A hand-written builder doing the same selection and joins."""
    texts = []
    for body, when in bodies:
        if when(context):
            texts.append(body.replace("{{ env.cwd }}", context["env"]["cwd"]))
    return "\n\n".join(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per start-up figure")
    args = parser.parse_args()

    import catalog

    bare, extra, heavy = import_time(args.runs)
    print(
        f"import catalog                {extra * 1e3:8.2f} ms   over a bare interpreter "
        f"({bare * 1e3:.1f} ms); heavy modules loaded: {heavy or 'none'}"
    )
    bare, command, heavy = startup(args.runs)
    print(
        f"catalog assemble coding-agent {command * 1e3:8.2f} ms   {command / bare:.1f}x "
        f"python -c pass ({bare * 1e3:.1f} ms); heavy modules: {', '.join(heavy) or 'none'}"
    )
    imports, run = command_split(args.runs)
    print(
        f"  of which importing catalog.cli {imports * 1e3:6.2f} ms, "
        f"the first run of main() {run * 1e3:6.2f} ms"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_catalog(root / "one", "bench", 1)
        write_catalog(root / "many", "bench", 200)
        for label, folder in (("1 version", "one"), ("200 versions", "many")):
            store = catalog.CatalogPath([root / folder], use_env=False, use_entry_points=False)
            load = timed(lambda s=store: s.load("bench", "==1.0.0"), 30)
            print(f"load one version ({label:>12}) {load * 1e3:8.2f} ms")
        cat = catalog.CatalogPath([root / "one"], use_env=False).load("bench")
        context = catalog.Context.model_validate(
            {
                "tools": [f"Tool{i}" for i in range(0, PARTS, 6)],
                "env": {"cwd": "/work", "os": "Linux"},
                "mcp_servers": [{"name": "docs"}, {"name": "db"}],
            }
        )
        cat.assemble(context)
        warm = timed(lambda: cat.assemble(context), args.repeat)
        print(f"assemble, warm (median)       {warm * 1e6:8.1f} µs   {len(cat.parts)} parts")
        plain_ctx = context.model_dump()
        bodies = [
            (p.body, (lambda c, i=i: i % 3 != 0 or f"Tool{i}" in c["tools"]))
            for i, p in enumerate(cat.parts)
        ]
        ref = timed(lambda: reference(plain_ctx, bodies), args.repeat)
        print(f"plain Python reference        {ref * 1e6:8.1f} µs")
        fingerprint = timed(lambda: cat.assemble(context).fingerprint, args.repeat // 4)
        print(f"assemble + fingerprint        {fingerprint * 1e6:8.1f} µs")
        warm_prompt = cat.assemble(context)
        assert warm_prompt.tokens > 0  # loads the encoding and fills the memo
        tokens = timed(lambda: cat.assemble(context).tokens, args.repeat // 4)
        print(f"assemble + tokens (memoised)  {tokens * 1e6:8.1f} µs   {warm_prompt.counter}")
        budgeted = context.model_copy(update={"token_budget": 1000})
        budget = timed(lambda: cat.assemble(budgeted), args.repeat // 4)
        print(f"assemble under a budget       {budget * 1e6:8.1f} µs")
    flagship = catalog.load("coding-agent")
    everyday = {"tools": ["Bash", "Read", "Grep", "Glob", "Edit"], "env": {"cwd": "/w"}}
    flagship_context = catalog.Context.model_validate(everyday)
    flagship.assemble(flagship_context)
    bundled = timed(lambda: flagship.assemble(flagship_context), args.repeat)
    print(
        f"assemble {flagship.name} {flagship.version}  {bundled * 1e6:8.1f} µs   "
        f"{len(flagship.parts)} parts, bundled"
    )


if __name__ == "__main__":
    main()
