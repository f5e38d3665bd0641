"""Path-scoped rules, override names and walks, budgets, user and local files, bounds."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog, ManifestError, SourceWarning, load_dir
from catalog.gathering import _find, _instructions
from catalog.gathering._rules import read_rule
from catalog.text.globs import Glob, GlobBudgetError, MatchBudget
from tests._support.gathering import trace_in, write


@pytest.fixture
def build(make_catalog: Callable[..., Path]) -> Callable[..., Catalog]:
    def make(*groups: dict[str, Any], version: str = "1.0.0", **sources: Any) -> Catalog:
        extra = {"sources": {"files": list(groups), **sources}}
        return load_dir(make_catalog(parts=[{"id": "a"}], extra=extra, version=version))

    return make


RULES = {"names": [".claude/rules/**/*.md"], "scoped_by": "paths", "walk": "root"}
MDC = {"names": [".cursor/rules/*.mdc"], "scoped_by": "globs", "walk": "root"}


def _contents(gathering: Any) -> list[str]:
    return [f.content for f in gathering.context.project_files]


# -- rule headers


@pytest.mark.parametrize(
    ("text", "globs"),
    [
        ('---\npaths:\n  - "src/**/*.ts"\n  - lib/*.py\n---\nbody', ("src/**/*.ts", "lib/*.py")),
        ("---\npaths: src/*.{ts,tsx}\n---\nbody", ("src/*.{ts,tsx}",)),
        ("---\npaths: [\"a/**\", 'b/*.md']\n---\nbody", ("a/**", "b/*.md")),
        ("---\npaths: a/**, b/**\n---\nbody", ("a/**", "b/**")),
        ("---\ndescription: no paths\n---\nbody", ()),
        ("no header at all", ()),
    ],
)
def test_paths_front_matter_forms(text: str, globs: tuple[str, ...]) -> None:
    scope = read_rule(text, "paths")
    assert scope.globs == globs
    assert scope.always is (not globs)


def test_mdc_front_matter_reads_globs_and_always_apply_without_yaml() -> None:
    # "*.ts" unquoted is not valid YAML (an alias); rule files write it anyway.
    scope = read_rule(
        "---\ndescription: x\nglobs: *.ts,src/**/*.tsx\nalwaysApply: false\n---\nB", "globs"
    )
    assert (scope.always, scope.globs, scope.body) == (False, ("*.ts", "src/**/*.tsx"), "B")
    always = read_rule("---\nalwaysApply: true\nglobs: *.ts\n---\nB", "globs")
    assert (always.always, always.globs) == (True, ())
    manual = read_rule("---\ndescription: only when asked\n---\nB", "globs")
    assert (manual.always, manual.globs) == (False, ())


def test_an_unclosed_header_is_body_text() -> None:
    scope = read_rule("---\npaths: x/**\nno end", "paths")
    assert (scope.always, scope.body) == (True, "---\npaths: x/**\nno end")


# -- path-scoped rules in a tree


@pytest.fixture
def rules_tree(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    rules = proj / ".claude" / "rules"
    write(rules / "general.md", "always")
    write(rules / "api.md", '---\npaths:\n  - "src/api/**/*.ts"\n---\nAPI rule\n')
    write(rules / "web" / "ui.md", "---\npaths: web/*.{tsx,css}\n---\nUI rule\n")
    write(rules / "docs.md", "---\npaths: *.md\n---\nDocs rule\n")
    (proj / "src" / "api").mkdir(parents=True)
    return proj


def test_rules_apply_only_when_a_touched_file_matches(
    build: Callable[..., Catalog], rules_tree: Path
) -> None:
    cat = build(RULES)
    nothing = trace_in(cat, rules_tree, root=rules_tree)
    assert _contents(nothing) == ["always"]
    assert {f.path.rsplit("/", 1)[-1]: f.status for f in nothing.files} == {
        "api.md": "skipped",
        "docs.md": "skipped",
        "general.md": "included",
        "ui.md": "skipped",
    }
    touched = {"touched_files": ["src/api/v1/users.ts", str(rules_tree / "web" / "app.css")]}
    some = trace_in(cat, rules_tree, root=rules_tree, base=touched)
    # Front matter is not part of the text; sorted by path under the rules folder.
    assert _contents(some) == ["API rule\n", "always", "UI rule\n"]
    api = next(f for f in some.files if f.path.endswith("api.md"))
    assert "'src/api/**/*.ts' matches the touched file src/api/v1/users.ts" in api.reason


def test_touched_files_are_relative_to_the_working_directory(
    build: Callable[..., Catalog], rules_tree: Path
) -> None:
    base = {"touched_files": ["v1/x.ts"]}
    gathered = trace_in(build(RULES), rules_tree / "src" / "api", root=rules_tree, base=base)
    assert _contents(gathered) == ["API rule\n", "always"]
    assert gathered.context.touched_files == ("v1/x.ts",)


def test_a_slashless_glob_matches_at_any_depth(
    build: Callable[..., Catalog], rules_tree: Path
) -> None:
    gathered = trace_in(
        build(RULES), rules_tree, root=rules_tree, base={"touched_files": ["deep/er/README.md"]}
    )
    assert _contents(gathered) == ["Docs rule\n", "always"]


def test_user_rules_match_paths_from_the_project_root(
    build: Callable[..., Catalog], tmp_path: Path, rules_tree: Path
) -> None:
    home = tmp_path / "home"
    write(home / ".claude" / "rules" / "py.md", "---\npaths: src/**/*.py\n---\nPython rule")
    user = {"dir": "~/.claude", "names": ["rules/**/*.md"], "scoped_by": "paths", "scope": "user"}
    gathered = trace_in(
        build(user),
        rules_tree / "src",
        root=rules_tree,
        home=home,
        base={"touched_files": ["api/m.py"]},
    )
    assert _contents(gathered) == ["Python rule"]


def test_cursor_style_rules(build: Callable[..., Catalog], tmp_path: Path) -> None:
    rules = tmp_path / ".cursor" / "rules"
    write(rules / "always.mdc", "---\nalwaysApply: true\n---\nAlways.")
    write(rules / "ts.mdc", "---\nglobs: *.ts, *.tsx\nalwaysApply: false\n---\nTS.")
    write(rules / "manual.mdc", "---\ndescription: ask for me\n---\nManual.")
    cat = build(MDC)
    assert _contents(trace_in(cat, tmp_path, root=tmp_path)) == ["Always."]
    gathered = trace_in(cat, tmp_path, root=tmp_path, base={"touched_files": ["a/b.tsx"]})
    assert _contents(gathered) == ["Always.", "TS."]
    manual = next(f for f in gathered.files if f.path.endswith("manual.mdc"))
    assert (manual.status, manual.reason) == (
        "skipped",
        "neither alwaysApply nor globs: applies only when asked for",
    )


def test_a_rule_glob_that_cannot_compile_is_ignored_with_a_warning(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / ".claude" / "rules" / "bad.md", f"---\npaths: {'{' * 40}a{'}' * 40}\n---\nBad")
    with pytest.warns(SourceWarning, match="ignored"):
        gathered = trace_in(build(RULES), tmp_path, root=tmp_path, base={"touched_files": ["a"]})
    assert _contents(gathered) == []


# -- override names, walks, empty files


@pytest.fixture
def codex_tree(tmp_path: Path) -> Path:
    repo = tmp_path / "outer" / "repo"
    (repo / ".git").mkdir(parents=True)
    write(tmp_path / "outer" / "AGENTS.md", "above the repository")
    write(repo / "AGENTS.md", "repo agents")
    write(repo / "AGENTS.override.md", "repo override")
    write(repo / "svc" / "AGENTS.md", "")
    write(repo / "svc" / "TEAM.md", "svc fallback")
    write(repo / "svc" / "api" / "AGENTS.md", "api agents")
    return repo


CODEX = {
    "names": ["AGENTS.override.md", "AGENTS.md", "TEAM.md"],
    "first_wins": True,
    "skip_empty": True,
    "walk": "down",
}


def test_override_and_fallback_names_walking_down_from_the_git_root(
    build: Callable[..., Catalog], codex_tree: Path
) -> None:
    gathered = trace_in(build(CODEX), codex_tree / "svc" / "api")
    assert _contents(gathered) == ["repo override", "svc fallback", "api agents"]
    empty = next(f for f in gathered.files if f.status == "skipped")
    assert (Path(empty.path).name, empty.reason.endswith("empty")) == ("AGENTS.md", True)


def test_walk_down_without_a_root_marker_looks_in_the_working_directory_only(
    build: Callable[..., Catalog], codex_tree: Path
) -> None:
    (codex_tree / ".git").rmdir()
    gathered = trace_in(build(CODEX), codex_tree / "svc" / "api")
    assert _contents(gathered) == ["api agents"]


def test_walk_up_stops_at_the_root_and_walk_root_reads_only_there(
    build: Callable[..., Catalog], codex_tree: Path
) -> None:
    outer = codex_tree.parent
    up = {**CODEX, "walk": "up"}
    assert _contents(trace_in(build(up), codex_tree / "svc", root=outer)) == [
        "above the repository",
        "repo override",
        "svc fallback",
    ]
    only_root = build({**CODEX, "walk": "root"}, version="2.0.0")
    assert _contents(trace_in(only_root, codex_tree / "svc" / "api")) == ["repo override"]


def test_root_markers_are_data(build: Callable[..., Catalog], codex_tree: Path) -> None:
    write(codex_tree / "svc" / "pyproject.toml", "")
    cat = build(CODEX, root_markers=["pyproject.toml"])
    assert _contents(trace_in(cat, codex_tree / "svc" / "api")) == ["svc fallback", "api agents"]


# -- budgets


def test_a_budget_cuts_the_file_that_crosses_it_and_drops_the_rest(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "a" / "AGENTS.md", "x" * 30)
    write(tmp_path / "a" / "b" / "AGENTS.md", "é" * 20)  # 40 bytes, 2 per character
    write(tmp_path / "a" / "b" / "c" / "AGENTS.md", "last")
    cat = build({"names": ["AGENTS.md"], "max_bytes": 41})
    with pytest.warns(SourceWarning) as caught:
        gathered = trace_in(cat, tmp_path / "a" / "b" / "c", root=tmp_path)
    first, second = gathered.context.project_files
    assert first.content == "x" * 30
    # 11 bytes left: five whole characters, never half of one.
    assert second.content.startswith("é" * 5 + "\n\n[... cut: the rest of AGENTS.md is over the 41")
    statuses = [(f.status, f.bytes, f.size) for f in gathered.files]
    assert statuses == [("included", 30, 30), ("cut", 10, 40), ("dropped", 0, 4)]
    messages = [str(w.message) for w in caught]
    assert any("cut to 11 of 40 bytes by the 41-byte budget of files[0]" in m for m in messages)
    assert any("dropped, over the 41-byte budget" in m for m in messages)
    assert list(gathered.notes) == messages


def test_over_budget_drop_leaves_whole_files_only(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "AGENTS.md", "x" * 30)
    write(tmp_path / "sub" / "AGENTS.md", "y" * 30)
    cat = build({"names": ["AGENTS.md"], "max_bytes": 40, "over_budget": "drop", "label": "agents"})
    with pytest.warns(SourceWarning, match="dropped, over the 40-byte budget of agents"):
        gathered = trace_in(cat, tmp_path / "sub", root=tmp_path)
    assert _contents(gathered) == ["x" * 30]


def test_imported_files_count_against_their_entrys_budget(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "CLAUDE.md", "@big.md")
    write(tmp_path / "big.md", "b" * 100)
    cat = build({"names": ["CLAUDE.md"], "imports": True, "max_bytes": 50, "over_budget": "drop"})
    with pytest.warns(SourceWarning, match="big.md: dropped"):
        assert _contents(trace_in(cat, tmp_path, root=tmp_path)) == ["@big.md"]


# -- user and local files, in manifest order


def test_user_project_and_local_files_in_order(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    write(home / ".claude" / "CLAUDE.md", "user")
    write(home / ".gemini" / "GEMINI.md", "gemini user")
    write(proj / "CLAUDE.local.md", "local")
    write(proj / "CLAUDE.md", "project")
    cat = build(
        {"dir": "~/.claude", "names": ["CLAUDE.md"], "scope": "user"},
        {"dir": "~/.gemini", "names": ["GEMINI.md"], "scope": "user"},
        {"names": ["CLAUDE.md"]},
        {"names": ["CLAUDE.local.md"], "scope": "local"},
    )
    files = trace_in(cat, proj, root=proj, home=home).context.project_files
    assert [(f.scope, f.content, f.source) for f in files] == [
        ("user", "user", "files[0]"),
        ("user", "gemini user", "files[1]"),
        ("project", "project", "files[2]"),
        ("local", "local", "files[3]"),
    ]


# -- bounds on hostile trees


def test_a_rules_folder_that_is_a_symlink_loop_is_walked_once(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    rules = tmp_path / ".claude" / "rules"
    write(rules / "a.md", "rule a")
    os.symlink(rules, rules / "loop")
    os.symlink(tmp_path / ".claude", rules / "up")
    with pytest.warns(SourceWarning, match="symbolic link loop"):
        gathered = trace_in(build(RULES), tmp_path, root=tmp_path)
    assert _contents(gathered) == ["rule a"]


def test_a_rules_folder_linked_to_itself_is_no_folder(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    (tmp_path / ".claude").mkdir()
    os.symlink(tmp_path / ".claude" / "rules", tmp_path / ".claude" / "rules")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert _contents(trace_in(build(RULES), tmp_path, root=tmp_path)) == []


def test_many_rule_files_stop_at_max_files(build: Callable[..., Catalog], tmp_path: Path) -> None:
    rules = tmp_path / ".claude" / "rules"
    rules.mkdir(parents=True)
    for number in range(300):
        (rules / f"r{number:04}.md").write_text(f"rule {number}", encoding="utf-8")
    cat = build({**RULES, "max_files": 120})
    with pytest.warns(SourceWarning, match=r"stopped at max_files \(120\)"):
        gathered = trace_in(cat, tmp_path, root=tmp_path)
    assert _contents(gathered) == [f"rule {n}" for n in range(120)]


def test_one_gathering_looks_at_a_bounded_number_of_folder_entries(
    build: Callable[..., Catalog], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_find, "MAX_ENTRIES", 50)
    for number in range(40):
        write(tmp_path / "t" / f"d{number:02}" / "x.md", "x")
    everything = {"names": ["**/*.md"], "walk": "root", "max_files": 100_000}
    with pytest.warns(SourceWarning, match="stopped looking for files after 50 folder entries"):
        gathered = trace_in(build(everything), tmp_path, root=tmp_path)
    assert 0 < len(gathered.context.project_files) < 40


def test_a_name_that_is_not_a_usable_glob_is_a_manifest_error(
    make_catalog: Callable[..., Path],
) -> None:
    extra = {"sources": {"files": [{"names": ["{" * 40 + "x" + "}" * 40]}]}}
    folder = make_catalog(parts=[{"id": "a"}], extra=extra)
    with pytest.raises(ManifestError, match="nested more than"):
        load_dir(folder)


def test_glob_matching_has_one_budget_per_gathering(
    build: Callable[..., Catalog], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_instructions, "MAX_MATCH_STEPS", 20_000)
    rules = tmp_path / ".claude" / "rules"
    for number in range(30):
        write(rules / f"r{number:02}.md", f'---\npaths: "{"*a" * 40}{number}"\n---\nrule {number}')
    write(rules / "zz-always.md", "always")
    touched = {"touched_files": [f"{'a' * 200}{n}.b" for n in range(30)]}
    with pytest.warns(SourceWarning, match="glob matching stopped after 20000 steps") as caught:
        gathered = trace_in(build(RULES), tmp_path, root=tmp_path, base=touched)
    assert sum("glob matching stopped" in str(w.message) for w in caught) == 1
    # Rules without paths need no matching and still apply.
    assert _contents(gathered) == ["always"]
    spent = [f for f in gathered.files if "budget is spent" in f.reason]
    assert 0 < len(spent) < 30


def test_a_budget_is_shared_by_the_matches_given_it() -> None:
    budget = MatchBudget(100)
    glob = Glob("/x*y")
    assert glob.match("x" + "a" * 40 + "y", budget) is True
    with pytest.raises(GlobBudgetError):
        for _ in range(10):
            glob.match("x" + "b" * 40 + "z", budget)
    # A path refused on the glob's literal start costs nothing.
    assert Glob("/src/*.py").match("lib/" + "a" * 1000, MatchBudget(0)) is False


def test_an_import_of_a_fifo_is_not_read(build: Callable[..., Catalog], tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    write(tmp_path / "CLAUDE.md", "@pipe.md")
    cat = build({"names": ["CLAUDE.md"], "imports": True})
    gathered = trace_in(cat, tmp_path, root=tmp_path)
    assert _contents(gathered) == ["@pipe.md"]
    assert [f.status for f in gathered.files if f.path.endswith("pipe.md")] == ["skipped"]


def test_walk_touched_reads_the_folders_leading_to_touched_files(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    write(tmp_path / "CLAUDE.md", "top: not below the working directory")
    write(tmp_path / "pkg" / "CLAUDE.md", "pkg")
    write(tmp_path / "pkg" / "deep" / "er" / "CLAUDE.md", "deeper")
    write(tmp_path / "other" / "CLAUDE.md", "other: nothing touched there")
    write(tmp_path / "lib" / "CLAUDE.md", "lib")
    cat = build({"names": ["CLAUDE.md"], "walk": "touched"})
    assert _contents(trace_in(cat, tmp_path, root=tmp_path)) == []
    touched = ["pkg/deep/er/x.py", "lib/y.py", "pkg/z.py", "../outside.py", "top.py"]
    gathered = trace_in(cat, tmp_path, root=tmp_path, base={"touched_files": touched})
    assert _contents(gathered) == ["pkg", "deeper", "lib"]


def test_a_rule_linked_out_of_the_roots_is_refused_and_recorded(
    build: Callable[..., Catalog], tmp_path: Path
) -> None:
    proj, outside = tmp_path / "proj", tmp_path / "outside"
    write(outside / "secret.md", "SECRET")
    (proj / ".claude" / "rules").mkdir(parents=True)
    os.symlink(outside / "secret.md", proj / ".claude" / "rules" / "linked.md")
    with pytest.warns(SourceWarning, match="outside"):
        gathered = trace_in(build(RULES), proj, root=proj, home=proj)
    assert _contents(gathered) == []
    (record,) = gathered.files
    assert (record.status, record.reason.endswith("refused by the link rule")) == ("skipped", True)
