#!/usr/bin/env python3
"""Benchmark of ``catalog import piebald --git`` on a synthetic history (never asserted).

Builds, with ``git fast-import``, a repository in the format of
Piebald-AI/claude-code-system-prompts: ``--releases`` release commits
(``v2.<minor>.<patch> (+N tokens)``) whose prompt collection grows from
about 100 to ``--parts`` files, each release changing a few bodies, adding
some files and removing one now and then, with a README listing every part
and a non-release commit every tenth release. Then it imports the whole
history into a temporary folder and prints the time taken, the parts
written, the distinct bodies and the store's size next to what the bodies
would take stored once per version, and the time to load the newest version.

Run: ``python scripts/bench_import.py [--releases 240] [--parts 700] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from catalog import CatalogPath
from catalog.importers.piebald.read import read_history
from catalog.importers.piebald.write import import_releases

PREFIXES = (
    "system-prompt-",
    "system-reminder-",
    "tool-description-",
    "agent-prompt-",
    "data-",
    "skill-",
    "tool-parameter-",
)
WORDS = ("agent", "tool", "file", "search", "read", "write", "edit", "bash", "command", "user",
         "task", "plan", "code", "test", "review", "commit", "branch", "context", "memory",
         "session", "prompt", "output", "error", "result", "path", "line", "change")  # fmt: skip


def _body(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(3, 60)):
        words = rng.choices(WORDS, k=rng.randint(4, 18))
        if rng.random() < 0.2:
            words.append("${" + rng.choice(WORDS).upper() + "_TOOL_NAME}")
        lines.append(" ".join(words).capitalize() + ".")
    return "\n".join(lines) + "\n"


def _file(name: str, version: str, body: str) -> str:
    title = name.removesuffix(".md").replace("-", " ").title()
    return (
        f"<!--\nname: 'Synthetic: {title}'\ndescription: Made-up part {name}\n"
        f"ccVersion: {version}\nvariables:\n  - READ_TOOL_NAME\n-->\n{body}"
    )


def _readme(version: str, files: dict[str, str]) -> str:
    lines = [f"Prompts as of **[Claude Code v{version}](https://example.com) (today).**", ""]
    for name in sorted(files):
        tokens = len(files[name]) // 4
        lines.append(f"- [Synthetic {name}](./system-prompts/{name}) (**{tokens}** tks) - Made up.")
    return "\n".join(lines) + "\n"


def _data(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"data %d\n" % len(raw) + raw + b"\n"


def _commit(subject: str, minute: int) -> bytes:
    """The header of a fast-import commit on main."""
    when = 1_700_000_000 + minute * 60
    return (
        b"commit refs/heads/main\n"
        + b"committer Bench <bench@example.com> %d +0000\n" % when
        + _data(subject)
    )


def build_history(repo: Path, releases: int, max_parts: int, seed: int = 7) -> int:
    """Write the synthetic repository; returns the number of part files over all releases."""
    rng = random.Random(seed)
    files: dict[str, str] = {}
    counter = 0
    stream = bytearray()
    total = 0
    for index in range(releases):
        version = f"2.{index // 100}.{index % 100}"
        changed: dict[str, str | None] = {}
        target = 100 + (max_parts - 100) * index // max(1, releases - 1)
        while len(files) < target:
            counter += 1
            name = f"{rng.choice(PREFIXES)}part-{counter}.md"
            files[name] = _file(name, version, _body(rng))
            changed[name] = files[name]
        for name in rng.sample(sorted(files), k=min(len(files), rng.randint(0, 8))):
            files[name] = _file(name, version, _body(rng))
            changed[name] = files[name]
        if index % 7 == 3:
            gone = rng.choice(sorted(files))
            del files[gone]
            changed[gone] = None
        total += len(files)
        stream += _commit(f"v{version} (+{rng.randint(0, 400)} tokens)", 2 * index)
        for name, text in sorted(changed.items()):
            if text is None:
                stream += f"D system-prompts/{name}\n".encode()
            else:
                stream += f"M 100644 inline system-prompts/{name}\n".encode() + _data(text)
        stream += b"M 100644 inline README.md\n" + _data(_readme(version, files))
        stream += b"\n"
        if index % 10 == 9:
            stream += _commit("Update README", 2 * index + 1)
            stream += b"M 100644 inline NOTES.md\n" + _data(f"{index}\n") + b"\n"
    git = ["git", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "fast-import", "--quiet"], input=bytes(stream), check=True)
    subprocess.run([*git, "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    return total


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
        report = import_releases(releases, name="synthetic", out=work / "out")
        elapsed = time.perf_counter() - start
        size = report.size
        print(f"imported {len(report.versions)} versions, "
              f"{sum(v.parts for v in report.versions)} parts in {elapsed:.1f} s")  # fmt: skip
        print(f"store: {_megabytes(size.total_bytes)} = manifests {_megabytes(size.manifest_bytes)}"
              f" + {size.blobs} distinct bodies {_megabytes(size.blob_bytes)}; bodies stored per "
              f"version would take {_megabytes(report.unshared_bytes)}")  # fmt: skip

        start = time.perf_counter()
        newest = CatalogPath([work / "out"], use_env=False, use_entry_points=False).load(
            "synthetic"
        )
        print(f"load {newest.name} {newest.version} ({len(newest.parts)} parts): "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
