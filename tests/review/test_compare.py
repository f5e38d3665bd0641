"""`catalog review` on a repository of two commits: exactly the changed lines of the
assembled prompts, and the tokens `catalog assemble` gives on each side."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests._support.piebald_data import git
from tests._support.review_repo import AGENTS, TwoCommits, parts, two_commits, write_side
from tests.conftest import run_cli as run
from tests.conftest import write_catalog


@pytest.fixture
def repo(tmp_path: Path) -> TwoCommits:
    return two_commits(tmp_path)


def _changed(diff: str) -> list[str]:
    """The lines a unified diff adds or removes (not its file headers)."""
    return [
        line
        for line in diff.split("\n")
        if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))
    ]


def _assembled_tokens(capsys: pytest.CaptureFixture[str], folder: Path, agent: str) -> int:
    code, out, _ = run(capsys, "assemble", str(folder), "--agent", agent, "--format", "json")
    assert code == 0
    tokens: int = json.loads(out)["tokens"]
    return tokens


def _review(
    capsys: pytest.CaptureFixture[str], repo: TwoCommits, *more: str
) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(
        capsys, "review", repo.first, repo.second, "--repo", str(repo.repo), "--format", "json",
        *more,
    )  # fmt: skip
    return code, json.loads(out)


def test_review_shows_exactly_the_changed_lines_of_each_agents_prompt(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = _review(capsys, repo)
    assert code == 1
    [version] = data["versions"]
    assert (version["catalog"], version["root"], version["status"]) == (
        "demo",
        "prompts",
        "changed",
    )
    prompts = {(p["context"], p["agent"]): p for p in version["prompts"]}
    assert set(prompts) == {("empty", "main"), ("empty", "explore")}
    main = prompts["empty", "main"]
    assert _changed(main["system_diff"]) == [
        "-- Never guess a path.",
        "+- Read a file before editing it.",
        "+",
        "+Refuse to write malware.",
    ]
    assert main["parts_in"] == [{"id": "safety", "why": "always"}]
    assert main["parts_out"] == []
    assert main["tools_diff"] == ""
    explore = prompts["empty", "explore"]
    assert _changed(explore["system_diff"]) == [
        "-You search files. Report paths.",
        "+You search files quickly. Report paths with line numbers.",
    ]


def test_review_tokens_are_those_catalog_assemble_gives_on_each_side(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    _, data = _review(capsys, repo)
    for prompt in data["versions"][0]["prompts"]:
        agent = prompt["agent"]
        old = _assembled_tokens(capsys, repo.old_folder, agent)
        new = _assembled_tokens(capsys, repo.new_folder, agent)
        assert (prompt["old_tokens"], prompt["new_tokens"]) == (old, new)
        assert prompt["delta"] == new - old != 0


def test_text_report_says_the_same(repo: TwoCommits, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "review", repo.first, repo.second, "--repo", str(repo.repo))
    assert code == 1
    assert "demo 1.0.0 in prompts/: changed" in out
    assert "    + safety: always" in out
    assert "    -- Never guess a path.\n    +- Read a file before editing it.\n" in out


def test_the_working_tree_is_the_default_head(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "review", repo.second, "--repo", str(repo.repo))
    assert (code, out.splitlines()[-1]) == (0, "no catalog changed")
    write_side(repo.repo / "prompts", second=False)  # back to the first commit's text
    code, data = _review_worktree(capsys, repo)
    assert code == 1
    main = next(p for p in data["versions"][0]["prompts"] if p["agent"] == "main")
    assert main["parts_out"] == [{"id": "safety", "why": "no longer in the catalog"}]
    assert data["head"] == "working tree"


def _review_worktree(
    capsys: pytest.CaptureFixture[str], repo: TwoCommits
) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "review", repo.second, "--repo", str(repo.repo), "--format", "json")
    return code, json.loads(out)


def test_an_edited_body_without_its_stamp_is_trouble(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo.repo / "prompts" / "demo" / "1.0.0" / "intro.md").write_text("Edited, unstamped.")
    code, data = _review_worktree(capsys, repo)
    assert code == 2
    assert "sha256" in data["versions"][0]["error"]


def test_new_and_removed_catalogs_and_versions(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = repo.repo / "prompts"
    shutil.copytree(prompts / "demo" / "1.0.0", prompts / "demo" / "1.1.0")
    manifest = prompts / "demo" / "1.1.0" / "catalog.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0.0"', 'version = "1.1.0"'))
    shutil.copytree(prompts / "demo", prompts / "other")
    for folder in (prompts / "other").iterdir():
        toml = folder / "catalog.toml"
        toml.write_text(toml.read_text().replace('name = "demo"', 'name = "other"'))
    git(repo.repo, "add", "-A")
    git(repo.repo, "commit", "-q", "-m", "third")
    shutil.rmtree(prompts / "demo" / "1.0.0")
    code, data = _review_worktree(capsys, repo)
    assert code == 1
    found = {
        (v["catalog"], v["old_version"], v["new_version"], v["status"], v["catalog_status"])
        for v in data["versions"]
    }
    assert found == {
        ("demo", "1.0.0", "1.1.0", "added", "changed"),
        ("demo", "1.0.0", None, "removed", "changed"),
        ("other", None, "1.0.0", "added", "added"),
        ("other", None, "1.1.0", "added", "added"),
    }
    code, out, _ = run(capsys, "review", repo.second, "HEAD", "--repo", str(repo.repo))
    assert "demo 1.0.0 -> 1.1.0 in prompts/: new version, compared with 1.0.0" in out
    assert "other 1.0.0 (new) in prompts/: new catalog" in out


def test_review_contexts_and_models_come_from_the_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = {
        "models": ["claude-sonnet-4-5"],
        "context": [{"name": "with-bash", "agents": ["explore"], "context": {"tools": ["Bash"]}}],
    }
    repo = two_commits(tmp_path, review=declared)
    _, data = _review(capsys, repo)
    [prompt] = data["versions"][0]["prompts"]
    assert (prompt["context"], prompt["agent"]) == ("with-bash", "explore")
    [cost] = prompt["costs"]
    assert cost["model"] == "claude-sonnet-4-5"
    # Under Sonnet 4.5's minimum of 1024 tokens: no saving, and the reason says so.
    assert cost["before"]["cost_cached"] == cost["before"]["cost_uncached"]
    assert "1024" in cost["after"]["no_saving_because"]


@pytest.mark.parametrize(
    ("bound", "status"),
    [("tokens:+5", 1), ("tokens:+10", 0), ("tokens:+40%", 1), ("tokens:+50%", 0)],
)
def test_fail_on_bounds(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str], bound: str, status: int
) -> None:
    # With the tools (6 tokens each side): main grows 36 -> 46 (+10, +27.8%), explore
    # 14 -> 21 (+7, +50%); a bound is broken by growing beyond it.
    code, _ = _review(capsys, repo, "--fail-on", bound)
    assert code == status


def test_a_bound_that_does_not_parse_is_bad_usage(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "review", repo.first, "--repo", str(repo.repo), "--fail-on", "x")
    assert code == 2 and "tokens:+500" in err


def test_a_revision_that_names_no_commit_is_bad_usage(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "review", "no-such-branch", "--repo", str(repo.repo))
    assert code == 2 and "no-such-branch is not a commit here" in err


def test_the_prompts_a_manifest_asks_for_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    many = {"context": [{"name": f"c{n}"} for n in range(501)]}  # 501 x 2 agents > 1000
    repo = two_commits(tmp_path, review=many)
    code, data = _review(capsys, repo)
    assert code == 2
    assert "ask for 1002 prompts, more than 1000" in data["versions"][0]["error"]


def test_two_folders_of_one_version_are_trouble_named_by_the_catalog(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = repo.repo / "prompts" / "demo"
    shutil.copytree(prompts / "1.0.0", prompts / "1.0")
    code, data = _review_worktree(capsys, repo)
    assert code == 2
    [version] = data["versions"]
    assert (version["catalog"], version["old_version"], version["new_version"]) == (
        "demo",
        None,
        None,
    )
    assert "hold the same version 1.0.0" in version["error"]


def test_a_tool_description_change_is_in_the_tools_diff(
    repo: TwoCommits, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = [
        {**part, "body": "Runs a shell command, with a timeout."} if part["id"] == "bash" else part
        for part in parts(second=True)
    ]
    write_catalog(
        repo.repo / "prompts", "demo", "1.0.0", changed, agents=AGENTS,
        catalog={"tokenizer": "chars"},
    )  # fmt: skip
    code, data = _review_worktree(capsys, repo)
    assert code == 1
    for prompt in data["versions"][0]["prompts"]:
        assert prompt["system_diff"] == ""
        assert _changed(prompt["tools_diff"]) == [
            "-Runs a shell command.",
            "+Runs a shell command, with a timeout.",
        ]
        assert (prompt["old_tools_tokens"], prompt["new_tools_tokens"]) == (6, 10)
