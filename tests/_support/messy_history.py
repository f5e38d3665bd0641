"""Messy git histories in the format of Piebald-AI/claude-code-system-prompts.

:mod:`tests._support.synthetic_history` makes a large, tidy history for the store and
the benchmark; this module makes the kinds of mess the importer and the diff
must read, both written with one ``git fast-import``:

* :func:`build_messy_history`: ``releases`` synthetic release commits
  (``v2.<minor>.<patch> (+N tokens)``, a bare ``2.0.x`` for the first ones)
  whose prompt collection grows from about 100 to ``max_parts`` files. Each
  release rewrites a few bodies, reformats the ``${...}`` placeholders or the
  whitespace of others, changes some headers only, adds files, removes one now
  and then and renames one (same body, new file name); headers come in every
  mess the real history has (unquoted ``: `` inside values, ``- *`` tool
  lists, an unescaped ``'`` inside single quotes, JSON-quoted values, folded
  blocks, nested ``agentMetadata``); a README lists every part with a count,
  and a non-release commit follows every tenth release.
* :func:`history_from_folders`: one release commit per folder of a release
  (``system-prompts/``, ``README.md``, ``LICENSE``), oldest first: the real
  fixture releases as a git history.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from packaging.version import InvalidVersion, Version

from tests._support.synthetic_history import (
    PREFIXES,
    WORDS,
    fast_import,
    fast_import_commit,
    fast_import_data,
)

__all__ = ["build_messy_history", "history_from_folders"]


def _body(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(3, 60)):
        words = rng.choices(WORDS, k=rng.randint(4, 18))
        if rng.random() < 0.2:
            words.append("${" + rng.choice(WORDS).upper() + "_TOOL_NAME}")
        if rng.random() < 0.1:
            words.append('${IS_BASH ? "bash" : "pwsh"}')
        line = " ".join(words)
        lines.append(line[0].upper() + line[1:] + ".")
    return "\n".join(lines) + "\n"


def _reformat(body: str, rng: random.Random) -> str:
    """The same text with its placeholders or its whitespace reformatted."""
    if '${IS_BASH ? "bash" : "pwsh"}' in body and rng.random() < 0.6:
        return body.replace('${IS_BASH ? "bash" : "pwsh"}', '${IS_BASH?"bash":"pwsh"}')
    return body.replace(". ", ".  ", 1) if ". " in body else body + "\n"


def _header(name: str, version: str, rng: random.Random) -> str:
    """A header in one of the real history's styles."""
    title = name.removesuffix(".md").replace("-", " ").title()
    style = rng.randrange(6)
    if style == 0:  # an unquoted ": " inside values
        return (
            f"name: Synthetic: {title}\ndescription: Part: made up: {name}\nccVersion: {version}\n"
        )
    if style == 1:  # an unescaped quote inside single quotes
        return f"name: 'Synthetic: {title}'s part'\ndescription: Made up\nccVersion: {version}\n"
    if style == 2:  # JSON-quoted values
        return (
            f'name: "Synthetic: {title} \\"quoted\\""\ndescription: "Made up \\u2014 {name}"\n'
            f'ccVersion: "{version}"\nvariables:\n  - "READ_TOOL_NAME"\n'
        )
    if style == 3:  # an agent with every tool and a folded block
        return (
            f"name: 'Synthetic: {title}'\ndescription: Made up\nccVersion: {version}\n"
            "agentMetadata:\n  agentType: 'general'\n  tools:\n    - *\n  whenToUse: >\n"
            "    Use it for: anything\n    at all.\n"
        )
    if style == 4:  # a literal block
        return (
            f"name: 'Synthetic: {title}'\ndescription: |\n  Line one.\n  Line two.\n"
            f"ccVersion: {version}\n"
        )
    return (
        f"name: 'Synthetic: {title}'\ndescription: Made up {name}\nccVersion: {version}\n"
        "variables:\n  - READ_TOOL_NAME\n  - FALSE\n"
    )


def _file(header: str, body: str) -> str:
    return f"<!--\n{header}-->\n{body}"


