"""Attacks on the composite action: values a pull request's author may choose (a branch
name given as a revision, a list of paths, text the review quotes into the log) must
stay data, never code, options or workflow commands."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.github_action import read_action, run_steps
from tests._support.github_api import FakeGitHub
from tests._support.review_repo import TwoCommits, two_commits


@pytest.fixture
def repo(tmp_path: Path) -> TwoCommits:
    return two_commits(tmp_path)


def test_no_script_pastes_an_expression_into_its_text() -> None:
    for step in read_action()["runs"]["steps"]:
        assert "${{" not in step["run"], step["id"]


@pytest.mark.parametrize(
    "base", ["--prices=/etc/passwd", "--repo=/", "$(touch pwned)", "`touch pwned`", "x;touch pwned"]
)
def test_a_revision_is_never_an_option_or_a_command(
    repo: TwoCommits, tmp_path: Path, github: FakeGitHub, base: str
) -> None:
    done = run_steps(repo, tmp_path, {"base": base}, github)
    status, output = done["review"]
    assert status == 0  # the step records the status; the verdict fails
    assert "BASE and HEAD must name commits of this clone" in output
    assert done["verdict"][0] == 1 and "could not review" in done["verdict"][1]
    assert not (repo.repo / "pwned").exists() and not (tmp_path / "pwned").exists()
    assert github.comments == []


def test_a_list_of_paths_is_split_but_never_globbed(
    repo: TwoCommits, tmp_path: Path, github: FakeGitHub
) -> None:
    # Expanded, "*" would name every folder of the checkout: prompts/ among them.
    done = run_steps(repo, tmp_path, {"paths": "*"}, github)
    assert done["review"][0] == 0, done["review"][1]
    assert "No catalog changed." in github.comments[0]["body"]


def test_what_the_review_writes_to_the_log_runs_no_workflow_command(tmp_path: Path) -> None:
    # A stand-in for the command that writes workflow commands, as a quoted file might.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "catalog").write_text(
        "#!/bin/sh\necho '::add-mask::secret' >&2\necho '::error::forged' >&2\nexit 1\n"
    )
    (fake / "catalog").chmod(0o755)
    [step] = [step for step in read_action()["runs"]["steps"] if step["id"] == "review"]
    env = {name: "" for name in step["env"]}
    env.update(
        TURNS="10",
        REPORT=str(tmp_path / "report.md"),
        GITHUB_OUTPUT=str(tmp_path / "out"),
        PATH=f"{fake}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    ran = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=True,
    )
    lines = ran.stdout.splitlines()
    stop = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[stop].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    resume = lines.index(f"::{token}::")
    assert lines[stop + 1 : resume] == ["::add-mask::secret", "::error::forged"]
    assert (tmp_path / "out").read_text().startswith("status=1\n")
