"""Gathering driven by the caller's settings: {VARIABLE} in source paths, required skill
fields, and the home folder in env.home."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog, ManifestError, SourceWarning, load_dir
from tests._support.gathering import gather_in, skill, write

NAMES = {"name": "names", "type": "list", "default": ["AGENTS.md", "OPAL.md"]}
EXTRA = {"name": "extra_dirs", "type": "list", "default": []}
TOOL_DIR = {"name": "tool_dir", "type": "str", "default": ".tool"}


@pytest.fixture
def build(make_catalog: Callable[..., Path]) -> Callable[..., Catalog]:
    def make(sources: dict[str, Any], variables: list[dict[str, Any]]) -> Catalog:
        parts = [{"id": "p", "body": "x"}]
        return load_dir(make_catalog(parts=parts, variables=variables, extra={"sources": sources}))

    return make


def found(ctx: Any, root: Path) -> list[str]:
    return [str(Path(f.path).relative_to(root.resolve())) for f in ctx.project_files]


def test_a_list_variable_gives_one_name_per_item_in_place(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    cat = build(
        {"files": [{"names": ["{names}", ".agents/{names}", "{tool_dir}/RULES.md"]}]},
        [NAMES, TOOL_DIR],
    )
    for name in ("AGENTS.md", "OPAL.md", ".agents/AGENTS.md", ".agents/OPAL.md", "CLAUDE.md"):
        write(tmp_path / name, name)
    write(tmp_path / ".tool" / "RULES.md", "rules")
    write(tmp_path / ".mine" / "RULES.md", "mine")
    ctx = gather_in(cat, tmp_path, root=tmp_path)
    assert found(ctx, tmp_path) == [
        "AGENTS.md",
        "OPAL.md",
        ".agents/AGENTS.md",
        ".agents/OPAL.md",
        ".tool/RULES.md",
    ]
    mine = {"variables": {"names": ["CLAUDE.md"], "tool_dir": ".mine"}}
    ctx = gather_in(cat, tmp_path, root=tmp_path, base=mine)
    assert found(ctx, tmp_path) == ["CLAUDE.md", ".mine/RULES.md"]
    nothing = gather_in(cat, tmp_path, root=tmp_path, base={"variables": {"names": []}})
    assert found(nothing, tmp_path) == [".tool/RULES.md"]


def test_extra_skill_folders_come_from_the_caller(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    cat = build({"skills": ["~/skills", "{extra_dirs}"]}, [EXTRA])
    home = tmp_path / "home"
    skill(home / "skills" / "a", "name: a\ndescription: A")
    skill(tmp_path / "more" / "b", "name: b\ndescription: B")
    skill(tmp_path / "other" / "c", "name: c\ndescription: C")
    ctx = gather_in(cat, tmp_path, home=home)
    assert [s.name for s in ctx.skills] == ["a"]
    extra = [str(tmp_path / "more"), str(tmp_path / "other")]
    ctx = gather_in(cat, tmp_path, home=home, base={"variables": {"extra_dirs": extra}})
    assert [s.name for s in ctx.skills] == ["a", "b", "c"]
    assert ctx.variables["extra_dirs"] == extra


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        ({"skills": ["{nope}"]}, "'{nope}' {nope} is not a declared variable of type str or list"),
        ({"files": [{"names": ["{flag}"]}]}, "{flag} is not a declared variable"),
        ({"files": [{"names": ["{names}/{tool_dir}"]}]}, "holds more than one {VARIABLE}"),
        ({"text": [{"names": ["{nope}.md"], "target": "append"}]}, "{nope} is not a declared"),
    ],
)
def test_a_placeholder_must_name_a_text_or_list_variable(
    make_catalog: Callable[..., Path], sources: dict[str, Any], message: str
) -> None:
    flag = {"name": "flag", "type": "bool"}
    folder = make_catalog(
        parts=[{"id": "p"}], variables=[NAMES, TOOL_DIR, flag], extra={"sources": sources}
    )
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    assert message in caught.value.message
    assert caught.value.key is not None and caught.value.key.startswith("sources.")
    assert caught.value.line is not None


def test_required_skill_fields(build: Callable[..., Catalog], tmp_path: Path) -> None:
    folder = tmp_path / "skills"
    skill(folder / "named", "name: named\ndescription: Has both")
    nameless = skill(folder / "nameless", "description: No name")
    undescribed = skill(folder / "undescribed", "name: undescribed")
    strict = build({"skills": [str(folder)], "skill_fields": ["name", "description"]}, [])
    with pytest.warns(SourceWarning) as caught:
        ctx = gather_in(strict, tmp_path)
    assert [s.name for s in ctx.skills] == ["named"]
    assert sorted(str(w.message) for w in caught) == [
        f"{nameless}: skill skipped, its front matter has no `name`",
        f"{undescribed}: skill skipped, its front matter has no `description`",
    ]
    lenient = build({"skills": [str(folder)]}, [])
    with warnings.catch_warnings(record=True):
        ctx = gather_in(lenient, tmp_path)
    assert [(s.name, s.description) for s in ctx.skills] == [
        ("named", "Has both"),
        ("nameless", "No name"),
    ]


def test_env_home_is_the_folder_tilde_stood_for(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    home = tmp_path / "someone"
    home.mkdir()
    ctx = gather_in(build({}, []), tmp_path, home=home)
    assert ctx.env.home == str(home.resolve())
