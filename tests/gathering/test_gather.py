"""Gathering a context from real temporary folders: files, skills, persona, runtime, safety."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from catalog import Catalog, ManifestError, SourceWarning, load_dir
from catalog.cli import main
from catalog.errors import SourceError
from tests._support.gathering import ENVIRON, git, skill, write
from tests._support.gathering import gather_in as run_gather

# -- instruction files


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/top/AGENTS.md, tmp/top/proj/{CLAUDE.md,AGENTS.md}, tmp/top/proj/sub/CLAUDE.md."""
    top = tmp_path / "top"
    write(top / "AGENTS.md", "top agents")
    write(top / "proj" / "CLAUDE.md", "proj claude")
    write(top / "proj" / "AGENTS.md", "proj agents")
    write(top / "proj" / "sub" / "CLAUDE.md", "sub claude")
    return top


def test_walks_up_outermost_first_with_first_name_winning_per_folder(
    build: Callable[..., Catalog], tree: Path
) -> None:
    cat = build({"files": [{"names": ["AGENTS.md", "CLAUDE.md"], "first_wins": True}]})
    ctx = run_gather(cat, tree / "proj" / "sub", root=tree)
    assert [(f.path, f.content) for f in ctx.project_files] == [
        (str(tree / "AGENTS.md"), "top agents"),
        (str(tree / "proj" / "AGENTS.md"), "proj agents"),
        (str(tree / "proj" / "sub" / "CLAUDE.md"), "sub claude"),
    ]
    assert {f.scope for f in ctx.project_files} == {"project"}


def test_every_name_is_kept_without_first_wins_and_innermost_first_on_request(
    build: Callable[..., Catalog], tree: Path
) -> None:
    cat = build({"files": [{"names": ["CLAUDE.md", "AGENTS.md"], "outermost_first": False}]})
    ctx = run_gather(cat, tree / "proj" / "sub", root=tree)
    assert [f.content for f in ctx.project_files] == [
        "sub claude",
        "proj claude",
        "proj agents",
        "top agents",
    ]


def test_root_stops_the_walk_and_cwd_only_looks_in_cwd(
    build: Callable[..., Catalog], tree: Path
) -> None:
    cat = build({"files": [{"names": ["AGENTS.md", "CLAUDE.md"]}]})
    found = run_gather(cat, tree / "proj", root=tree / "proj").project_files
    assert [f.content for f in found] == ["proj agents", "proj claude"]
    only = build({"files": [{"names": ["CLAUDE.md"], "walk": "cwd"}]}, version="2.0.0")
    assert [
        f.content for f in run_gather(only, tree / "proj" / "sub", root=tree).project_files
    ] == ["sub claude"]


