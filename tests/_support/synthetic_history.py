"""A made-up release history in the format of Piebald-AI/claude-code-system-prompts.

:func:`build_history` writes, with one ``git fast-import``, a repository of
``releases`` release commits (subjects ``v2.<minor>.<patch> (+N tokens)``),
each holding a ``system-prompts/`` folder of Markdown parts with ``<!-- ... -->``
YAML-like headers (name, description, ``ccVersion``, variables) and a README
listing every part with its token count. The collection grows from
``first_parts`` to ``parts`` files; each release rewrites about ``change`` of
the bodies (their ``ccVersion`` moves with them), adds files and now and then
removes one; every tenth release is followed by a commit that is not a release.
Used by the store's tests (a few dozen releases) and by ``scripts/bench_import.py``
(hundreds). Deterministic for a given seed.
"""

from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["History", "build_history"]

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


@dataclass(frozen=True)
class History:
    """What :func:`build_history` wrote: the versions, oldest first, the part ids
    each release added or rewrote, and the bytes of every release's part bodies
    added up (one plain copy per release)."""

    versions: tuple[str, ...]
    changed: tuple[frozenset[str], ...]
    part_files: int
    plain_bytes: int


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
        f"<!--\nname: 'Synthetic: {title}'\ndescription: Made-up part {name}: one of many\n"
        f"ccVersion: {version}\nvariables:\n  - READ_TOOL_NAME\n-->\n{body}"
    )


def _readme(version: str, files: dict[str, str]) -> str:
    lines = [f"Prompts as of **[Claude Code v{version}](https://example.com) (today).**", ""]
    for name in sorted(files):
        tokens = len(files[name]) // 4
        lines.append(f"- [Synthetic {name}](./system-prompts/{name}) (**{tokens}** tks) - Made up.")
    return "\n".join(lines) + "\n"


def fast_import_data(text: str | bytes) -> bytes:
    """A ``data`` block of a fast-import stream."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return b"data %d\n" % len(raw) + raw + b"\n"


def fast_import_commit(subject: str, minute: int) -> bytes:
    """The header of a fast-import commit on main."""
    when = 1_700_000_000 + minute * 60
    return (
        b"commit refs/heads/main\n"
        + b"committer Synthetic <synthetic@example.com> %d +0000\n" % when
        + fast_import_data(subject)
    )


def _body_bytes(text: str) -> int:
    """The bytes of a part file's body (what an import stores), its header left out."""
    return len(text.split("-->\n", 1)[1].encode("utf-8"))


def build_history(
    repo: Path,
    releases: int,
    parts: int = 700,
    *,
    first_parts: int | None = None,
    change: float = 0.03,
    seed: int = 7,
) -> History:
    """Write the synthetic repository at ``repo`` (a new folder)."""
    rng = random.Random(seed)
    start = parts * 9 // 10 if first_parts is None else first_parts
    files: dict[str, str] = {}
    counter = 0
    stream = bytearray()
    versions: list[str] = []
    changes: list[frozenset[str]] = []
    part_files = plain = 0
    for index in range(releases):
        version = f"2.{index // 100}.{index % 100}"
        changed: dict[str, str | None] = {}
        target = start + (parts - start) * index // max(1, releases - 1)
        while len(files) < target:
            counter += 1
            name = f"{rng.choice(PREFIXES)}part-{counter}.md"
            files[name] = changed[name] = _file(name, version, _body(rng))
        if index:
            count = min(len(files), max(1, round(len(files) * change * 2 * rng.random())))
            for name in rng.sample(sorted(files), k=count):
                files[name] = changed[name] = _file(name, version, _body(rng))
        if index % 7 == 3:
            gone = rng.choice(sorted(files))
            del files[gone]
            changed[gone] = None
        versions.append(version)
        changes.append(frozenset(n.removesuffix(".md") for n, t in changed.items() if t))
        part_files += len(files)
        plain += sum(_body_bytes(text) for text in files.values())
        stream += fast_import_commit(f"v{version} (+{rng.randint(0, 400)} tokens)", 2 * index)
        for name, text in sorted(changed.items()):
            if text is None:
                stream += f"D system-prompts/{name}\n".encode()
            else:
                stream += f"M 100644 inline system-prompts/{name}\n".encode() + fast_import_data(
                    text
                )
        stream += b"M 100644 inline README.md\n" + fast_import_data(_readme(version, files))
        stream += b"\n"
        if index % 10 == 9:
            stream += fast_import_commit("Update README", 2 * index + 1)
            stream += b"M 100644 inline NOTES.md\n" + fast_import_data(f"{index}\n") + b"\n"
    fast_import(repo, bytes(stream))
    return History(tuple(versions), tuple(changes), part_files, plain)


def fast_import(repo: Path, stream: bytes) -> None:
    """Create the repository ``repo`` from a fast-import stream, its branch ``main``
    checked out, whatever the machine's git configuration."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    git = ["git", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    subprocess.run([*git, "fast-import", "--quiet"], input=stream, check=True, env=env)
    subprocess.run([*git, "symbolic-ref", "HEAD", "refs/heads/main"], check=True, env=env)
