"""dispatch 1.1.0 against dispatch's design note, behaviour by behaviour, on folders of its own.

docs/catalogs/dispatch.md maps each behaviour to the catalog and to these tests.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import Catalog, Sessions, SourceWarning
from tests._support.gathering import gather_in, git, write


@functools.cache
def dispatch() -> Catalog:
    return catalog.load("dispatch", "==1.1.0")


def render(cwd: Path, template: str | None = None, **kwargs: Any) -> str:
    """The prompt for a project at ``cwd``, its template written to .dispatch/SYSTEM.md."""
    if template is not None:
        write(cwd / ".dispatch" / "SYSTEM.md", template)
    kwargs.setdefault("root", cwd)
    return dispatch().assemble(gather_in(dispatch(), cwd, **kwargs)).text


# ----------------------------------------------------- "not existing" is null


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"empty.txt": ""}, "exists:[]"),
        ({"empty.txt": "\n  \n"}, "exists:[]"),
        ({"empty.txt": "text\n"}, "exists:[text]"),
        ({}, "missing"),
    ],
)
def test_an_existing_empty_file_exists_and_a_missing_one_does_not(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    template = "[if file:empty.txt]exists:[[file:empty.txt]][else]missing[endif]"
    assert render(tmp_path, template) == expected


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anything")
def test_an_unreadable_file_does_not_exist(tmp_path: Path) -> None:
    secret = write(tmp_path / "locked.txt", "x")
    secret.chmod(0)
    try:
        with pytest.warns(SourceWarning):
            text = render(tmp_path, "[if !file:locked.txt]unreadable[endif]")
    finally:
        secret.chmod(0o600)
    assert text == "unreadable"


def test_git_values_exist_in_a_clean_repository_and_not_outside_one(tmp_path: Path) -> None:
    template = (
        "[if git:branch]branch=[git:branch][else]no branch[endif];"
        "[if git:status]status=[[git:status]][else]no status[endif]"
    )
    outside = tmp_path / "plain"
    assert render(outside, template, git=True) == "no branch;no status"
    repo = tmp_path / "repo"
    write(repo / "a.txt", "a")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    write(repo / ".git" / "info" / "exclude", ".dispatch/\n")
    environ = {"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": os.devnull}
    assert render(repo, template, git=True, environ=environ) == "branch=trunk;status=[]"


def test_model_and_conversation_id_exist_only_when_given(tmp_path: Path) -> None:
    template = (
        "[if prompt:model]m=[prompt:model][else]no model[endif] "
        "[if !prompt:conversation_id]new[endif]"
    )
    assert render(tmp_path, template) == "no model new"
    ctx = gather_in(dispatch(), tmp_path, root=tmp_path, model="m-1", base={"session": {"id": "c"}})
    assert dispatch().assemble(ctx).text == "m=m-1"  # the trailing blank is trimmed


def test_unknown_types_and_names_are_blank_and_false(tmp_path: Path) -> None:
    template = "a[weather:today]b[system:nonsense]c[if unknown:x]no[else]yes[endif]"
    assert render(tmp_path, template) == "abcyes"


# ------------------------------------------------------------------ system:


def test_system_variables_as_the_note_defines_them(tmp_path: Path) -> None:
    base = {"env": {"hostname": "devbox"}}
    text = render(tmp_path, "[system:time]|[system:date]|[system:os]|[system:hostname]", base=base)
    # tests._support.gathering's clock: 2025-01-31 14:05:09 CET (UTC+1).
    assert text == f"2025-01-31T13:05:09.000Z|2025-01-31|{sys.platform}|devbox"


def test_system_time_is_to_iso_string_of_the_clock(tmp_path: Path) -> None:
    from datetime import datetime, timedelta, timezone

    def late() -> datetime:  # 23:30 in Chicago is the next day in UTC
        return datetime(2026, 3, 6, 23, 30, 0, 123456, tzinfo=timezone(timedelta(hours=-6)))

    text = render(tmp_path, "[system:time] [system:date]", clock=late)
    assert text == "2026-03-07T05:30:00.123Z 2026-03-07"


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_system_os_is_the_platform_name(tmp_path: Path, platform: str) -> None:
    text = render(tmp_path, "[system:os]", base={"env": {"platform": platform, "os": "X"}})
    assert text == platform


# ------------------------------------------------------------------- file:


def test_file_paths_are_relative_to_the_working_directory(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "a.md", "A")
    assert render(tmp_path, "[file:docs/a.md]|[file:./docs/a.md]") == "A|A"


def test_a_project_template_stays_inside_the_project_root(tmp_path: Path) -> None:
    write(tmp_path / "outside.txt", "secret")
    work = tmp_path / "work"
    template = f"<[file:../outside.txt]><[file:{tmp_path / 'outside.txt'}]>"
    with pytest.warns(SourceWarning, match="refused"):
        assert render(work, template) == "<><>"


def test_the_users_home_template_may_read_any_file(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    write(tmp_path / "notes.txt", "my notes")
    write(
        home / ".dispatch" / "SYSTEM.md", f"[[file:../notes.txt]] [[file:{tmp_path / 'notes.txt'}]]"
    )
    work.mkdir()
    assert render(work, home=home) == "[my notes] [my notes]"


def test_a_template_the_caller_gives_may_read_any_file(tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "my notes")
    work = tmp_path / "work"
    write(work / ".dispatch" / "SYSTEM.md", "project template")
    base = {"variables": {"template": f"from the API: [file:{tmp_path / 'notes.txt'}]"}}
    assert render(work, base=base) == "from the API: my notes"


# -------------------------------------------------------------- templates


def test_the_default_template_persona_agents_md_and_cwd(tmp_path: Path) -> None:
    plain = render(tmp_path)
    assert plain.startswith("You are Dispatch")
    assert plain.endswith(f"Working directory: {tmp_path.resolve()}")
    assert "AGENTS.md" not in plain
    write(tmp_path / "AGENTS.md", "Run make test.\n")
    with_agents = render(tmp_path)
    assert "Instructions for this project (AGENTS.md):\n\nRun make test.\n\n" in with_agents


def test_an_empty_template_gives_no_system_prompt(tmp_path: Path) -> None:
    prompt = dispatch().assemble(
        gather_in(dispatch(), tmp_path, base={"variables": {"template": ""}})
    )
    assert prompt.text == ""
    assert render(tmp_path, "") == ""


def test_nested_negated_else_and_unmatched_tags(tmp_path: Path) -> None:
    write(tmp_path / "a.md", "")
    template = (
        "[if file:a.md][if !file:b.md]a, no b[else]both[endif][else]no a[endif] [endif] [if x:y"
    )
    assert render(tmp_path, template) == "a, no b [endif] [if x:y"


def test_multi_line_blocks_lose_their_tag_lines(tmp_path: Path) -> None:
    template = "one\n[if prompt:cwd]\ntwo\nthree\n[endif]\nfour"
    assert render(tmp_path, template) == "one\ntwo\nthree\nfour"


# ------------------------------------------------- constructed once, rebuilt


def test_constructed_once_then_reused_and_rebuilt_only_on_compaction(tmp_path: Path) -> None:
    template = write(tmp_path / ".dispatch" / "SYSTEM.md", "v1 [prompt:conversation_id]")
    with Sessions(dispatch(), tmp_path / "prompts.sqlite") as sessions:
        assert sessions.get("c1") is None  # never constructed
        first = sessions.construct("c1", gather_in(dispatch(), tmp_path))
        template.write_text("v2 [prompt:conversation_id]")
        assert sessions.get("c1") == first  # a changed template leaves c1 alone
        assert sessions.construct("c2", gather_in(dispatch(), tmp_path)).text == "v2 c2"
        sent = sessions.rebuild("c1", gather_in(dispatch(), tmp_path), append="COMPACT")
        assert sent == "v2 c1\n\nCOMPACT"
        stored = sessions.get("c1")
    assert stored is not None and stored.text == "v2 c1"


def test_a_fifo_or_a_folder_is_not_an_existing_file(tmp_path: Path) -> None:
    (tmp_path / "folder.txt").mkdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.txt")
    template = "[if !file:folder.txt]no folder[endif] [if !file:pipe.txt]no pipe[endif]"
    assert render(tmp_path, template) == "no folder no pipe"
