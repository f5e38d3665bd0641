"""coding-agent 1.2.0 gathers as Claude Code does: imports, path-scoped rules, user rules."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import catalog
from catalog import Catalog, SourceWarning
from tests._support.gathering import write


@functools.cache
def cat() -> Catalog:
    return catalog.load("coding-agent", "==1.2.0")


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home, repository, working directory) with CLAUDE.md files, imports and rules."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    cwd = repo / "pkg"
    (repo / ".git").mkdir(parents=True)
    write(home / ".claude" / "CLAUDE.md", "user prefs, see @~/notes/extra.md")
    write(home / "notes" / "extra.md", "extra prefs")
    write(home / ".claude" / "rules" / "py.md", '---\npaths: "**/*.py"\n---\nUser python rule')
    write(repo / "CLAUDE.md", "repo, see @docs/conv.md\n```\n@docs/not-an-import.md\n```")
    write(repo / "docs" / "conv.md", "conventions")
    write(repo / "docs" / "not-an-import.md", "NOT IMPORTED")
    write(repo / ".claude" / "rules" / "all.md", "always rule")
    write(
        repo / ".claude" / "rules" / "api" / "py.md",
        "---\npaths:\n  - pkg/src/**/*.py\n---\nPkg rule",
    )
    write(cwd / "CLAUDE.md", "pkg")
    write(cwd / "CLAUDE.local.md", "pkg local")
    return home, repo, cwd


def test_imports_rules_and_user_rules_in_order(tree: tuple[Path, Path, Path]) -> None:
    home, repo, cwd = tree
    touched = {"touched_files": ["src/app.py"]}
    files = catalog.gather(cat(), cwd, home=home, git=False, base=touched).project_files
    assert [(f.content, f.scope, f.source) for f in files] == [
        ("pkg local", "local", "local"),
        ("pkg", "project", "project"),
        ("repo, see @docs/conv.md\n```\n@docs/not-an-import.md\n```", "parent", "parent"),
        ("conventions", "parent", "parent"),
        ("always rule", "project", "rules"),
        ("Pkg rule", "project", "rules"),
        ("user prefs, see @~/notes/extra.md", "user", "user"),
        ("extra prefs", "user", "user"),
        ("User python rule", "user", "user-rules"),
    ]
    assert files[3].imported_by == (str(repo / "CLAUDE.md"),)
    assert files[7].imported_by == (str(home / ".claude" / "CLAUDE.md"),)


def test_scoped_rules_wait_for_a_matching_touched_file(tree: tuple[Path, Path, Path]) -> None:
    home, _, cwd = tree
    files = catalog.gather(cat(), cwd, home=home, git=False).project_files
    assert "Pkg rule" not in [f.content for f in files]
    assert "User python rule" not in [f.content for f in files]
    assert "always rule" in [f.content for f in files]
    other = catalog.gather(cat(), cwd, home=home, git=False, base={"touched_files": ["a.ts"]})
    assert "Pkg rule" not in [f.content for f in other.project_files]


def test_the_prompt_introduces_imported_files(tree: tuple[Path, Path, Path]) -> None:
    home, repo, cwd = tree
    prompt = cat().assemble(catalog.gather(cat(), cwd, home=home, git=False))
    conv, top = repo / "docs" / "conv.md", repo / "CLAUDE.md"
    assert f"\n\n---\n\n({conv}, imported by {top})\n\nconventions\n\n---\n\n" in prompt.text


def test_an_import_cycle_is_reported_once_per_edge(tree: tuple[Path, Path, Path]) -> None:
    home, repo, cwd = tree
    write(repo / "docs" / "conv.md", "conventions, back to @../CLAUDE.md")
    with pytest.warns(SourceWarning, match="import cycle"):
        files = catalog.gather(cat(), cwd, home=home, git=False).project_files
    assert [f.content for f in files].count("conventions, back to @../CLAUDE.md") == 1


def test_sub_folder_claude_md_files_come_with_touched_files(
    tree: tuple[Path, Path, Path],
) -> None:
    home, _, cwd = tree
    write(cwd / "src" / "CLAUDE.md", "src notes")
    write(cwd / "src" / "db" / ".claude" / "CLAUDE.md", "db notes")
    write(cwd / "docs" / "CLAUDE.md", "docs notes: nothing touched there")
    without = catalog.gather(cat(), cwd, home=home, git=False).project_files
    assert "src notes" not in [f.content for f in without]
    touched = {"touched_files": ["src/db/models.py"]}
    files = catalog.gather(cat(), cwd, home=home, git=False, base=touched).project_files
    nested = [(f.content, f.source) for f in files if f.source == "nested"]
    assert nested == [("src notes", "nested"), ("db notes", "nested")]
    sources = [f.source for f in files]
    assert sources.index("nested") > sources.index("rules")
    assert sources.index("nested") < sources.index("user")
    prompt = cat().assemble(catalog.gather(cat(), cwd, home=home, git=False, base=touched))
    assert "The CLAUDE.md files of the sub-folders you are working in" in prompt.text


def test_the_local_file_is_read_in_every_folder_of_the_walk(
    tree: tuple[Path, Path, Path],
) -> None:
    home, repo, cwd = tree
    write(repo / "CLAUDE.local.md", "repo local, see @docs/mine.md")
    write(repo / "docs" / "mine.md", "my repo notes")
    write(repo.parent / "CLAUDE.local.md", "workspace local")
    files = catalog.gather(cat(), cwd, home=home, git=False).project_files
    # In each folder the private file first: it wins over the folder's CLAUDE.md.
    assert [(f.content, f.scope) for f in files][:7] == [
        ("pkg local", "local"),
        ("pkg", "project"),
        ("repo local, see @docs/mine.md", "parent"),
        ("my repo notes", "parent"),
        ("repo, see @docs/conv.md\n```\n@docs/not-an-import.md\n```", "parent"),
        ("conventions", "parent"),
        ("workspace local", "parent"),
    ]
    prompt = cat().assemble(catalog.gather(cat(), cwd, home=home, git=False)).text
    assert "then the CLAUDE.local.md and CLAUDE.md of each parent folder" in prompt
    assert prompt.index("repo local") < prompt.index("workspace local")


def test_a_project_claude_md_cannot_import_from_the_home_folder_the_users_can(
    tree: tuple[Path, Path, Path],
) -> None:
    home, repo, cwd = tree
    write(home / ".claude" / "my-notes.md", "personal notes")
    write(repo / "CLAUDE.md", "repo\n@~/.claude/my-notes.md\n")
    with pytest.warns(SourceWarning) as caught:
        files = catalog.gather(cat(), cwd, home=home, git=False).project_files
    assert "personal notes" not in [f.content for f in files]
    assert [str(w.message).split(" refused")[0] for w in caught] == [
        f"{repo / 'CLAUDE.md'}:2: import @~/.claude/my-notes.md"
    ]
    write(repo / "CLAUDE.md", "repo")
    write(home / ".claude" / "CLAUDE.md", "user prefs\n@my-notes.md\n")
    files = catalog.gather(cat(), cwd, home=home, git=False).project_files
    assert [(f.content, f.scope) for f in files][-2:] == [
        ("user prefs\n@my-notes.md\n", "user"),
        ("personal notes", "user"),
    ]
