"""Reading releases from tags: part ids from paths, and what a tree may not hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.errors import ImporterError
from catalog.importers.git import ReleaseReader, choose_tags, import_git, part_id
from catalog.importers.gitrepo import GitRepo
from tests._support.git_history import History


@pytest.mark.parametrize(
    ("path", "roots", "expected"),
    [
        ("src/prompt/anthropic.txt", ("src/prompt",), "anthropic"),
        ("src/prompt/anthropic.txt", ("src", "src/prompt"), "anthropic"),
        ("src/tool/bash.txt", ("src", "src/prompt"), "tool-bash"),
        ("docs/a/b.md", (), "docs-a-b"),
        ("templates/Plan Mode.md", ("templates",), "plan-mode"),
        ("p/gpt-5.1-codex_prompt.md", ("p",), "gpt-5.1-codex_prompt"),
        ("p/.hidden", ("p",), "hidden"),
        ("p/archive.tar.gz", ("p",), "archive.tar"),
        ("prompts/x.md", ("prompt",), "prompts-x"),  # a root is a whole folder name
    ],
)
def test_a_part_id_is_the_path_under_the_longest_root(
    path: str, roots: tuple[str, ...], expected: str
) -> None:
    assert part_id(path, roots) == expected


def _read(repo: Path, includes: tuple[str, ...] = ("p/**",)) -> list[dict[str, str]]:
    with GitRepo(repo) as git:
        reader = ReleaseReader(git, includes, ("p",))
        return [
            {f.id: f.text for f in reader.release(tag).files}
            for tag in choose_tags(git.tags(), ["v*"], pre=False).releases
        ]


def test_a_symbolic_link_the_include_matches_is_refused(tmp_path: Path) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A", "p/evil.md": (0o120000, b"/etc/passwd")}))
    with pytest.raises(ImporterError) as caught:
        _read(history.save())
    assert "a symbolic link: the importer never follows links" in caught.value.message
    assert caught.value.file is not None and caught.value.file.endswith(":p/evil.md")
    # Left out by the include, it is never looked at.
    assert _read(history.path, ("p/a.md",)) == [{"a": "A"}]


def test_folders_no_include_can_match_under_are_not_read(tmp_path: Path) -> None:
    history = History(tmp_path / "repo")
    files = {f"vendor/{n}/x.md": "x" for n in range(50)}
    history.tag("v1", history.commit({**files, "p/a.md": "A", "p/deep/b.md": "B"}))
    with GitRepo(history.save()) as git:
        reader = ReleaseReader(git, ("p/*.md",), ("p",))
        (tag,) = choose_tags(git.tags(), ["v*"], pre=False).releases
        assert {f.id for f in reader.release(tag).files} == {"a"}
    # The top tree and p/: not vendor/ nor its 50 folders, nor p/deep/ ('*' stays in p/).
    assert reader.stats.trees_read == 2


def test_a_tag_naming_no_commit_is_an_error_naming_it(tmp_path: Path) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1", history.commit({"p/a.md": "A"}))
    repo = history.save()
    with GitRepo(repo) as git:
        tree = git.tree_of(git.tags()["v1"])
    (repo / ".git" / "refs" / "tags" / "v2").write_text(tree + "\n")
    with pytest.raises(ImporterError, match=f"git object {tree} .* is a tree, not a commit"):
        _read(repo)


@pytest.mark.parametrize(
    ("include", "expected"),
    [
        ("p/", {"a", "deep-b", "deep-deeper-c"}),
        ("p/**", {"a", "deep-b", "deep-deeper-c"}),
        ("p/*/*.md", {"deep-b"}),
        ("p/{deep/deeper,x}/*.md", {"deep-deeper-c"}),
        ("*.md", {"a", "deep-b", "deep-deeper-c"}),
        ("b.md", {"deep-b"}),
    ],
)
def test_includes_reach_every_depth_they_match(
    include: str, expected: set[str], tmp_path: Path
) -> None:
    history = History(tmp_path / "repo")
    history.tag(
        "v1", history.commit({"p/a.md": "A", "p/deep/b.md": "B", "p/deep/deeper/c.md": "C"})
    )
    (found,) = _read(history.save(), (include,))
    assert set(found) == expected


def test_only_the_tags_asked_for_are_read(tmp_path: Path) -> None:
    history = History(tmp_path / "repo")
    commit = history.commit({"p/a.md": "A"})
    history.tag("v1", commit)
    repo = history.save()
    (repo / ".git" / "refs" / "tags" / "broken").write_text("0" * 40 + "\n")  # no such object
    out = tmp_path / "out"
    done = import_git(repo, name="agent", out=out, tags=["v*"], includes=["p/*"], roots=["p"])
    assert [v.version for v in done.report.versions] == ["1"]
    with pytest.raises(ImporterError, match=f"git object {'0' * 40} is missing"):
        import_git(repo, name="agent", out=out, tags=["b*"], includes=["p/*"])