def test_globs_nested_names_global_files_and_scopes(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    write(home / ".agent" / "AGENTS.md", "global")
    write(proj / ".claude" / "rules" / "b.md", "rule b")
    write(proj / ".claude" / "rules" / "a.md", "rule a")
    write(proj / ".claude" / "rules" / "notes.txt", "not a rule")
    write(proj / ".agents" / "AGENTS.md", "nested agents")
    cat = build(
        {
            "files": [
                {"scope": "global", "dir": "~/.agent", "names": ["AGENTS.md"]},
                {"names": [".claude/rules/*.md", ".agents/AGENTS.md"]},
            ]
        }
    )
    ctx = run_gather(cat, proj, root=proj, home=home)
    assert [(f.scope, f.content) for f in ctx.project_files] == [
        ("global", "global"),
        ("project", "rule a"),
        ("project", "rule b"),
        ("project", "nested agents"),
    ]


def test_a_file_found_twice_is_listed_once(build: Callable[..., Catalog], tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "once")
    cat = build(
        {
            "files": [
                {"scope": "global", "dir": str(tmp_path), "names": ["AGENTS.md"]},
                {"names": ["AGENTS.md"]},
            ]
        }
    )
    assert [f.scope for f in run_gather(cat, tmp_path, root=tmp_path).project_files] == ["global"]


def test_leading_html_comments_are_stripped_when_asked(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "TOOLS.md", "<!-- edit me -->\n<!-- two -->\n\nUse rg.\n<!-- kept -->")
    cat = build({"files": [{"names": ["TOOLS.md"], "walk": "cwd", "strip_html_comments": True}]})
    assert run_gather(cat, tmp_path).project_files[0].content == "Use rg.\n<!-- kept -->"
    plain = build({"files": [{"names": ["TOOLS.md"], "walk": "cwd"}]}, version="2.0.0")
    assert run_gather(plain, tmp_path).project_files[0].content.startswith("<!-- edit me")


# -- single texts


def test_text_sources_fill_a_slot_a_variable_and_append_first_found_wins(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    write(home / ".agent" / "SYSTEM.md", "home system")
    write(tmp_path / ".agent" / "SYSTEM.md", "project system")
    write(home / ".agent" / "APPEND.md", "appended")
    cat = build(
        {
            "text": [
                {"names": [".agent/SYSTEM.md", "~/.agent/SYSTEM.md"], "target": "slot:base"},
                {"names": [".agent/APPEND.md", "~/.agent/APPEND.md"], "target": "variable:extra"},
                {"names": ["~/.agent/APPEND.md"], "target": "append"},
                {"names": ["MISSING.md"], "target": "custom_prompt"},
            ]
        },
        parts=[{"id": "intro", "slot": "base", "body": "Base."}],
        variables=[{"name": "extra", "type": "str"}],
    )
    ctx = run_gather(cat, tmp_path, home=home)
    assert ctx.overrides == {"base": "project system"}
    assert ctx.variables == {"extra": "appended"}
    assert ctx.append == "appended"
    assert ctx.custom_prompt is None
    assert cat.assemble(ctx).text == "project system\n\nappended"


@pytest.mark.parametrize(
    ("target", "message"),
    [("slot:nope", "no part has slot 'nope'"), ("variable:count", "not a declared variable")],
)
def test_a_text_target_must_exist(
    make_catalog: Callable[..., Path], target: str, message: str
) -> None:
    folder = make_catalog(
        parts=[{"id": "intro", "body": "x"}],
        variables=[{"name": "count", "type": "int"}],
        extra={"sources": {"text": [{"names": ["A.md"], "target": target}]}},
    )
    with pytest.raises(ManifestError, match=message) as caught:
        load_dir(folder)
    assert caught.value.key == "sources.text[0].target"
    assert caught.value.line is not None


def test_an_unknown_sources_key_is_refused(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(parts=[{"id": "a"}], extra={"sources": {"skill_dirs": ["x"]}})
    with pytest.raises(ManifestError, match="unknown key 'skill_dirs'"):
        load_dir(folder)


SOURCES_ERRORS = """[catalog]
name = "demo"
version = "1.0.0"

[sources]
skills = ["s"]

[[sources.files]]
names = ["AGENTS.md"]

[[sources.files]]
names = ["CLAUDE.md"]
walk = "up"

[[part]]
id = "a"
file = "a.md"
"""
WALK_SIDEWAYS = ('walk = "up"', 'walk = "sideways"')


@pytest.mark.parametrize(
    ("edits", "key", "line"),
    [
        ([WALK_SIDEWAYS], "sources.files[1].walk", 13),
        ([('walk = "up"', "first_win = true")], "sources.files[1].first_win", 13),
        ([('skills = ["s"]', "max_file_bytes = 0")], "sources.max_file_bytes", 6),
        ([WALK_SIDEWAYS, ('[sources]\nskills = ["s"]\n', "")], "sources.files[1].walk", 11),
    ],
)
def test_a_sources_error_names_its_line(
    tmp_path: Path, edits: list[tuple[str, str]], key: str, line: int
) -> None:
    text = SOURCES_ERRORS
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    folder = tmp_path / "demo" / "1.0.0"
    write(folder / "a.md", "A")
    write(folder / "catalog.toml", text)
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    assert (caught.value.key, caught.value.line) == (key, line)


# -- skills


def test_skills_are_read_from_front_matter_and_disabled_ones_left_out(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    skill(tmp_path / ".skills" / "commit", "name: commit\ndescription: >\n  Write a\n  commit")
    skill(tmp_path / ".skills" / "group" / "deep", "description: Nested skill")
    skill(
        tmp_path / ".skills" / "hidden",
        "name: hidden\ndescription: x\ndisable-model-invocation: true",
    )
    skill(home / "skills" / "review", "name: review\ndescription: Review a diff")
    cat = build({"skills": [".skills", "~/skills", "missing"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SourceWarning)
        ctx = run_gather(cat, tmp_path, home=home)
    assert [(s.name, s.description) for s in ctx.skills] == [
        ("commit", "Write a commit"),
        ("deep", "Nested skill"),
        ("review", "Review a diff"),
    ]
    assert ctx.skills[0].path == str(tmp_path / ".skills" / "commit" / "SKILL.md")
    assert ctx.skills[0].content == "Do it.\n"


def test_broken_skills_are_skipped_with_a_warning(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    skill(tmp_path / "s" / "bad-yaml", "name: [unclosed\ndescription: x")
    skill(tmp_path / "s" / "no-description", "name: lonely")
    write(tmp_path / "s" / "unclosed" / "SKILL.md", "---\nname: x\n")
    skill(tmp_path / "s" / "ok", "name: ok\ndescription: fine")
    skill(tmp_path / "s" / "ok-again", "name: ok\ndescription: same name")
    cat = build({"skills": ["s"]})
    with pytest.warns(SourceWarning) as caught:
        ctx = run_gather(cat, tmp_path)
    assert [s.name for s in ctx.skills] == ["ok"]
    text = "\n".join(str(w.message) for w in caught)
    assert "bad-yaml" in text and "invalid YAML" in text
    assert "no-description" in text and "no `description`" in text
    assert "never closed" in text
    assert "'ok' skipped" in text


def test_a_symlink_loop_among_skills_is_skipped_with_a_warning(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    skill(tmp_path / "s" / "real", "name: real\ndescription: r")
    (tmp_path / "s" / "real" / "back").symlink_to(tmp_path / "s")
    (tmp_path / "s" / "self").symlink_to(tmp_path / "s" / "self")
    cat = build({"skills": ["s"]})
    with pytest.warns(SourceWarning, match="symbolic link loop"):
        ctx = run_gather(cat, tmp_path)
    assert [s.name for s in ctx.skills] == ["real"]


def test_an_unreadable_folder_is_skipped_with_a_warning(
    build: Callable[..., Catalog], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill(tmp_path / "s" / "locked" / "inner", "name: inner\ndescription: i")
    skill(tmp_path / "s" / "open", "name: open\ndescription: o")
    locked = str(tmp_path / "s" / "locked")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if str(path) == locked:  # root can read anything: simulate the refusal
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    cat = build({"skills": ["s"]})
    with pytest.warns(SourceWarning, match="locked: folder skipped, Permission denied"):
        ctx = run_gather(cat, tmp_path)
    assert [s.name for s in ctx.skills] == ["open"]


def test_an_unreadable_file_is_skipped_with_a_warning(
    build: Callable[..., Catalog], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "AGENTS.md", "locked")
    write(tmp_path / "CLAUDE.md", "open")
    locked = tmp_path / "AGENTS.md"
    real_open = os.open

    def open_(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path) == locked:  # root can read anything: simulate the refusal
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    cat = build({"files": [{"names": ["AGENTS.md", "CLAUDE.md"], "walk": "cwd"}]})
    with pytest.warns(SourceWarning, match="AGENTS.md: skipped, Permission denied"):
        ctx = run_gather(cat, tmp_path)
    assert [f.content for f in ctx.project_files] == ["open"]


# -- persona


def test_identity_user_and_soul_files(build: Callable[..., Catalog], tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / "IDENTITY.md", "---\nname: Molt\nemoji: \U0001f980\ncreature: crab\n---\nNotes.")
    write(home / "USER.md", "---\nname: Ada\ntimezone: Europe/Paris\n---\n")
    write(home / "SOUL.md", "\nBe kind.\n\n")
    cat = build({"identity": "~/IDENTITY.md", "user": "~/USER.md", "soul": "~/SOUL.md"})
    ctx = run_gather(cat, tmp_path, home=home)
    assert ctx.identity is not None and ctx.user is not None
    assert (ctx.identity.name, ctx.identity.emoji, ctx.identity.creature, ctx.identity.vibe) == (
        "Molt",
        "\U0001f980",
        "crab",
        "",
    )
    assert ctx.identity.content == "Notes."
    assert (ctx.user.name, ctx.user.timezone) == ("Ada", "Europe/Paris")
    assert ctx.soul == "Be kind."


def test_absent_persona_files_leave_the_fields_empty(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    cat = build({"identity": "~/IDENTITY.md", "user": "~/USER.md", "soul": "~/SOUL.md"})
    ctx = run_gather(cat, tmp_path, home=tmp_path)
    assert (ctx.identity, ctx.user, ctx.soul) == (None, None, "")


# -- runtime


def test_runtime_facts_come_from_the_clock_and_the_environment(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    ctx = run_gather(build({}), tmp_path, model="gpt-x", provider="acme")
    env = ctx.env
    assert (env.date, env.time, env.weekday) == ("2025-01-31", "14:05", "Friday")
    assert (env.timezone, env.tzname) == ("CET", "CET")
    assert env.datetime == "2025-01-31T14:05:09+01:00"
    assert (env.user, env.shell, env.model, env.provider) == ("ada", "zsh", "gpt-x", "acme")
    assert env.cwd == str(tmp_path.resolve())
    assert env.os and env.arch and env.hostname  # the machine's own, whatever they are
    assert not env.is_git_repo


def test_a_named_zone_gives_its_key_and_its_abbreviation(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    chicago = datetime(2026, 3, 7, 8, 55, 5, tzinfo=ZoneInfo("America/Chicago"))
    env = run_gather(build({}), tmp_path, clock=lambda: chicago).env
    assert (env.timezone, env.tzname) == ("America/Chicago", "CST")
    assert env.datetime == "2026-03-07T08:55:05-06:00"


def test_git_branch_and_short_status(build: Callable[..., Catalog], tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "a.txt", "a")
    git(repo, "init", "-q")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "one")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo / "a.txt", "changed")
    write(repo / "new.txt", "n")
    environ = {**ENVIRON, "HOME": str(tmp_path), "GIT_CONFIG_GLOBAL": os.devnull}
    ctx = run_gather(build({}), repo, git=True, environ=environ)
    assert ctx.env.is_git_repo
    assert ctx.env.git_branch == "feature"
    assert ctx.env.git_status == " M a.txt\n?? new.txt"


def test_a_new_repository_names_its_unborn_branch(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    ctx = run_gather(
        build({}), repo, git=True, environ={**ENVIRON, "GIT_CONFIG_GLOBAL": os.devnull}
    )
    assert (ctx.env.is_git_repo, ctx.env.git_branch, ctx.env.git_status) == (True, "trunk", "")


# -- safety


def test_a_large_file_is_cut_with_a_marker(build: Callable[..., Catalog], tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "é" * 100)  # 200 bytes; the cut falls inside a character
    cat = build({"max_file_bytes": 51, "files": [{"names": ["AGENTS.md"], "walk": "cwd"}]})
    with pytest.warns(SourceWarning, match="cut at 51 bytes"):
        content = run_gather(cat, tmp_path).project_files[0].content
    assert content == "é" * 25 + "\n\n[... cut: AGENTS.md is longer than 51 bytes ...]"


def test_undecodable_bytes_are_replaced(build: Callable[..., Catalog], tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", b"ok \xff\xfe bytes\r\nnext")
    cat = build({"files": [{"names": ["AGENTS.md"], "walk": "cwd"}]})
    assert run_gather(cat, tmp_path).project_files[0].content == "ok \ufffd\ufffd bytes\nnext"


def test_a_byte_order_mark_is_dropped_so_front_matter_is_still_found(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "AGENTS.md", b"\xef\xbb\xbfRules.\r\n")
    write(
        tmp_path / ".skills" / "commit" / "SKILL.md",
        b"\xef\xbb\xbf---\r\nname: commit\r\ndescription: Commit\r\n---\r\nGo.",
    )
    cat = build({"files": [{"names": ["AGENTS.md"], "walk": "cwd"}], "skills": [".skills"]})
    ctx = run_gather(cat, tmp_path)
    assert ctx.project_files[0].content == "Rules.\n"
    assert [(s.name, s.description, s.content) for s in ctx.skills] == [("commit", "Commit", "Go.")]


def test_a_symlink_loop_in_place_of_a_file_is_skipped_with_a_warning(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").symlink_to(tmp_path / "AGENTS.md")
    cat = build({"files": [{"names": ["AGENTS.md"], "walk": "cwd"}]})
    with pytest.warns(SourceWarning, match="symbolic link loop"):
        assert run_gather(cat, tmp_path).project_files == ()


FILE_BINDING = {"binding": [{"name": "file:", "source": "file", "description": "a file"}]}


def test_file_references_are_read_and_confined_to_the_project_root(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    proj = tmp_path / "proj"
    write(proj / "docs" / "notes.md", "notes")
    write(tmp_path / "secret.txt", "secret")
    (proj / "link.txt").symlink_to(tmp_path / "secret.txt")
    cat = build(
        {},
        extra=FILE_BINDING,
        variables=[
            {
                "name": "template",
                "type": "str",
                "default": "[file:docs/notes.md][file:../secret.txt][if file:link.txt]x[endif]"
                f"[file:{tmp_path / 'secret.txt'}][file:missing.md]",
            }
        ],
    )
    with pytest.warns(SourceWarning) as caught:
        ctx = run_gather(cat, proj, home=proj)
    assert ctx.files == {"docs/notes.md": "notes"}
    messages = [str(w.message) for w in caught]
    refused = [m for m in messages if "refused" in m]
    assert len(refused) == 2
    assert "[file:../secret.txt]: refused, the path leaves the project root" in refused[0]
    assert f"[file:{tmp_path / 'secret.txt'}]: refused" in refused[1]
    assert [m for m in messages if "link.txt: skipped, a link to" in m]


def test_file_references_in_a_gathered_variable_are_read_too(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "PROMPT.md", "Read [file:a.md].")
    write(tmp_path / "a.md", "AAA")
    cat = build(
        {"text": [{"names": ["PROMPT.md"], "target": "variable:template"}]},
        extra=FILE_BINDING,
        variables=[{"name": "template", "type": "str"}],
        parts=[{"id": "p", "body": "{{ brackets(template, bindings) }}"}],
    )
    ctx = run_gather(cat, tmp_path)
    assert cat.assemble(ctx).text == "Read AAA."


def test_a_file_reference_is_inserted_without_its_final_line_end(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "VERSION", "1.2.0\n\n")
    cat = build(
        {},
        extra=FILE_BINDING,
        variables=[{"name": "template", "type": "str", "default": "v[file:VERSION]."}],
        parts=[{"id": "p", "body": "{{ brackets(template, bindings) }}"}],
    )
    assert cat.assemble(run_gather(cat, tmp_path)).text == "v1.2.0."


# -- merging with what the caller knows


def test_values_the_caller_gives_win_over_gathered_ones(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "AGENTS.md", "gathered")
    cat = build({"files": [{"names": ["AGENTS.md"], "walk": "cwd"}]})
    ctx = run_gather(cat, tmp_path, base={"tools": ["read"], "env": {"os": "Plan9"}})
    assert ctx.tools == ("read",)
    assert ctx.env.os == "Plan9" and ctx.env.date == "2025-01-31"
    assert ctx.project_files[0].content == "gathered"


def test_a_missing_working_directory_or_a_cwd_outside_root_is_an_error(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        run_gather(build({}), tmp_path / "nope")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(SourceError, match="not inside the project root"):
        run_gather(build({}), tmp_path / "a", root=tmp_path / "b")


# -- command line


def test_assemble_from_dir(
    make_catalog: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        parts=[
            {
                "id": "p",
                "body": "{% for f in project_files %}{{ f.content }}{% endfor %}"
                " in {{ basename(env.cwd) }} on {{ env.date }}",
            }
        ],
        extra={"sources": {"files": [{"names": ["AGENTS.md"]}], "skills": ["~/skills"]}},
    )
    proj = tmp_path / "work"
    write(proj / "AGENTS.md", "Be brief.")
    skill(tmp_path / "home" / "skills" / "bad", "name: [")
    code = main(
        [
            "assemble",
            str(folder),
            "--from-dir",
            str(proj),
            "--root",
            str(proj),
            "--home",
            str(tmp_path / "home"),
            "--no-git",
            "--set",
            "env.date=today",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert out == "Be brief. in work on today\n"
    assert "catalog: warning:" in err and "skill skipped" in err


def test_a_template_set_on_the_command_line_reads_its_file_references(
    make_catalog: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        parts=[{"id": "p", "body": "{{ brackets(template, bindings) }}"}],
        variables=[{"name": "template", "type": "str", "default": "[file:A.md]"}],
        extra=FILE_BINDING,
    )
    proj = tmp_path / "work"
    write(proj / "A.md", "aaa\n")
    write(proj / "B.md", "bbb\n")
    argv = ["assemble", str(folder), "--from-dir", str(proj), "--no-git"]
    assert main([*argv, "--set", "template=<[file:B.md]>"]) == 0
    assert capsys.readouterr().out == "<bbb>\n"
    context = write(tmp_path / "ctx.json", '{"variables": {"template": "[file:A.md]+"}}')
    assert main([*argv, "--context", str(context), "--tools", "x"]) == 0
    assert capsys.readouterr().out == "aaa+\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from-dir", ""], "the working directory is an empty path"),
        (["--from-dir", ".", "--home", "no-such-home"], "the home folder does not exist"),
        (["--from-dir", "AGENTS.md"], "the working directory is not a folder"),
        (["--home", "."], "--home applies only when gathering a context"),
        (
            ["--provider", "p", "--no-git"],
            "--provider, --no-git apply only when gathering a context",
        ),
    ],
)
def test_bad_gathering_options_exit_2(
    make_catalog: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    folder = make_catalog(parts=[{"id": "p"}])
    write(tmp_path / "AGENTS.md", "x")
    monkeypatch.chdir(tmp_path)
    assert main(["assemble", str(folder), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "hint:" in err and "Traceback" not in err


def test_diff_from_dir_compares_the_prompts_of_the_gathered_context(
    make_catalog: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = {"sources": {"files": [{"names": ["AGENTS.md"], "walk": "cwd"}]}}
    body = "{% for f in project_files %}{{ strip(f.content) }}{% endfor %} "
    old = make_catalog(parts=[{"id": "p", "body": body + "v1"}], extra=sources)
    new = make_catalog(version="2.0.0", parts=[{"id": "p", "body": body + "v2"}], extra=sources)
    write(tmp_path / "work" / "AGENTS.md", "gathered\n")
    argv = ["diff", str(old), str(new), "--from-dir", str(tmp_path / "work"), "--no-git"]
    assert main([*argv, "--format", "json"]) == 1
    out = capsys.readouterr().out
    assert "gathered v1" in out and "gathered v2" in out


def test_assemble_from_a_missing_dir_exits_2(
    make_catalog: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(parts=[{"id": "p"}])
    assert main(["assemble", str(folder), "--from-dir", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err
