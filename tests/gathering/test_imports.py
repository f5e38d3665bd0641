"""``@path`` imports in instruction files: resolution, chains, cycles, depth, roots."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog, SourceWarning, load_dir
from catalog.gathering._imports import find_imports
from tests._support.gathering import trace_in, write


@pytest.fixture
def build(make_catalog: Callable[..., Path]) -> Callable[..., Catalog]:
    def make(*groups: dict[str, Any], version: str = "1.0.0") -> Catalog:
        extra = {"sources": {"files": list(groups)}}
        return load_dir(make_catalog(parts=[{"id": "a"}], extra=extra, version=version))

    return make


CLAUDE = {"names": ["CLAUDE.md"], "imports": True}


def _files(gathering: Any) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(f.path, f.content, f.imported_by) for f in gathering.context.project_files]


# -- finding imports in a text


def test_imports_are_found_outside_code_only() -> None:
    text = "\n".join(
        [
            "See @README.md and @docs/a.md.",  # trailing full stop is not part of the path
            "mail me: ada@example.com, or ping @@x and @#1",
            "`@in-span.md` but @yes.md ``x @in-double-span.md``",
            "```",
            "@in-fence.md",
            "```",
            "~~~~",
            "@in-tilde-fence.md",
            "~~~",  # shorter than the opener: does not close
            "@still-in-fence.md",
            "~~~~",
            "@~/home.md @/abs/x.md @../up.md",
            "@my\\ file.md",
        ]
    )
    assert [(found.line, found.path) for found in find_imports(text)] == [
        (1, "README.md"),
        (1, "docs/a.md"),
        (3, "yes.md"),
        (12, "~/home.md"),
        (12, "/abs/x.md"),
        (12, "../up.md"),
        (13, "my file.md"),
    ]


def test_unbalanced_backticks_do_not_hide_the_rest_of_the_line() -> None:
    assert [found.path for found in find_imports("`` one ` @a.md")] == ["a.md"]
    assert [found.path for found in find_imports("` @hidden.md ` @shown.md")] == ["shown.md"]


def test_an_import_knows_where_it_stands_in_the_text() -> None:
    text = "intro\nsee @a.md, then @my\\ b.md.\n"
    spans = [text[found.start : found.end] for found in find_imports(text)]
    assert spans == ["@a.md", "@my\\ b.md"]


# -- gathering them


def test_imports_are_relative_to_the_importing_file_and_listed_after_it(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    proj = tmp_path / "proj"
    write(proj / "CLAUDE.md", "top, see @docs/style.md")
    write(proj / "docs" / "style.md", "style; also @parts/a.md")
    write(proj / "docs" / "parts" / "a.md", "part a")
    write(proj / "pkg" / "CLAUDE.md", "pkg, see @notes.md")  # a subfolder's own imports
    write(proj / "pkg" / "notes.md", "pkg notes")
    gathered = trace_in(build(CLAUDE), proj / "pkg", root=proj)
    top, style, part, pkg = (
        str(proj / "CLAUDE.md"),
        str(proj / "docs" / "style.md"),
        str(proj / "docs" / "parts" / "a.md"),
        str(proj / "pkg" / "CLAUDE.md"),
    )
    assert _files(gathered) == [
        (top, "top, see @docs/style.md", ()),
        (style, "style; also @parts/a.md", (top,)),
        (part, "part a", (top, style)),
        (pkg, "pkg, see @notes.md", ()),
        (str(proj / "pkg" / "notes.md"), "pkg notes", (pkg,)),
    ]
    record = {f.path: f for f in gathered.files}
    assert record[part].imported_by == (top, style)
    assert record[part].reason == f"@parts/a.md (line 1 of {style})"
    assert gathered.notes == ()


def test_without_imports_the_at_lines_stay_text(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "CLAUDE.md", "see @other.md")
    write(tmp_path / "other.md", "other")
    gathered = trace_in(build({"names": ["CLAUDE.md"]}), tmp_path, root=tmp_path)
    assert [f.content for f in gathered.context.project_files] == ["see @other.md"]


def test_a_cycle_is_reported_and_each_file_gathered_once(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "CLAUDE.md", "@a.md")
    write(tmp_path / "a.md", "@b.md")
    write(tmp_path / "b.md", "@a.md and @CLAUDE.md")
    with pytest.warns(SourceWarning, match="import cycle") as caught:
        gathered = trace_in(build(CLAUDE), tmp_path, root=tmp_path)
    assert [Path(f.path).name for f in gathered.context.project_files] == [
        "CLAUDE.md",
        "a.md",
        "b.md",
    ]
    cycles = [str(w.message) for w in caught if "cycle" in str(w.message)]
    assert len(cycles) == 2
    assert any(note.endswith("a.md; not imported again") for note in gathered.notes)


def test_at_most_five_hops_are_followed_by_default(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "CLAUDE.md", "@f1.md")
    for hop in range(1, 8):
        write(tmp_path / f"f{hop}.md", f"hop {hop} @f{hop + 1}.md")
    with pytest.warns(SourceWarning, match="more than 5 hops"):
        gathered = trace_in(build(CLAUDE), tmp_path, root=tmp_path)
    names = [Path(f.path).name for f in gathered.context.project_files]
    assert names == ["CLAUDE.md", "f1.md", "f2.md", "f3.md", "f4.md", "f5.md"]
    assert len(gathered.context.project_files[-1].imported_by) == 5
    two = build({**CLAUDE, "max_import_depth": 2}, version="2.0.0")
    with pytest.warns(SourceWarning, match="more than 2 hops"):
        names = [
            Path(f.path).name for f in trace_in(two, tmp_path, root=tmp_path).context.project_files
        ]
    assert names == ["CLAUDE.md", "f1.md", "f2.md"]


def test_imports_of_a_project_file_stay_inside_the_project_root(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    proj, home, outside = tmp_path / "proj", tmp_path / "home", tmp_path / "outside"
    write(outside / "secret.md", "SECRET")
    write(home / "notes.md", "home notes")
    write(proj / "docs" / "ok.md", "project notes")
    write(
        proj / "CLAUDE.md",
        f"@~/notes.md\n@{outside / 'secret.md'}\n@../outside/secret.md\n@link.md\n@docs/ok.md\n",
    )
    os.symlink(outside / "secret.md", proj / "link.md")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gathered = trace_in(build(CLAUDE), proj, root=proj, home=home)
    contents = [f.content for f in gathered.context.project_files]
    assert contents[1:] == ["project notes"]
    refused = [str(w.message) for w in caught if "refused" in str(w.message)]
    assert [message.split(": import ")[0] for message in refused] == [
        f"{proj / 'CLAUDE.md'}:{line}" for line in (1, 2, 3, 4)
    ]
    assert all(f"outside the project root {proj}" in message for message in refused)
    skipped = [f for f in gathered.files if f.status == "skipped"]
    assert {f.reason.split(": ")[-1] for f in skipped} == {
        f"refused, outside the project root {proj}"
    }


def test_without_a_root_the_git_root_bounds_imports(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / "CLAUDE.md", "@docs/x.md")
    write(repo / "docs" / "x.md", "x")
    (repo / "pkg").mkdir()
    gathered = trace_in(build(CLAUDE), repo / "pkg")
    assert [f.content for f in gathered.context.project_files] == ["@docs/x.md", "x"]
    assert gathered.root == str(repo.resolve())


def test_a_missing_import_is_recorded_not_warned(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "CLAUDE.md", "ask @alice about @gone.md")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gathered = trace_in(build(CLAUDE), tmp_path, root=tmp_path)
    missing = [(Path(f.path).name, f.status) for f in gathered.files if f.status == "skipped"]
    assert missing == [("alice", "skipped"), ("gone.md", "skipped")]


def test_inline_imports_replace_the_at_path_in_the_importers_text(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "GEMINI.md", "Start.\n@parts/a.md\nMiddle `@kept.md` @parts/a.md again.\nEnd.")
    write(tmp_path / "parts" / "a.md", "A says @b.md.")
    write(tmp_path / "parts" / "b.md", "B")
    cat = build({"names": ["GEMINI.md"], "imports": "inline"})
    gathered = trace_in(cat, tmp_path, root=tmp_path)
    (only,) = gathered.context.project_files
    # Each file is taken once: the second @parts/a.md stays as written.
    assert only.content == "Start.\nA says B.\nMiddle `@kept.md` @parts/a.md again.\nEnd."
    inlined = [(Path(f.path).name, f.status, len(f.imported_by)) for f in gathered.files]
    assert inlined == [
        ("a.md", "included", 1),
        ("b.md", "included", 2),
        ("a.md", "skipped", 1),
        ("GEMINI.md", "included", 0),
    ]
