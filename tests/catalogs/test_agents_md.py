"""The Codex-style example catalog (examples/agents-md): the features combine as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import Catalog, SourceWarning, load_dir
from catalog.cli import main
from tests._support.gathering import trace_in, write

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agents-md" / "agents-md" / "1.0.0"
KIB = 1024


@pytest.fixture
def cat() -> Catalog:
    return load_dir(EXAMPLE)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """(home, working directory): a repository whose files add up to more than 32 KiB."""
    home, repo = tmp_path / "home", tmp_path / "work" / "repo"
    (repo / ".git").mkdir(parents=True)
    write(tmp_path / "work" / "AGENTS.md", "above the repository: never read")
    write(home / ".codex" / "AGENTS.override.md", "  \n")  # empty: the next name is used
    write(home / ".codex" / "AGENTS.md", "user guidance")
    write(repo / "AGENTS.md", "r" * (20 * KIB))
    write(repo / "svc" / "AGENTS.override.md", "s" * (10 * KIB))
    write(repo / "svc" / "AGENTS.md", "shadowed by the override")
    write(repo / "svc" / "api" / "AGENTS.md", "")
    write(repo / "svc" / "api" / "TEAM_GUIDE.md", "t" * (5 * KIB))
    write(repo / "svc" / "api" / "v2" / "AGENTS.md", "never reached: over the budget")
    return home, repo / "svc" / "api" / "v2"


def test_override_names_root_down_walk_and_the_32_kib_budget(
    cat: Catalog, tree: tuple[Path, Path]
) -> None:
    home, cwd = tree
    with pytest.warns(SourceWarning) as caught:
        gathered = trace_in(cat, cwd, home=home)
    files = gathered.context.project_files
    assert [(Path(f.path).relative_to(cwd.parents[4]).as_posix(), f.scope) for f in files] == [
        ("home/.codex/AGENTS.md", "user"),
        ("work/repo/AGENTS.md", "project"),
        ("work/repo/svc/AGENTS.override.md", "project"),
        ("work/repo/svc/api/TEAM_GUIDE.md", "project"),
    ]
    # 20 KiB + 10 KiB leave 2 KiB of the 32 KiB for the third file.
    assert files[3].content.startswith("t" * (2 * KIB) + "\n\n[... cut:")
    assert "t" * (2 * KIB + 1) not in files[3].content
    statuses = {Path(f.path).name + ":" + f.status for f in gathered.files}
    assert "TEAM_GUIDE.md:cut" in statuses
    assert "AGENTS.md:dropped" in statuses  # the working directory's own file
    messages = [str(w.message) for w in caught]
    assert any(
        "cut to 2048 of 5120 bytes by the 32768-byte budget of project" in m for m in messages
    )
    assert any(m.endswith("dropped, over the 32768-byte budget of project") for m in messages)


def test_the_fallback_names_are_a_setting(cat: Catalog, tree: tuple[Path, Path]) -> None:
    home, cwd = tree
    write(cwd.parent / "TEAM_GUIDE.md", "team guide")
    base = {"variables": {"fallback_names": ["GUIDE.md"]}}
    write(cwd.parent / "GUIDE.md", "guide")
    (cwd.parents[2] / "AGENTS.md").write_text("small root", encoding="utf-8")
    gathered = trace_in(cat, cwd, home=home, base=base)
    assert [f.content for f in gathered.context.project_files] == [
        "user guidance",
        "small root",
        "s" * (10 * KIB),
        "guide",
        "never reached: over the budget",
    ]


def test_the_example_assembles_from_the_command_line(
    tree: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    home, cwd = tree
    args = ["assemble", str(EXAMPLE), "--from-dir", str(cwd), "--home", str(home), "--no-git"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out.startswith("You are a coding agent")
    assert f"# AGENTS.md instructions for {cwd}" in out
    assert '<INSTRUCTIONS source="' + str(home / ".codex" / "AGENTS.md") + '" scope="user">' in out
    assert "catalog: warning:" in err and "32768-byte budget" in err
