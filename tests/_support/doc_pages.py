"""How the README and the pages of docs/ are run: their fenced blocks, the markers
written before them, and a page's ``sh`` and ``python`` blocks run as written.

Every ```python and ```sh block of a page runs, in the order of the page, in
one fresh folder per page (``HOME`` is that folder too), unless an HTML
comment right before the block says otherwise:

- ``<!-- not run: WHY -->``: the block is left out (it needs the network, or
  it is an excerpt);
- ``<!-- file: PATH -->``: the block, in any language, is written to ``PATH``
  instead (e.g. a context file or a test file that a later block uses);
- ``<!-- output of: COMMAND -->``: the block (a ``text`` one) is what COMMAND
  prints, run where the page's blocks run, at that point of the page: the
  test runs it and compares, so a shown output cannot drift from the code.

Python blocks of a page share one namespace, as if typed into one session,
and carry their own ``assert`` lines. Each line of a ``sh`` block is a
command (a line ending in ``\\`` continues on the next); it must exit 0, or
the status its comment names (``# exit 1``). ``catalog`` and ``python`` run
this tree's code with the test's interpreter.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import catalog

__all__ = ["PAGES", "ROOT", "SRC", "Block", "blocks", "blocks_in", "run_page", "run_sh"]

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
SRC = Path(catalog.__file__).resolve().parents[1]

_FENCE = re.compile(r"^```(\w*)\s*$")
_MARK = re.compile(r"^<!--\s*(not run|file|output of):\s*(.*?)\s*-->\s*$")
_EXIT = re.compile(r"#.*\bexit (\d+)")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: str
    line: int
    lang: str
    text: str
    mark: str = ""
    arg: str = ""


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` with the marker written right before each."""
    return blocks_in(page.read_text(encoding="utf-8"), page.name)


def blocks_in(text: str, page: str) -> list[Block]:
    """The fenced blocks of the Markdown ``text`` (from ``page``), with their markers."""
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opened = _FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        start = index
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        mark = _MARK.match(lines[start - 1]) if start else None
        found.append(
            Block(
                page,
                start + 1,
                opened.group(1),
                "\n".join(lines[start + 1 : end]) + "\n",
                *(mark.groups() if mark else ()),
            )
        )
        index = end + 1
    return found


def _commands(text: str) -> list[str]:
    """The commands of a ``sh`` block, continuation lines joined."""
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        command = (pending + line).strip()
        pending = ""
        if command and not command.startswith("#"):
            commands.append(command)
    return commands


def _shell(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``command`` run by bash in ``folder``, ``catalog`` and ``python`` being this tree's."""
    prelude = (
        f'catalog() {{ {shlex.quote(sys.executable)} -m catalog "$@"; }}\n'
        f'python() {{ {shlex.quote(sys.executable)} "$@"; }}\n'
    )
    env = {**os.environ, "HOME": str(folder), "PYTHONPATH": str(SRC), "NO_COLOR": "1"}
    env.pop("CATALOG_PATH", None)
    return subprocess.run(
        ["bash", "-c", prelude + command],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _check_output(block: Block, folder: Path) -> None:
    done = _shell(block.arg, folder)
    assert done.stdout == block.text, (
        f"{block.page}:{block.line}: `{block.arg}` prints (exit {done.returncode}):\n"
        f"{done.stdout}{done.stderr[-2000:]}"
    )


def run_sh(block: Block, folder: Path) -> None:
    for command in _commands(block.text):
        expected = _EXIT.search(command)
        done = _shell(command, folder)
        status = int(expected.group(1)) if expected else 0
        assert done.returncode == status, (
            f"{block.page}:{block.line}: `{command}` exited {done.returncode}, not {status}\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )


def run_page(page: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(folder)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CATALOG_PATH", raising=False)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    ran = 0
    for block in blocks(page):
        if block.mark == "file":
            target = folder / block.arg
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            continue
        if block.mark == "output of":
            _check_output(block, folder)
            ran += 1
            continue
        if block.mark == "not run" or block.lang not in ("python", "sh"):
            continue
        ran += 1
        if block.lang == "sh":
            run_sh(block, folder)
        else:
            code = compile(block.text, f"{block.page}:{block.line}", "exec")
            exec(code, namespace)
    return ran
