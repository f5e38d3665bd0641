#!/usr/bin/env python3
"""Benchmarks printed as comparable figures (never asserted in tests).

Prints:
- the cost of ``import catalog`` over a bare interpreter (``python -c pass``),
  and whether it pulled in pydantic, tiktoken, pytest or syrupy (it must not);
- the wall time of ``catalog assemble coding-agent`` (a whole command: start,
  load, compile, assemble, print) next to ``python -m pytest --version``
  (target: at most twice as long) and ``python -c pass``, and the heavy
  modules it imported; then how much of it is importing the command line, and
  how much its first run in process (finding, reading, compiling, assembling);
- side by side in one run (``flagship()``; each figure the least time per call
  over the rounds, the cases taking turns), the warm ``assemble`` of the bundled
  coding-agent (main agent, seven tools) and a hand-written floor giving the same
  text and tools (``bench_floor.py``, checked equal): under one reused ``Context``
  (target: at most 4x the floor), a plain dict (at most 5x), and a new Context
  each call whose values differ so that every remembered body is missed (at most
  6x); contexts never seen before nor again (tools, OS, working directory and
  package_url of their own), which no memo can answer; and Jinja2 doing the same
  work, as one compiled template, on the reused and on the never-seen contexts,
  checked to give the same texts (targets: the reused Context at most 0.6x, and
  the never-seen contexts at most 1x, Jinja2's time). The speed machinery of the
  engine is kept only where these figures show its win (docs/architecture.md);

and for a synthetic catalog of about 40 parts:
- the time to load one version, with 1 and with 200 versions installed (it
  must not grow with the number of versions);
- the median of one warm ``assemble`` call; then with the fingerprint, with
  every token figure read (memoised counts) and under a token budget.

Run: ``python scripts/bench.py [--repeat N] [--runs N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
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


def startup(runs: int) -> tuple[float, float, float, list[str]]:
    """Wall seconds of ``python -c pass``, of ``python -m pytest --version`` (another
    Python command line, for scale) and of ``catalog assemble coding-agent``, taking
    turns, and the heavy modules the command imports."""
    bare, pytest_version, command = _walls(
        runs,
        [sys.executable, "-c", "pass"],
        [sys.executable, "-m", "pytest", "--version"],
        [*_catalog_command(), "assemble", "coding-agent"],
    )
    code = (
        "import contextlib, io, sys; from catalog.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['assemble', 'coding-agent'])\n"
        "heavy = ('pydantic', 'tiktoken', 'email', 'importlib.metadata', 'socket')\n"
        "print(*[m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return bare, pytest_version, command, out.stdout.split()


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


_FLAGSHIP_TOOLS = ("Bash", "Read", "Edit", "Write", "Glob", "Grep", "TodoWrite")
_FLAGSHIP_ENV = {
    "cwd": "/home/dev/project",
    "os": "Linux",
    "os_version": "6.8",
    "shell": "bash",
    "date": "2025-01-31",
    "is_git_repo": True,
    "git_branch": "main",
    "model": "claude-sonnet",
}
# A line of a body holding only block tags, and one tag: the template language drops
# such a line's spaces and line end, keeping the tags.
_TAG_LINE = re.compile(r"(?m)^[ \t]*(?:\{[%#][^\n]*?[%#]\}[ \t]*)+\n")
_TAG = re.compile(r"\{[%#][^\n]*?[%#]\}")


def _tags_alone(body: str) -> str:
    """``body`` with each line of block tags alone cut down to its tags."""
    return _TAG_LINE.sub(lambda line: "".join(_TAG.findall(line.group())), body)


def _jinja(cat: Any) -> Callable[[Any], tuple[str, list[tuple[str, str]]]] | None:
    """Jinja2 doing the same work for the main agent, as one template: each part's
    condition an ``{% if %}`` around its body (the bodies with the language's
    functions as globals and its rule for lines of tags applied first), each body
    trimmed and kept when not blank, the texts joined. None without Jinja2."""
    try:
        import jinja2
    except ImportError:
        return None
    from catalog.engine.plan import CONTEXT_NAMES, PartInfo
    from catalog.lang.functions import FUNCTIONS

    environment = jinja2.Environment(autoescape=False, keep_trailing_newline=True)
    environment.globals.update({name: function.call for name, function in FUNCTIONS.items()})
    environment.filters["body"] = lambda text: text.lstrip("\n").rstrip()
    parts = [p for p in cat.parts if p.decl.for_agent("main") and p.decl.kind != "reminder"]
    source = []
    for index, part in enumerate(parts):
        body = _tags_alone(part.body) if part.decl.template else f"{{{{ raw[{index}] }}}}"
        keep = "given_tools" if part.decl.kind == "tool" else "given_texts"
        source.append(
            f"{{% set part = parts[{index}] %}}{{% if {part.decl.when} %}}"
            f"{{% set text %}}{body}{{% endset %}}{{% set text = text|body %}}"
            f"{{% if text %}}{{% set _ = {keep}.append((part.name, text)) %}}{{% endif %}}"
            "{% endif %}"
        )
    template = environment.from_string("".join(source))
    fixed = {
        **cat.variables,
        "agent": cat.agent_info("main"),
        "parts": [PartInfo.of(part.decl) for part in parts],
        "raw": [part.body for part in parts],
    }
    separator = cat.separator

    def build(context: Any) -> tuple[str, list[tuple[str, str]]]:
        texts: list[tuple[str, str]] = []
        tools: list[tuple[str, str]] = []
        scope = {name: getattr(context, name) for name in CONTEXT_NAMES}
        template.render(scope, **fixed, given_texts=texts, given_tools=tools)
        return separator.join(text for _, text in texts), tools

    return build


def _sampled(
    rounds: int, runs: list[tuple[str, Callable[[Any], Any], Callable[[int], list[Any]]]]
) -> dict[str, float]:
    """The least time per call of each of ``runs`` (label, function, the arguments of a
    round), over ``rounds`` rounds in which they take turns: a busier moment of the
    machine weighs on all of them alike. A round's arguments are made just before it
    is timed, as a caller makes its context just before assembling."""
    best: dict[str, float] = {}
    for round_index in range(rounds):
        for label, function, arguments in runs:
            batch = arguments(round_index)
            start = time.perf_counter()
            for argument in batch:
                function(argument)
            taken = (time.perf_counter() - start) / len(batch)
            best[label] = min(best.get(label, taken), taken)
    return best


def flagship(rounds: int, batch: int) -> None:
    """The warm assembly of the bundled coding-agent for its main agent with seven tools,
    side by side with the hand-written floor that gives the same text and tools, under
    a Context, a plain dict, and contexts that differ on every call; and Jinja2."""
    import catalog
    from bench_floor import make_floor

    cat = catalog.load("coding-agent")
    floor = make_floor(cat)
    plain = {"tools": list(_FLAGSHIP_TOOLS), "env": dict(_FLAGSHIP_ENV)}
    context = catalog.Context.model_validate(plain)
    prompt = cat.assemble(context)
    given = (prompt.text, [(tool.name, tool.description) for tool in prompt.tools])
    if floor(context) != given:
        raise SystemExit("the hand-written floor does not give the engine's prompt")
    # Each call a new working directory, order of the tools (one of 5,040, more than the
    # memory keeps) and package_url (read by the main prompt's body): every remembered
    # body is missed, the prompt is the same.
    orders = list(itertools.permutations(_FLAGSHIP_TOOLS))

    def varied(round_index: int) -> list[Any]:
        return [
            catalog.Context.model_validate(
                {
                    "tools": orders[(round_index * batch + i) % len(orders)],
                    "env": {**_FLAGSHIP_ENV, "cwd": f"/home/dev/project-{round_index}-{i}"},
                    "variables": {"package_url": f"https://example.com/{round_index}/{i}"},
                }
            )
            for i in range(batch)
        ]

    first = cat.assemble(varied(rounds)[0])
    assert first.text.replace(f"project-{rounds}-0", "project") == prompt.text
    # Each call a context never seen before and never seen again: a random ordered choice
    # of 4 to 12 of the catalog's 15 tools, an operating system, a working directory and
    # a package_url of its own. No remembered body or plan answers twice.
    known = [part.decl.name for part in cat.parts if part.decl.kind == "tool"]
    rng = random.Random(5)
    fresh = [
        catalog.Context.model_validate(
            {
                "tools": rng.sample(known, rng.randint(4, 12)),
                "env": {**_FLAGSHIP_ENV, "os": rng.choice(["Linux", "Darwin", "Windows"]),
                        "cwd": f"/srv/new-{n}"},
                "variables": {"package_url": f"https://example.org/new/{n}"},
            }
        )
        for n in range(rounds * batch)
    ]  # fmt: skip

    def new(round_index: int) -> list[Any]:
        return fresh[round_index * batch : (round_index + 1) * batch]

    def same(value: Any) -> Callable[[int], list[Any]]:
        return lambda round_index: [value] * batch

    runs: list[tuple[str, Callable[[Any], Any], Callable[[int], list[Any]]]] = [
        ("floor", floor, same(context)),
        ("Context", cat.assemble, same(context)),
        ("dict", cat.assemble, same(plain)),
        ("missed", cat.assemble, varied),
    ]
    jinja = _jinja(cat)
    runs.append(("new", cat.assemble, new))
    if jinja is not None:
        runs.append(("jinja2", jinja, same(context)))
        runs.append(("jinja2 new", jinja, new))
    best = _sampled(rounds, runs)
    base = best["floor"]
    print(
        f"assemble {cat.name} {cat.version}, main agent, {len(_FLAGSHIP_TOOLS)} tools "
        f"({len(prompt.text)} characters, {len(prompt.tools)} tools):"
    )
    notes = {
        "floor": "hand-written Python, the same text and tools (checked equal)",
        "Context": "a Context, warm (target: at most 4x the floor)",
        "dict": "a plain dict, validated each call (target: at most 5x)",
        "missed": "a new Context each call: every remembered body missed (target: at most 6x)",
        "new": "contexts never seen (tools, OS, cwd): no memo answers",
    }
    if jinja is not None:
        alike = "the same text" if jinja(context) == given else "NOT the same text"
        notes["jinja2"] = f"Jinja2 doing the same work on the Context ({alike})"
        agree = all(jinja(c)[0] == cat.assemble(c).text for c in fresh[:50])
        notes["jinja2 new"] = "Jinja2 on the never-seen contexts " + (
            "(the same texts)" if agree else "(NOT the same texts)"
        )
        notes["Context"] += f"; {best['Context'] / best['jinja2']:.2f}x Jinja2 (target: 0.6x)"
        notes["new"] += f"; {best['new'] / best['jinja2 new']:.2f}x Jinja2 (target: 1x)"
    for label, seconds in best.items():
        print(f"  {label:10} {seconds * 1e6:8.1f} µs  {seconds / base:5.1f}x  {notes[label]}")
    if jinja is None:
        print("  jinja2   (not installed: pip install jinja2 to compare)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per start-up figure")
    parser.add_argument("--rounds", type=int, default=60, help="turns of the side-by-side figures")
    args = parser.parse_args()
    if min(args.repeat, args.runs, args.rounds) < 1:
        parser.error("--repeat, --runs and --rounds take a whole number of at least 1")

    import catalog

    bare, extra, heavy = import_time(args.runs)
    print(
        f"import catalog                {extra * 1e3:8.2f} ms   over a bare interpreter "
        f"({bare * 1e3:.1f} ms); heavy modules loaded: {heavy or 'none'}"
    )
    bare, pytest_version, command, heavy = startup(args.runs)
    print(
        f"catalog assemble coding-agent {command * 1e3:8.2f} ms   "
        f"{command / pytest_version:.2f}x python -m pytest --version "
        f"({pytest_version * 1e3:.1f} ms; target: at most 2x), {command / bare:.1f}x "
        f"python -c pass ({bare * 1e3:.1f} ms); heavy modules: {', '.join(heavy) or 'none'}"
    )
    imports, run = command_split(args.runs)
    print(
        f"  of which importing catalog.cli {imports * 1e3:6.2f} ms, "
        f"the first run of main() {run * 1e3:6.2f} ms"
    )
    flagship(args.rounds, 100)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_catalog(root / "one", "bench", 1)
        write_catalog(root / "many", "bench", 200)
        for label, folder in (("1 version", "one"), ("200 versions", "many")):
            catalog_path = catalog.CatalogPath(
                [root / folder], use_env=False, use_entry_points=False
            )
            load = timed(partial(catalog_path.load, "bench", "==1.0.0"), 30)
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
        print(f"synthetic catalog, assemble   {warm * 1e6:8.1f} µs   {len(cat.parts)} parts")
        fingerprint = timed(lambda: cat.assemble(context).fingerprint, max(1, args.repeat // 4))
        print(f"  + fingerprint               {fingerprint * 1e6:8.1f} µs")
        warm_prompt = cat.assemble(context)
        assert warm_prompt.tokens > 0  # loads the encoding and fills the memo
        tokens = timed(lambda: cat.assemble(context).tokens, max(1, args.repeat // 4))
        print(f"  + tokens (memoised)         {tokens * 1e6:8.1f} µs   {warm_prompt.counter}")
        budgeted = context.model_copy(update={"token_budget": 1000})
        budget = timed(lambda: cat.assemble(budgeted), max(1, args.repeat // 4))
        print(f"  under a budget              {budget * 1e6:8.1f} µs")


if __name__ == "__main__":
    main()
