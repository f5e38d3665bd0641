"""A project's files reach only inside the project; only the user's own files reach home.

Every tree is real: a home folder in ``tmp_path`` holding a private key, a
project inside it made by ``git init``, symbolic links made on disk. Each
way a file of the project can name another file (``@path`` imports written
every way, imports of imports, links on the way, instruction files, skill
folders, texts and persona files that are links, ``[file:...]`` references)
is tried against the key; the user's own files are tried the other way.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog, SourceWarning
from catalog.gathering import Gathering
from tests._support.gathering import git, skill, trace_in, write

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n"
FILE_BINDING = {"binding": [{"name": "file:", "source": "file", "description": "a file"}]}


class Tree:
    """``home`` (with ``.ssh/id_rsa`` and ``notes.md``) and ``proj`` = home/src/proj, a
    git repository: the usual place of a cloned project."""

    def __init__(self, tmp_path: Path) -> None:
        self.top = tmp_path
        self.home = tmp_path / "home"
        self.key = write(self.home / ".ssh" / "id_rsa", KEY)
        write(self.home / "notes.md", "home notes")
        self.proj = self.home / "src" / "proj"
        self.proj.mkdir(parents=True)
        git(self.proj, "init", "-q")


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def _trace(cat: Catalog, cwd: Path, home: Path, **kwargs: Any) -> tuple[Gathering, list[str]]:
    """The gathering and the source warnings issued on the way."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gathered = trace_in(cat, cwd, home=home, **kwargs)
    messages = [str(w.message) for w in caught if issubclass(w.category, SourceWarning)]
    assert list(gathered.notes) == messages
    return gathered, messages


def _texts(gathered: Gathering) -> list[str]:
    ctx = gathered.context
    return [
        *(f.content for f in ctx.project_files),
        *(s.content for s in ctx.skills),
        *ctx.files.values(),
        *ctx.overrides.values(),
        *(str(v) for v in ctx.variables.values()),
    ]


def _no_key(gathered: Gathering) -> None:
    assert not any("PRIVATE KEY" in text for text in _texts(gathered))


PROJECT = {"label": "project", "names": ["CLAUDE.md", "AGENTS.md"], "imports": True}
USER = {
    "label": "user",
    "scope": "user",
    "dir": "~/.agent",
    "names": ["CLAUDE.md"],
    "imports": True,
}


# -- a project file names the key


@pytest.mark.parametrize(
    "way",
    ["tilde", "absolute", "dot-dot", "folder-link", "import-of-import", "inline"],
)
def test_no_import_written_in_a_project_file_reaches_the_home_folder(
    build: Callable[..., Catalog], tree: Tree, way: str
) -> None:
    proj = tree.proj
    importer = proj / "CLAUDE.md"
    line = 2
    if way == "tilde":
        write(importer, "# Rules\nsee @~/.ssh/id_rsa\n")
    elif way == "absolute":
        write(importer, f"# Rules\nsee @{tree.key}\n")
    elif way == "dot-dot":
        write(importer, "# Rules\nsee @../../.ssh/id_rsa\n")
    elif way == "folder-link":
        (proj / "docs").symlink_to(tree.home / ".ssh")
        write(importer, "# Rules\nsee @docs/id_rsa\n")
    else:  # an import of an import, followed after or inline
        write(proj / "CLAUDE.md", "# Rules\n@docs/style.md\n")
        importer = write(proj / "docs" / "style.md", "Style.\nAlso @~/.ssh/id_rsa\n")
    group = {**PROJECT, "imports": "inline"} if way == "inline" else PROJECT
    gathered, messages = _trace(build({"files": [group]}), proj, tree.home)
    _no_key(gathered)
    [message] = messages
    assert message.startswith(f"{importer}:{line}: import @")
    assert f"refused, it leads to {tree.key}, outside the project root {proj}" in message
    skipped = [f for f in gathered.files if f.status == "skipped"]
    assert [f.reason.rsplit(": ", 1)[-1] for f in skipped] == [
        f"refused, outside the project root {proj}"
    ]


