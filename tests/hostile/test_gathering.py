"""Gathering from a hostile folder: links out of the roots, FIFOs, devices, bad YAML.

Every input here is made on disk for real (symbolic links, named pipes,
folders); a case that used to hang would hang the test, so each FIFO case
also proves that nothing blocks.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import Catalog, Context, SourceWarning
from catalog.gathering import _files
from catalog.gathering._files import strip_leading_html_comments
from catalog.gathering.safe import (
    MAX_YAML_DEPTH,
    ReadRules,
    YamlError,
    allowed_path,
    load_yaml,
    read_bounded,
)
from tests._support.gathering import gather_in as run_gather
from tests._support.gathering import skill, write

BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [
        f"{x}: &{x} [{','.join([f'*{p}'] * 9)}]"
        for p, x in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``(project, home, outside)``: three separate folders."""
    folders = tuple(tmp_path / name for name in ("proj", "home", "outside"))
    for folder in folders:
        folder.mkdir()
    return folders  # type: ignore[return-value]


def _gather_warned(cat: Catalog, cwd: Path, home: Path) -> tuple[Context, list[str]]:
    """The gathered context and the messages of the source warnings on the way."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ctx = run_gather(cat, cwd, home=home)
    return ctx, [str(w.message) for w in caught if issubclass(w.category, SourceWarning)]


AGENTS = {"files": [{"names": ["AGENTS.md", "CLAUDE.md"], "walk": "cwd"}]}


# -- the link rule


def test_an_instruction_file_linked_out_of_the_roots_is_skipped_unless_followed(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, outside = places
    write(outside / "secret.md", "SECRET")
    (proj / "AGENTS.md").symlink_to(outside / "secret.md")
    write(proj / "CLAUDE.md", "mine")
    cat = build(AGENTS)
    ctx, messages = _gather_warned(cat, proj, home)
    assert [f.content for f in ctx.project_files] == ["mine"]
    [message] = messages
    assert message.startswith(f"{proj / 'AGENTS.md'}: skipped, a link to {outside / 'secret.md'}")
    assert "--follow-links" in message

    followed = run_gather(cat, proj, home=home, follow_links=True)
    assert [f.content for f in followed.project_files] == ["SECRET", "mine"]


def test_a_refused_link_named_by_two_sources_is_warned_about_once(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, outside = places
    write(outside / "secret.md", "SECRET")
    (proj / "CLAUDE.md").symlink_to(outside / "secret.md")
    both = {
        "files": [
            {"names": ["CLAUDE.md"], "walk": "cwd"},
            {"names": ["CLAUDE.md"], "walk": "up"},
        ]
    }
    ctx, messages = _gather_warned(build(both), proj, home)
    assert ctx.project_files == ()
    assert len(messages) == 1 and "skipped, a link to" in messages[0]


def test_each_gathered_file_and_import_is_resolved_once(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    proj, home, _ = places
    write(proj / "AGENTS.md", "see @docs/a.md")
    write(proj / "docs" / "a.md", "A")
    write(proj / "CLAUDE.md", "mine")
    resolved: list[Path] = []
    original = Path.resolve

    def counting(self: Path, strict: bool = False) -> Path:
        resolved.append(self)
        return original(self, strict=strict)

    monkeypatch.setattr(Path, "resolve", counting)
    cat = build({"files": [{"names": ["AGENTS.md", "CLAUDE.md"], "walk": "cwd", "imports": True}]})
    ctx = run_gather(cat, proj, home=home)
    assert [f.content for f in ctx.project_files] == ["see @docs/a.md", "A", "mine"]
    # An importer is resolved once more, by its import's cycle check.
    counts = {name: resolved.count(proj / name) for name in ("AGENTS.md", "docs/a.md", "CLAUDE.md")}
    assert counts == {"AGENTS.md": 2, "docs/a.md": 1, "CLAUDE.md": 1}


def test_links_inside_the_project_are_read_a_link_into_the_home_folder_is_not(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, _ = places
    write(home / "shared-rules.md", "from home")
    write(proj / "docs" / "rules.md", "from the project")
    (proj / "AGENTS.md").symlink_to(home / "shared-rules.md")
    (proj / "CLAUDE.md").symlink_to(proj / "docs" / "rules.md")
    ctx, messages = _gather_warned(build(AGENTS), proj, home)
    assert [f.content for f in ctx.project_files] == ["from the project"]
    [message] = messages
    assert message.startswith(
        f"{proj / 'AGENTS.md'}: skipped, a link to {home / 'shared-rules.md'}, "
        f"outside the project root {proj}"
    )


def test_a_folder_link_on_the_way_counts_as_a_link(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, outside = places
    write(outside / "rules" / "a.md", "outside rule")
    (proj / ".rules").symlink_to(outside / "rules")
    cat = build({"files": [{"names": [".rules/*.md"], "walk": "cwd"}]})
    with pytest.warns(SourceWarning, match=r"a\.md: skipped, a link to"):
        assert run_gather(cat, proj, home=home).project_files == ()


def test_a_skill_folder_linked_out_of_the_roots_is_skipped(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, outside = places
    skill(outside / "evil", "name: evil\ndescription: Outside")
    skill(proj / ".skills" / "good", "name: good\ndescription: Inside")
    (proj / ".skills" / "evil").symlink_to(outside / "evil")
    cat = build({"skills": [".skills"]})
    with pytest.warns(SourceWarning, match=r"evil: skipped, a link to"):
        ctx = run_gather(cat, proj, home=home)
    assert [s.name for s in ctx.skills] == ["good"]
    followed = run_gather(cat, proj, home=home, follow_links=True)
    assert [s.name for s in followed.skills] == ["evil", "good"]


FILE_BINDING = {"binding": [{"name": "file:", "source": "file", "description": "a file"}]}


def test_a_file_reference_through_a_link_out_of_the_roots_is_skipped(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, outside = places
    write(outside / "key", "KEY")
    (proj / "notes.md").symlink_to(outside / "key")
    cat = build(
        {},
        extra=FILE_BINDING,
        variables=[{"name": "template", "type": "str", "default": "[file:notes.md]"}],
    )
    with pytest.warns(SourceWarning, match=r"notes\.md: skipped, a link to"):
        assert run_gather(cat, proj, home=home).files == {}
    assert run_gather(cat, proj, home=home, follow_links=True).files == {"notes.md": "KEY"}


def test_a_link_loop_is_skipped_with_a_warning(places: tuple[Path, Path, Path]) -> None:
    proj, home, _ = places
    (proj / "a").symlink_to(proj / "b")
    (proj / "b").symlink_to(proj / "a")
    with pytest.warns(SourceWarning, match="symbolic link loop"):
        assert allowed_path(proj / "a", ReadRules((proj, home))) is None


# -- FIFOs, devices, sizes


def test_a_fifo_is_skipped_without_blocking(places: tuple[Path, Path, Path]) -> None:
    proj, home, _ = places
    os.mkfifo(proj / "AGENTS.md")
    with pytest.warns(SourceWarning, match=r"AGENTS\.md: skipped, a named pipe \(FIFO\)"):
        assert read_bounded(proj / "AGENTS.md", ReadRules((proj, home))) is None


def test_a_fifo_or_a_device_in_place_of_a_gathered_file_gives_nothing(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, _ = places
    os.mkfifo(proj / "AGENTS.md")
    (proj / "CLAUDE.md").symlink_to("/dev/zero")
    cat = build(
        AGENTS,
        extra=FILE_BINDING,
        variables=[{"name": "template", "type": "str", "default": "[file:AGENTS.md]"}],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SourceWarning)
        ctx = run_gather(cat, proj, home=home, follow_links=True)
    assert ctx.project_files == ()
    assert ctx.files == {}


def test_a_device_is_never_read_even_when_links_are_followed(
    places: tuple[Path, Path, Path],
) -> None:
    proj, home, _ = places
    (proj / "zero").symlink_to("/dev/zero")
    with pytest.warns(SourceWarning, match="a character device, not a regular file"):
        assert read_bounded(proj / "zero", ReadRules((proj, home), follow_links=True)) is None


def test_a_huge_file_is_read_only_up_to_the_limit(places: tuple[Path, Path, Path]) -> None:
    proj, home, _ = places
    with open(proj / "big.md", "wb") as handle:  # sparse: 1 GiB of zeros costs no disk
        handle.truncate(1 << 30)
    with pytest.warns(SourceWarning, match=r"cut at 1000 bytes \(the file has 1073741824\)"):
        text = read_bounded(proj / "big.md", ReadRules((proj, home), limit=1000))
    assert text is not None
    assert text.startswith("\0" * 1000)
    assert text.endswith("[... cut: big.md is longer than 1000 bytes ...]")


# -- YAML


def test_yaml_aliases_are_refused_before_they_expand() -> None:
    with pytest.raises(YamlError, match="anchors and aliases") as caught:
        load_yaml(BILLION_LAUGHS)
    assert caught.value.line == 1


def test_yaml_nesting_is_bounded_without_recursion_errors() -> None:
    for deep in (
        "x: " + "[" * 30_000 + "]" * 30_000,
        "x: " + "{a: " * 10_000 + "1" + "}" * 10_000,
        "- " * 20_000 + "x",
        "".join(f"{'  ' * i}k:\n" for i in range(200)),
    ):
        with pytest.raises(YamlError, match=f"nested more than {MAX_YAML_DEPTH} levels deep"):
            load_yaml(deep)
    nested = "x: " + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1)  # + the mapping
    assert load_yaml(nested)["x"] is not None


def test_yaml_size_is_bounded_and_syntax_errors_name_the_line() -> None:
    with pytest.raises(YamlError, match="longer than the limit"):
        load_yaml("k: " + "v" * 100_000)
    with pytest.raises(YamlError) as caught:
        load_yaml("a: 1\nb: [2\nc: 3\n")
    assert caught.value.line == 3
    with pytest.raises(YamlError, match="could not determine a constructor"):
        load_yaml("a: !!python/object/apply:os.system ['true']")
    assert load_yaml("name: x\nlist: [1, {b: c}]\n") == {"name": "x", "list": [1, {"b": "c"}]}


@pytest.mark.parametrize(
    ("front", "reason", "line"),
    [
        (BILLION_LAUGHS, "anchors and aliases", 2),
        ("name: deep\ndescription: " + "[" * 20_000 + "]" * 20_000, "nested more than", None),
        ("name: broken\ndescription: [unclosed\n", "invalid YAML", 4),
    ],
)
def test_a_bad_skill_is_skipped_naming_the_file_and_the_others_are_gathered(
    build: Callable[..., Catalog],
    places: tuple[Path, Path, Path],
    front: str,
    reason: str,
    line: int | None,
) -> None:
    proj, home, _ = places
    bad = skill(proj / ".skills" / "bad", front)
    skill(proj / ".skills" / "good", "name: good\ndescription: Fine")
    ctx, messages = _gather_warned(build({"skills": [".skills"]}), proj, home)
    assert [s.name for s in ctx.skills] == ["good"]
    [message] = messages
    where = f"{bad}:{line}" if line is not None else str(bad)
    assert message.startswith(f"{where}: skill skipped, front matter refused")
    assert reason in message


def test_bad_persona_front_matter_leaves_that_file_out_and_keeps_the_rest(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path]
) -> None:
    proj, home, _ = places
    write(proj / "IDENTITY.md", f"---\n{BILLION_LAUGHS}\n---\nI am.")
    write(proj / "USER.md", "---\nname: Ada\ntimezone: CET\n---\nHello.")
    write(proj / "SOUL.md", "Be kind.")
    cat = build({"identity": "IDENTITY.md", "user": "USER.md", "soul": "SOUL.md"})
    ctx, messages = _gather_warned(cat, proj, home)
    assert ctx.identity is None
    assert ctx.user is not None and ctx.user.name == "Ada"
    assert ctx.soul == "Be kind."
    [message] = messages
    assert message.startswith(f"{proj / 'IDENTITY.md'}:2: left out, front matter refused")


def test_a_folder_of_too_many_entries_is_read_in_part_with_a_warning(
    build: Callable[..., Catalog], places: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    proj, home, _ = places
    for index in range(8):
        skill(proj / ".skills" / f"s{index}", f"name: s{index}\ndescription: Skill {index}")
    monkeypatch.setattr(_files, "MAX_FOLDER_ENTRIES", 5)
    ctx, messages = _gather_warned(build({"skills": [".skills"]}), proj, home)
    assert len(ctx.skills) == 5
    assert messages == [f"{proj / '.skills'}: only 5 entries of the folder looked at"]


_LEADING_COMMENTS = re.compile(r"\A\s*(?:<!--.*?-->\s*)+", re.DOTALL)  # the rule, as a regex


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["<!--", "-->", " ", "\n", "a", "-", "<!", ">"]), max_size=12))
def test_leading_comments_are_stripped_as_the_rule_says(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert strip_leading_html_comments(text) == _LEADING_COMMENTS.sub("", text, count=1)


def test_stripping_comments_is_linear_on_many_or_unclosed_comments() -> None:
    many = "<!-- c -->" * 50_000 + "body"
    assert strip_leading_html_comments(many) == "body"
    unclosed = "<!-- -->" + "<!--" * 50_000
    assert strip_leading_html_comments(unclosed) == "<!--" * 50_000


def test_without_libyaml_the_same_documents_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    with pytest.raises(YamlError, match="anchors and aliases"):
        load_yaml(BILLION_LAUGHS)
    with pytest.raises(YamlError, match="nested more than"):
        load_yaml("x: " + "[a, " * 10_000)
    assert load_yaml("name: x\nlist: [1, {b: c}]\n") == {"name": "x", "list": [1, {"b": "c"}]}
