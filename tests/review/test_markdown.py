"""`catalog review --format markdown`: one pull-request comment, under GitHub's limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.importers.piebald.read import read_checkout
from catalog.importers.piebald.write import import_releases
from catalog.review.compare import PromptChange, Review, VersionChange
from catalog.review.markdown import COMMENT_LIMIT, MARKER, render_markdown
from tests._support.piebald_data import git
from tests._support.review_repo import two_commits
from tests.conftest import run_cli as run


def _prompt(agent: str, diff: str) -> PromptChange:
    return PromptChange(
        context="empty",
        agent=agent,
        status="changed",
        old_tokens=100,
        new_tokens=120,
        old_tools_tokens=0,
        new_tools_tokens=0,
        system_diff=diff,
        tools_diff="",
        parts_in=(("rules", "always | <b>bold</b>"),),
        parts_out=(),
        costs=(),
    )


def _review(*prompts: PromptChange) -> Review:
    version = VersionChange("prompts", "demo", "changed", "changed", "1.0.0", "1.1.0", prompts)
    return Review("base", "head", (version,))


def test_summary_table_first_then_a_folded_section_per_prompt() -> None:
    text = render_markdown(_review(_prompt("main", "-old\n+new"), _prompt("explore", "+more")))
    assert text.startswith(MARKER + "\n")
    table = text.index("| Catalog | Change | Context | Agent | Tokens |")
    assert table < text.index("<details>")
    assert "| `demo 1.0.0 -> 1.1.0` | changed | `empty` | `main` | 100 -> 120 (+20) |" in text
    assert text.count("<details>") == text.count("</details>") == 2
    assert "```diff\n-old\n+new\n```" in text
    # Free text is escaped: no HTML of a part's reason reaches the comment.
    assert " <b>bold" not in text and "always \\| \\<b>bold\\</b>" in text


def test_long_diffs_are_cut_with_a_note_and_the_comment_fits() -> None:
    huge = "\n".join(f"+line {n} " + "x" * 90 for n in range(5000))
    small = "-a\n+b"
    text = render_markdown(
        _review(_prompt("main", huge), _prompt("explore", small)),
        command="catalog review base head",
    )
    assert len(text) < COMMENT_LIMIT
    assert "```diff\n-a\n+b\n```" in text  # the short diff is whole
    assert (
        "more line(s) of this diff. See it whole with `catalog review base head` in a terminal."
        in text
    )
    assert "+line 0 " in text and "+line 4999 " not in text


def test_a_diff_holding_backticks_gets_a_longer_fence() -> None:
    text = render_markdown(_review(_prompt("main", "+```python\n+print(1)\n+```")))
    assert "````diff\n+```python\n+print(1)\n+```\n````" in text


def test_no_change_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = two_commits(tmp_path)
    code, out, _ = run(
        capsys, "review", repo.second, "--repo", str(repo.repo), "--format", "markdown"
    )
    assert code == 0
    assert out.startswith(MARKER) and "No catalog changed." in out


def test_two_consecutive_claude_code_releases_fit_one_comment(
    claude_code_releases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commits = []
    for version in ("2.1.239", "2.1.240"):
        release = read_checkout(claude_code_releases / version)
        import_releases([release], name="claude-code", out=repo / "prompts")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", version)
        commits.append(git(repo, "rev-parse", "HEAD").strip())
    code, out, _ = run(capsys, "review", *commits, "--repo", str(repo), "--format", "markdown")
    assert code == 1
    assert len(out) < COMMENT_LIMIT
    assert out.startswith(MARKER)
    assert "| `claude-code 2.1.239 -> 2.1.240` | changed | `empty` | `main` |" in out
    assert "<details>" in out and "</details>" in out