def _readme(version: str, files: dict[str, tuple[str, str]]) -> str:
    lines = [f"Prompts as of **[Claude Code v{version}](https://example.com) (today).**", ""]
    for name in sorted(files):
        tokens = len(files[name][1]) // 3
        lines.append(f"- [Synthetic {name}](./system-prompts/{name}) (**{tokens}** tks) - Made up.")
    return "\n".join(lines) + "\n"


def build_messy_history(repo: Path, releases: int, max_parts: int, seed: int = 7) -> int:
    """Write the synthetic repository; returns the number of part files over all releases."""
    rng = random.Random(seed)
    files: dict[str, tuple[str, str]] = {}  # name -> (header, body)
    counter = 0
    stream = bytearray()
    total = 0
    for index in range(releases):
        version = f"2.{index // 100}.{index % 100}"
        changed: dict[str, tuple[str, str] | None] = {}
        target = 100 + (max_parts - 100) * index // max(1, releases - 1)
        while len(files) < target:
            counter += 1
            name = f"{rng.choice(PREFIXES)}part-{counter}.md"
            files[name] = changed[name] = (_header(name, version, rng), _body(rng))
        names = sorted(files)
        for name in rng.sample(names, k=min(len(files), rng.randint(0, 8))):
            files[name] = changed[name] = (_header(name, version, rng), _body(rng))
        for name in rng.sample(names, k=min(len(files), rng.randint(0, 6))):
            files[name] = changed[name] = (files[name][0], _reformat(files[name][1], rng))
        for name in rng.sample(names, k=min(len(files), rng.randint(0, 4))):
            files[name] = changed[name] = (_header(name, version, rng), files[name][1])
        if index % 7 == 3:
            gone = rng.choice(sorted(files))
            del files[gone]
            changed[gone] = None
        if index % 11 == 5:  # a rename: the same body under a new file name
            old = rng.choice(sorted(files))
            counter += 1
            new = f"{old.split('part-')[0]}renamed-{counter}.md"
            files[new] = changed[new] = files.pop(old)
            changed[old] = None
        total += len(files)
        subject = f"v{version} (+{rng.randint(0, 400)} tokens)" if index >= 3 else version
        stream += fast_import_commit(subject, 2 * index)
        for name, content in sorted(changed.items()):
            if content is None:
                stream += f"D system-prompts/{name}\n".encode()
            else:
                stream += f"M 100644 inline system-prompts/{name}\n".encode() + fast_import_data(
                    _file(*content)
                )
        stream += b"M 100644 inline README.md\n" + fast_import_data(_readme(version, files))
        stream += b"\n"
        if index % 10 == 9:
            stream += fast_import_commit("Update README", 2 * index + 1)
            stream += b"M 100644 inline NOTES.md\n" + fast_import_data(f"{index}\n") + b"\n"
    fast_import(repo, bytes(stream))
    return total


def history_from_folders(repo: Path, folders: Iterable[Path]) -> list[str]:
    """A git history with one release commit per release folder (named by its version),
    oldest first; returns the versions. Each commit holds exactly the folder's
    ``system-prompts/``, ``README.md`` and ``LICENSE``."""

    def version_of(folder: Path) -> Version | None:
        try:
            return Version(folder.name)
        except InvalidVersion:
            return None

    versioned = [(version, f) for f in folders if (version := version_of(f)) is not None]
    chosen = [f for _, f in sorted(versioned, key=lambda pair: pair[0])]
    stream = bytearray()
    for minute, folder in enumerate(chosen):
        subject = folder.name if folder.name.startswith("2.0.") else f"v{folder.name} (+0 tokens)"
        stream += fast_import_commit(subject, minute) + b"deleteall\n"
        paths = sorted((folder / "system-prompts").glob("*.md"))
        paths += [p for p in (folder / "README.md", folder / "LICENSE") if p.is_file()]
        for path in paths:
            where = path.relative_to(folder).as_posix()
            stream += f"M 100644 inline {where}\n".encode() + fast_import_data(path.read_bytes())
        stream += b"\n"
    fast_import(repo, bytes(stream))
    return [f.name for f in chosen]
