"""Each gathering reads its files again: a file changed between two gatherings of one
process is seen, even with the same size and the same modification time.

pi re-reads SYSTEM.md, APPEND_SYSTEM.md, the context files and the skills on
``reload()``; ``catalog.gather`` is that reload, so nothing read by one
gathering may be served to the next from a cache that a rewrite in place
would not invalidate.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import catalog
from catalog import Catalog
from catalog.cli import main
from tests._support.gathering import gather_in, skill, write

FILE_BINDING = {"binding": [{"name": "file:", "source": "file", "description": "a file"}]}


def _rewrite(path: Path, text: str) -> None:
    """Write ``text`` (as long as the old text) in place, keeping the old times."""
    before = path.stat()
    assert len(text.encode("utf-8")) == before.st_size
    with open(path, "r+b") as handle:  # the same inode, rewritten
        handle.write(text.encode("utf-8"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


def test_pi_sees_a_new_system_md_on_the_next_gathering(tmp_path: Path) -> None:
    pi = catalog.load("pi")
    home, proj = tmp_path / "home", tmp_path / "proj"
    system = write(proj / ".sf" / "SYSTEM.md", "You are the OLD agent.\n")
    write(home / ".sf" / "agent" / "SYSTEM.md", "global, shadowed by the project's\n")
    first = pi.assemble(gather_in(pi, proj, home=home)).text
    _rewrite(system, "You are the NEW agent.\n")
    second = pi.assemble(gather_in(pi, proj, home=home)).text
    assert first.startswith("You are the OLD agent.")
    assert second.startswith("You are the NEW agent.")
    system.unlink()  # gone: the global one takes its place
    third = pi.assemble(gather_in(pi, proj, home=home)).text
    assert third.startswith("global, shadowed by the project's")


def test_every_kind_of_gathered_file_is_read_again(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    cat = build(
        {
            "files": [{"names": ["AGENTS.md"], "walk": "cwd", "imports": True}],
            "text": [{"names": ["SYSTEM.md"], "target": "variable:t"}],
            "skills": [".skills"],
            "soul": "SOUL.md",
        },
        extra=FILE_BINDING,
        variables=[{"name": "t", "type": "str"}],
    )
    files = {
        "AGENTS.md": "agents OLD @more.md",
        "more.md": "more OLD",
        "SYSTEM.md": "system OLD [file:notes.md]",
        "notes.md": "notes OLD",
        "SOUL.md": "soul OLD",
    }
    for name, text in files.items():
        write(tmp_path / name, text)
    skill_file = skill(tmp_path / ".skills" / "s", "name: s\ndescription: skill OLD")

    def texts() -> list[str]:
        ctx = gather_in(cat, tmp_path)
        return [
            *(f.content for f in ctx.project_files),
            str(ctx.variables["t"]),
            ctx.files["notes.md"],
            ctx.soul,
            ctx.skills[0].description,
        ]

    assert all("OLD" in text for text in texts())
    for path in [*(tmp_path / name for name in files), skill_file]:
        _rewrite(path, path.read_text(encoding="utf-8").replace("OLD", "NEW"))
    again = texts()
    assert all("NEW" in text and "OLD" not in text for text in again), again


def test_the_command_sees_the_change_within_one_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    system = write(proj / ".sf" / "SYSTEM.md", "OLD base\n")
    options = ["--from-dir", str(proj), "--home", str(home), "--no-git"]
    assert main(["assemble", "pi", *options]) == 0
    assert capsys.readouterr().out.startswith("OLD base")
    _rewrite(system, "NEW base\n")
    assert main(["assemble", "pi", *options]) == 0
    assert capsys.readouterr().out.startswith("NEW base")


def test_an_unknown_option_is_refused_as_python_refuses_a_keyword(tmp_path: Path) -> None:
    cat = catalog.load("coding-agent")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colck'"):
        catalog.gather(cat, tmp_path, colck=None)  # type: ignore[call-arg]