def test_an_instruction_file_that_links_into_the_home_folder_is_skipped(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    (tree.proj / "AGENTS.md").symlink_to(Path("../../.ssh/id_rsa"))
    write(tree.proj / "CLAUDE.md", "project rules")
    cat = build({"files": [PROJECT]})
    gathered, messages = _trace(cat, tree.proj, tree.home)
    _no_key(gathered)
    assert [f.content for f in gathered.context.project_files] == ["project rules"]
    assert messages == [
        f"{tree.proj / 'AGENTS.md'}: skipped, a link to {tree.key}, outside the project root "
        f"{tree.proj}; pass --follow-links (follow_links=True) to read it anyway"
    ]
    # The caller's explicit choice reads the link; imports stay confined even then.
    followed, _ = _trace(cat, tree.proj, tree.home, follow_links=True)
    assert KEY in _texts(followed)
    write(tree.proj / "CLAUDE.md", "@~/.ssh/id_rsa")
    (tree.proj / "AGENTS.md").unlink()
    followed, messages = _trace(cat, tree.proj, tree.home, follow_links=True)
    _no_key(followed)
    assert "import @~/.ssh/id_rsa refused" in messages[0]


def test_a_skill_folder_or_skill_file_that_links_into_the_home_folder_is_skipped(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    private = skill(tree.home / "private-skill", "name: private\ndescription: Mine", body=KEY)
    skills = tree.proj / ".skills"
    skill(skills / "good", "name: good\ndescription: Fine")
    (skills / "linked-folder").symlink_to(private.parent)
    (skills / "linked-file").mkdir()
    (skills / "linked-file" / "SKILL.md").symlink_to(private)
    gathered, messages = _trace(build({"skills": [".skills"]}), tree.proj, tree.home)
    _no_key(gathered)
    assert [s.name for s in gathered.context.skills] == ["good"]
    assert sorted(m.split(": skipped, a link to")[0] for m in messages) == [
        str(skills / "linked-file" / "SKILL.md"),
        str(skills / "linked-folder"),
    ]
    assert all(f"outside the project root {tree.proj}" in m for m in messages)


def test_texts_and_persona_files_that_link_into_the_home_folder_are_skipped(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    (tree.proj / ".agent").mkdir()
    for name in ("SYSTEM.md", "SOUL.md"):
        (tree.proj / ".agent" / name).symlink_to(tree.key)
    cat = build(
        {
            "text": [{"names": [".agent/SYSTEM.md"], "target": "append"}],
            "soul": ".agent/SOUL.md",
        }
    )
    gathered, messages = _trace(cat, tree.proj, tree.home)
    _no_key(gathered)
    assert gathered.context.append is None and gathered.context.soul == ""
    assert [m.split(": skipped, a link to")[0] for m in messages] == [
        str(tree.proj / ".agent" / "SYSTEM.md"),
        str(tree.proj / ".agent" / "SOUL.md"),
    ]


def test_a_file_reference_of_a_project_template_never_reaches_the_home_folder(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    template = write(tree.proj / ".agent" / "SYSTEM.md", "Intro.\n\nNotes: [file:notes.md]\n")
    (tree.proj / "notes.md").symlink_to(tree.key)
    cat = build(
        {"text": [{"names": [".agent/SYSTEM.md", "~/.agent/SYSTEM.md"], "target": "variable:t"}]},
        extra=FILE_BINDING,
        variables=[{"name": "t", "type": "str", "default": "Default.\n[file:../../.ssh/id_rsa]"}],
    )
    gathered, messages = _trace(cat, tree.proj, tree.home)
    _no_key(gathered)
    assert gathered.context.files == {}
    assert messages == [
        f"{template}:3: [file:notes.md]: {tree.proj / 'notes.md'}: skipped, a link to "
        f"{tree.key}, outside the project root {tree.proj}; pass --follow-links "
        "(follow_links=True) to read it anyway"
    ]
    # The catalog's own default is confined the same way, and named as such.
    template.unlink()
    gathered, messages = _trace(cat, tree.proj, tree.home)
    _no_key(gathered)
    assert messages == [
        "the default of the variable 't':2: [file:../../.ssh/id_rsa]: refused, "
        f"the path leaves the project root {tree.proj}"
    ]


# -- the user's own files


def test_the_users_own_files_may_reach_the_home_folder(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    home = tree.home
    write(home / "dotfiles" / "agent.md", "my rules, see @~/notes.md")
    (home / ".agent").mkdir()
    (home / ".agent" / "CLAUDE.md").symlink_to(home / "dotfiles" / "agent.md")
    write(home / "prompts" / "system.md", "my system prompt, [file:notes.md]")
    (home / ".agent" / "SYSTEM.md").symlink_to(home / "prompts" / "system.md")
    (tree.proj / "notes.md").symlink_to(home / "notes.md")
    skill(home / "team" / "deploy", "name: deploy\ndescription: Ship it")
    (home / ".skills").mkdir()
    (home / ".skills" / "deploy").symlink_to(home / "team" / "deploy")
    cat = build(
        {
            "files": [USER],
            "text": [{"names": ["~/.agent/SYSTEM.md"], "target": "variable:t"}],
            "skills": ["~/.skills"],
        },
        extra=FILE_BINDING,
        variables=[{"name": "t", "type": "str"}],
    )
    gathered, messages = _trace(cat, tree.proj, home)
    assert messages == []
    ctx = gathered.context
    assert [f.content for f in ctx.project_files] == ["my rules, see @~/notes.md", "home notes"]
    assert ctx.files == {"notes.md": "home notes"}
    assert [s.name for s in ctx.skills] == ["deploy"]


def test_an_import_chain_narrows_to_the_project_once_it_passes_through_it(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    home, proj = tree.home, tree.proj
    write(home / ".agent" / "CLAUDE.md", f"@~/more.md\n@{proj / 'shared.md'}\n")
    write(home / "more.md", "more, @notes.md")
    shared = write(proj / "shared.md", "shared\n@~/.ssh/id_rsa\n@~/notes.md\n")
    gathered, messages = _trace(build({"files": [USER]}), proj, home)
    _no_key(gathered)
    assert [f.content for f in gathered.context.project_files] == [
        f"@~/more.md\n@{proj / 'shared.md'}\n",
        "more, @notes.md",
        "home notes",
        "shared\n@~/.ssh/id_rsa\n@~/notes.md\n",
    ]
    assert [m.split(" refused")[0] for m in messages] == [
        f"{shared}:2: import @~/.ssh/id_rsa",
        f"{shared}:3: import @~/notes.md",
    ]


# -- folders above the project root


def test_files_above_the_project_root_reach_as_far_as_their_own_folder(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    home, proj, outer = tree.home, tree.proj, tree.top
    # Between the project and the home folder: the folder it was found in.
    src = write(home / "src" / "CLAUDE.md", "org\n@style.md\n@../.ssh/id_rsa\n")
    write(home / "src" / "style.md", "org style")
    # The home folder itself: the user's own.
    write(home / "CLAUDE.md", "home level @.ssh/../notes.md")
    # A folder that holds the home folder: the project root only.
    above = write(outer / "CLAUDE.md", "above\n@sibling.md\n@home/notes.md\n")
    write(outer / "sibling.md", "sibling")
    cat = build({"files": [{**PROJECT, "names": ["CLAUDE.md"]}]})
    gathered, messages = _trace(cat, proj, home)
    _no_key(gathered)
    contents = [f.content for f in gathered.context.project_files]
    assert "org style" in contents and "home notes" in contents
    assert "sibling" not in contents
    assert [m.split(", it leads to")[0] for m in messages] == [
        f"{above}:2: import @sibling.md refused",
        f"{above}:3: import @home/notes.md refused",
        f"{src}:3: import @../.ssh/id_rsa refused",
    ]
    assert messages[0].endswith(
        f"outside the project root {proj} (a file of the project may import only from the project)"
    )
    assert messages[2].endswith(f"outside the folder {home / 'src'}, where it was found")


def test_a_repository_at_the_home_folder_does_not_make_it_the_project(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    git(tree.home, "init", "-q")  # dotfiles kept in git
    evil = tree.home / "Downloads" / "evil"
    write(evil / "CLAUDE.md", "@~/.ssh/id_rsa")
    gathered, messages = _trace(build({"files": [{**PROJECT, "walk": "cwd"}]}), evil, tree.home)
    _no_key(gathered)
    assert gathered.root == str(evil)
    assert f"outside the project root {evil}" in messages[0]


def test_in_the_home_folder_itself_the_home_folder_is_the_project(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    write(tree.home / "CLAUDE.md", "@notes.md")
    gathered, messages = _trace(
        build({"files": [{**PROJECT, "walk": "cwd"}]}), tree.home, tree.home
    )
    assert messages == []
    assert gathered.root == str(tree.home)
    assert [f.content for f in gathered.context.project_files] == ["@notes.md", "home notes"]


# -- the warnings reach every place a user looks


def test_a_refused_reference_is_reported_everywhere(
    make_catalog: Callable[..., Path],
    tree: Tree,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from catalog.cli import main

    make_catalog(
        parts=[{"id": "files", "body": "{% for f in project_files %}{{ f.content }}{% endfor %}"}],
        extra={"sources": {"files": [PROJECT]}},
    )
    write(tree.proj / "CLAUDE.md", "rules\n\n@~/.ssh/id_rsa\n")
    monkeypatch.setenv("HOME", str(tree.home))
    where = f"{tree.proj / 'CLAUDE.md'}:3: import @~/.ssh/id_rsa refused"
    options = ["--path", str(tree.top / "catalogs"), "--from-dir", str(tree.proj), "--no-git"]

    assert main(["gather", "demo", *options]) == 0
    out, err = capsys.readouterr()
    assert where in err  # stderr
    assert f"  ! {where}" in out  # catalog gather's tree
    assert "PRIVATE KEY" not in out

    assert main(["gather", "demo", *options, "--format", "json"]) == 0
    out, _ = capsys.readouterr()
    assert any(where in note for note in json.loads(out)["notes"])  # the result's notes

    assert main(["assemble", "demo", *options, "--explain"]) == 0
    out, err = capsys.readouterr()
    assert f"  ! {where}" in err  # --explain's gathering tree
    assert "PRIVATE KEY" not in out + err


def test_follow_links_reads_a_linked_file_only_when_asked(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    os.symlink(tree.home / "notes.md", tree.proj / "CLAUDE.md")
    cat = build({"files": [PROJECT]})
    assert _trace(cat, tree.proj, tree.home)[0].context.project_files == ()
    followed, messages = _trace(cat, tree.proj, tree.home, follow_links=True)
    assert messages == [] and followed.context.project_files[0].content == "home notes"


def test_rule_files_follow_the_same_reach(build: Callable[..., Catalog], tree: Tree) -> None:
    home, proj = tree.home, tree.proj
    write(home / ".claude" / "rules" / "mine.md", "my rule\n@~/notes.md\n")
    (proj / ".claude").mkdir()
    (proj / ".claude" / "rules").symlink_to(home / ".claude" / "rules")
    write(proj / ".cursor" / "rules" / "api.mdc", "---\nalwaysApply: true\n---\n@~/.ssh/id_rsa\n")
    rules = {"names": [".claude/rules/*.md"], "walk": "root", "imports": True}
    cursor = {"names": [".cursor/rules/*.mdc"], "walk": "root", "scoped_by": "globs"}
    user_rules = {**rules, "dir": "~/.claude", "names": ["rules/*.md"], "scope": "user"}
    cat = build({"files": [rules, {**cursor, "imports": True}, user_rules]})
    gathered, messages = _trace(cat, proj, home)
    _no_key(gathered)
    # The project's rules folder links into the home folder: refused. The same file,
    # named by the catalog as the user's own, is read with its import.
    assert [(f.content, f.scope) for f in gathered.context.project_files] == [
        ("@~/.ssh/id_rsa\n", "project"),
        ("my rule\n@~/notes.md\n", "user"),
        ("home notes", "user"),
    ]
    assert [m.split(": ", 1)[0] for m in messages] == [
        str(proj / ".claude" / "rules" / "mine.md"),
        f"{proj / '.cursor' / 'rules' / 'api.mdc'}:4",
    ]


def test_the_line_named_is_the_files_own_line_after_stripped_comments(
    build: Callable[..., Catalog], tree: Tree
) -> None:
    write(tree.proj / "AGENTS.md", "<!-- generated -->\n<!-- two -->\n\nRules.\n@~/.ssh/id_rsa\n")
    group = {"names": ["AGENTS.md"], "walk": "cwd", "imports": True, "strip_html_comments": True}
    gathered, messages = _trace(build({"files": [group]}), tree.proj, tree.home)
    _no_key(gathered)
    assert gathered.context.project_files[0].content == "Rules.\n@~/.ssh/id_rsa\n"
    assert messages[0].startswith(f"{tree.proj / 'AGENTS.md'}:5: import @~/.ssh/id_rsa refused")
