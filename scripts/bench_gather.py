#!/usr/bin/env python3
"""Gathering on hostile trees, as figures (never asserted in tests).

Prints the wall time and what was gathered for:
- a rules folder of 100,000 rule files (``max_files`` and the entry budget
  stop the walk; the figure must stay flat as the folder grows);
- 2,000 rules whose ``paths`` globs backtracking matchers choke on
  (``*a*a*a...`` against a long touched path), matched against 50 touched files;
- an import chain 200 files long and a 1,000-file import cycle (5 hops are
  followed, the cycle is cut);
- a rules folder holding a symbolic link to itself.

Run: ``python scripts/bench_gather.py [--files N]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from catalog import load_dir
from catalog.engine.catalog import Catalog
from catalog.gathering import Gathering, gather_with_provenance
from catalog.text.globs import Glob


def _catalog(root: Path, files: list[dict[str, Any]]) -> Catalog:
    import tomli_w

    folder = root / "cat" / "bench" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("A", encoding="utf-8")
    manifest = {
        "catalog": {"name": "bench", "version": "1.0.0"},
        "sources": {"files": files},
        "part": [
            {
                "id": "a",
                "file": "a.md",
                "order": 10,
                "tokens": 1,
                "sha256": hashlib.sha256(b"A").hexdigest(),
            }
        ],
    }
    (folder / "catalog.toml").write_text(tomli_w.dumps(manifest), encoding="utf-8")
    return load_dir(folder)


def _timed(label: str, run: Callable[[], Gathering]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        gathered = run()
        seconds = time.perf_counter() - start
    kept = len(gathered.context.project_files)
    print(
        f"{label:<48} {seconds * 1000:9.1f} ms  {kept:6} files kept, "
        f"{len(gathered.files):6} looked at, {len(gathered.notes)} notes"
    )


def _gather(cat: Catalog, cwd: Path, **kwargs: Any) -> Gathering:
    return gather_with_provenance(cat, cwd, home=cwd, root=cwd, git=False, **kwargs)


def rules_folder(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rules = root / "proj" / ".claude" / "rules"
        rules.mkdir(parents=True)
        for number in range(count):
            (rules / f"r{number:06}.md").write_text(f"rule {number}\n", encoding="utf-8")
        cat = _catalog(root, [{"names": [".claude/rules/**/*.md"], "scoped_by": "paths"}])
        _timed(f"{count} rule files, default max_files", lambda: _gather(cat, root / "proj"))


def hostile_globs(rules_count: int = 2000, touched: int = 50) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rules = root / "proj" / ".claude" / "rules"
        rules.mkdir(parents=True)
        glob = "*a" * 120
        for number in range(rules_count):
            text = f'---\npaths: "{glob}{number}"\n---\nrule\n'
            (rules / f"r{number:05}.md").write_text(text, encoding="utf-8")
        cat = _catalog(
            root,
            [{"names": [".claude/rules/*.md"], "scoped_by": "paths", "max_files": 100_000}],
        )
        base = {"touched_files": [f"src/{'a' * 300}{n}.b" for n in range(touched)]}
        _timed(
            f"{rules_count} rules x {touched} touched, '*a'*120 globs",
            lambda: _gather(cat, root / "proj", base=base),
        )
    start = time.perf_counter()
    Glob("*a" * 120 + "b").match("a" * 4000)
    print(
        f"{'one *a*a...(120) glob against 4,000 characters':<48} "
        f"{(time.perf_counter() - start) * 1000:9.1f} ms"
    )


def imports(chain: int = 200, cycle: int = 1000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        (root / "CLAUDE.md").write_text("@f0.md\n", encoding="utf-8")
        for number in range(chain):
            text = f"file {number} @f{number + 1}.md\n"
            (root / f"f{number}.md").write_text(text, encoding="utf-8")
        for number in range(cycle):
            text = f"cycle {number} @c{(number + 1) % cycle}.md @c0.md\n"
            (root / f"c{number}.md").write_text(text, encoding="utf-8")
        (root / "AGENTS.md").write_text("@c0.md\n", encoding="utf-8")
        cat = _catalog(Path(tmp), [{"names": ["CLAUDE.md", "AGENTS.md"], "imports": True}])
        _timed(f"import chain of {chain}, cycle of {cycle}", lambda: _gather(cat, root))


def link_loop() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        rules = root / ".claude" / "rules"
        rules.mkdir(parents=True)
        (rules / "a.md").write_text("rule a\n", encoding="utf-8")
        os.symlink(rules, rules / "loop")
        cat = _catalog(Path(tmp), [{"names": [".claude/rules/**/*.md"], "scoped_by": "paths"}])
        _timed("rules folder linked into itself", lambda: _gather(cat, root))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000, help="rule files in the big folder")
    args = parser.parse_args()
    rules_folder(args.files)
    hostile_globs()
    imports()
    link_loop()


if __name__ == "__main__":
    main()
