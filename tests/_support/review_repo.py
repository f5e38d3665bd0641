"""A git repository of catalogs in two commits, for the review's tests.

The first commit holds ``prompts/demo/1.0.0``: a main agent and an ``explore``
sub-agent, two system parts and a tool. The second changes a line of one part,
adds a part and touches the sub-agent's own part. Each side is also written to
a folder of its own, so a test can ask ``catalog assemble`` about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests._support.piebald_data import git
from tests.conftest import write_catalog

AGENTS = [{"name": "explore", "tools": ["Bash"]}]

INTRO = "You are Demo, a coding agent.\nWork in small steps."
RULES_OLD = "Rules:\n- Be brief.\n- Never guess a path.\n- Ask before deleting."
RULES_NEW = "Rules:\n- Be brief.\n- Read a file before editing it.\n- Ask before deleting."
SAFETY = "Refuse to write malware."
EXPLORE_OLD = "You search files. Report paths."
EXPLORE_NEW = "You search files quickly. Report paths with line numbers."
BASH = "Runs a shell command."


def parts(second: bool) -> list[dict[str, Any]]:
    """The parts of the first commit, or of the second."""
    found: list[dict[str, Any]] = [
        {"id": "intro", "body": INTRO, "order": 10},
        {"id": "rules", "body": RULES_NEW if second else RULES_OLD, "order": 20},
        {
            "id": "explore-intro",
            "body": EXPLORE_NEW if second else EXPLORE_OLD,
            "order": 10,
            "agents": ["explore"],
        },
        {"id": "bash", "kind": "tool", "name": "Bash", "body": BASH, "order": 90, "agents": ["*"]},
    ]
    if second:
        found.append({"id": "safety", "body": SAFETY, "order": 30})
    return found


def write_side(root: Path, second: bool, review: dict[str, Any] | None = None) -> Path:
    """``root/demo/1.0.0`` as the first or second commit has it."""
    return write_catalog(
        root,
        "demo",
        "1.0.0",
        parts(second),
        agents=AGENTS,
        catalog={"tokenizer": "chars"},
        extra={"review": review} if review else None,
    )


@dataclass(frozen=True)
class TwoCommits:
    """The repository, its two commits, and each side's catalog folder outside it."""

    repo: Path
    first: str
    second: str
    old_folder: Path
    new_folder: Path


def two_commits(tmp: Path, review: dict[str, Any] | None = None) -> TwoCommits:
    """Build the repository under ``tmp``."""
    repo = tmp / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_side(repo / "prompts", second=False, review=review)
    (repo / "README.md").write_text("A project with prompts.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    first = git(repo, "rev-parse", "HEAD")
    write_side(repo / "prompts", second=True, review=review)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second")
    second = git(repo, "rev-parse", "HEAD")
    old = write_side(tmp / "old", second=False, review=review)
    new = write_side(tmp / "new", second=True, review=review)
    return TwoCommits(repo, first.strip(), second.strip(), old, new)
