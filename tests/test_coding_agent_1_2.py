"""coding-agent 1.2.0 against spec 05, behaviour by behaviour, on trees of its own."""

from __future__ import annotations

import functools
from pathlib import Path

import catalog
from catalog import Catalog


@functools.cache
def cat() -> Catalog:
    return catalog.load("coding-agent", "==1.2.0")


def test_claude_md_files_are_gathered_in_spec_order(tmp_path: Path) -> None:
    """Section 6: cwd's CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, then parent folders."""
    home, top = tmp_path / "home", tmp_path / "top"
    cwd = top / "mid" / "app"
    (home / ".claude").mkdir(parents=True)
    (cwd / ".claude").mkdir(parents=True)
    files = {
        cwd / "CLAUDE.md": "app",
        cwd / ".claude" / "CLAUDE.md": "app dot-claude",
        cwd / "CLAUDE.local.md": "app local",
        top / "mid" / "CLAUDE.md": "mid",
        top / "mid" / "CLAUDE.local.md": "mid local, not read",
        top / "CLAUDE.md": "top",
        home / ".claude" / "CLAUDE.md": "user",
    }
    for path, text in files.items():
        path.write_text(text)
    gathered = catalog.gather(cat(), cwd, home=home, root=top, git=False)
    assert [(f.content, f.scope) for f in gathered.project_files] == [
        ("app", "project"),
        ("app dot-claude", "project"),
        ("app local", "local"),
        ("mid", "parent"),
        ("top", "parent"),
        ("user", "user"),
    ]
