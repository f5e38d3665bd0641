"""``import_git`` on histories built here: what each release becomes, and what is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import ImporterError
from catalog.importers.git import ReleaseReader, choose_tags, import_git
from catalog.importers.gitrepo import GitRepo
from tests._support.git_history import History
from tests.conftest import run_cli


def _import(repo: Path, out: Path, **options: object):  # type: ignore[no-untyped-def]
    settings: dict[str, object] = {
        "name": "agent",
        "out": out,
        "tags": ["v*"],
        "includes": ["prompts/**/*.md"],
        "roots": ["prompts"],
    }
    settings.update(options)
    return import_git(repo, **settings)  # type: ignore[arg-type]


def _parts(out: Path, version: str) -> dict[str, str]:
    catalog = load_dir(out / "agent" / version)
    return {part.id: part.body for part in catalog.parts}


@pytest.fixture
def history(tmp_path: Path) -> History:
    """Releases off the main line: main holds a licence only, each tag its own commit."""
    repo = History(tmp_path / "repo")
    main = repo.commit({"LICENSE": "MIT"})
    repo.branch("main", main)
    one = repo.commit(
        {"LICENSE": "MIT", "prompts/system.md": "Be brief.", "prompts/modes/plan.md": "Plan."},
        main,
    )
    repo.tag("v1.0.0", one)
    # 1.1: plan.md renamed to planning.md (same text), system.md changed
    two = repo.commit(
        {"prompts/system.md": "Be brief!", "prompts/modes/planning.md": "Plan.", "src/x.py": "1"},
        main,
    )
    repo.tag("v1.1.0", two, annotated=True)
    # 1.2: planning.md deleted
    three = repo.commit({"prompts/system.md": "Be brief!"}, main)
    repo.tag("v1.2.0", three)
    # 2.0: the name plan.md reused for another text
    four = repo.commit({"prompts/system.md": "Be brief!", "prompts/modes/plan.md": "New plan."})
    repo.tag("v2.0.0", four)
    repo.tag("v2.1.0rc1", repo.commit({"prompts/system.md": "Soon."}))
    repo.tag("nightly", repo.commit({"prompts/system.md": "Nightly."}))
    repo.tag("vnext", repo.commit({"prompts/system.md": "Next."}))
    repo.save()
    return repo


def test_every_release_tag_becomes_a_version_read_from_its_own_tree(
    history: History, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = _import(history.path, out)
    assert [v.version for v in done.report.versions] == ["1.0.0", "1.1.0", "1.2.0", "2.0.0"]
    assert _parts(out, "1.0.0") == {"system": "Be brief.", "modes-plan": "Plan."}
    assert _parts(out, "1.1.0") == {"system": "Be brief!", "modes-planning": "Plan."}
    assert _parts(out, "1.2.0") == {"system": "Be brief!"}
    assert _parts(out, "2.0.0") == {"system": "Be brief!", "modes-plan": "New plan."}
    assert done.tags.pre_releases == ("v2.1.0rc1",)
    assert done.tags.not_versions == ("vnext",)  # "nightly" does not match v*
    # The repository's licence, as the last release holding one has it, beside the versions.
    assert (out / "agent" / "LICENSE").read_text() == "MIT"


def test_pre_releases_are_imported_with_pre(history: History, tmp_path: Path) -> None:
    done = _import(history.path, tmp_path / "out", pre=True)
    assert [v.version for v in done.report.versions][-1] == "2.1.0rc1"
    assert _parts(tmp_path / "out", "2.1.0rc1") == {"system": "Soon."}


def test_parts_are_raw_text_with_their_source_and_release_recorded(
    history: History, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _import(history.path, out)
    catalog = load_dir(out / "agent" / "1.1.0")
    part = next(p for p in catalog.parts if p.id == "modes-planning")
    assert part.decl.template is False
    assert part.decl.kind == "system"
    assert part.decl.meta == {"source": {"path": "prompts/modes/planning.md"}}
    first_line = (out / "agent" / "1.1.0" / "catalog.toml").read_text().splitlines()[0]
    assert "tag v1.1.0" in first_line
    assert str(history.path) in first_line
    assert history.commits["v1.1.0"] in first_line


def test_log_agrees_with_git_on_renames_and_reused_names(
    history: History, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _import(history.path, out)

    def log(part: str, *more: str) -> list[tuple[str, str]]:
        code, text, err = run_cli(
            capsys, "--path", str(out), "log", "agent", part, "--format", "json", *more
        )
        assert code == 0, err
        return [(e["version"], e["change"]) for e in json.loads(text)["entries"]]

    # As `git diff -M` between the tags: system.md added in 1.0.0, changed in 1.1.0;
    # modes/plan.md renamed to modes/planning.md in 1.1.0, which 1.2.0 deletes;
    # modes/plan.md added again, another text, in 2.0.0.
    assert log("system") == [("1.0.0", "added"), ("1.1.0", "prose")]
    assert log("modes-planning") == [("1.0.0", "added"), ("1.1.0", "renamed"), ("1.2.0", "removed")]
    assert log("modes-plan") == [("2.0.0", "added")]
    # The id as of 1.0.0: the file renamed away in 1.1.0, not the text given its name later.
    assert log("modes-plan", "--as-of", "==1.0.0") == log("modes-planning")


def test_importing_again_writes_only_new_releases(history: History, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _import(history.path, out, tags=["v1.*"])
    assert [v.status for v in first.report.versions] == ["written"] * 3
    manifest = out / "agent" / "1.0.0" / "catalog.toml"
    before = manifest.stat().st_mtime_ns
    again = _import(history.path, out)
    assert [(v.version, v.status) for v in again.report.versions] == [
        ("1.0.0", "unchanged"),
        ("1.1.0", "unchanged"),
        ("1.2.0", "unchanged"),
        ("2.0.0", "written"),
    ]
    assert [v.new_bodies for v in again.report.versions] == [0, 0, 0, 1]
    assert manifest.stat().st_mtime_ns == before


def test_unchanged_bodies_are_stored_once(history: History, tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = _import(history.path, out)
    # Be brief. / Plan. / Be brief! / New plan.
    assert done.report.size.blobs == 4
    assert done.report.distinct_bodies == 4


def test_the_longest_root_names_a_part(tmp_path: Path) -> None:
    repo = History(tmp_path / "repo")
    repo.tag(
        "v1",
        repo.commit(
            {
                "src/prompt/anthropic.txt": "A",
                "src/tool/Bash Tool.txt": "B",
                "docs/readme.txt": "C",
            }
        ),
    )
    out = tmp_path / "out"
    _import(repo.save(), out, includes=["**/*.txt"], roots=["src", "src/prompt"])
    assert _parts(out, "1") == {"anthropic": "A", "tool-bash-tool": "B", "docs-readme": "C"}


def test_two_files_giving_one_id_are_an_error_naming_both(tmp_path: Path) -> None:
    repo = History(tmp_path / "repo")
    repo.tag("v1.0", repo.commit({"p/a.md": "x", "p/a.txt": "y"}))
    with pytest.raises(ImporterError) as caught:
        _import(repo.save(), tmp_path / "out", includes=["p/*"], roots=["p"])
    message = str(caught.value)
    assert "p/a.md and p/a.txt both give part id 'a'" in message
    assert "release v1.0" in message
    assert not (tmp_path / "out" / "agent" / "1.0").exists()


def test_a_file_that_is_not_utf8_is_an_error_naming_it(tmp_path: Path) -> None:
    repo = History(tmp_path / "repo")
    repo.tag("v1.0", repo.commit({"p/a.md": b"caf\xe9"}))
    with pytest.raises(ImporterError, match=r"v1\.0:p/a\.md.*not UTF-8"):
        _import(repo.save(), tmp_path / "out", includes=["p/*"], roots=["p"])


def test_no_matching_tag_says_what_was_found(history: History, tmp_path: Path) -> None:
    with pytest.raises(ImporterError, match="no release tags match release-"):
        _import(history.path, tmp_path / "out", tags=["release-*"])


def _thousand_tags(path: Path) -> Path:
    repo = History(path)
    parent = None
    for number in range(1000):
        # The prompts change every tenth release; the code beside them every release.
        files = {
            "prompts/a.md": f"A {number // 10}",
            "prompts/b.md": "B",
            "prompts/deep/c.md": f"C {number // 500}",
            "src/main.py": f"print({number})",
            "src/lib/util.py": f"X = {number}",
        }
        parent = repo.commit(files, parent)
        repo.tag(f"v1.0.{number}", parent)
    return repo.save()


def test_a_thousand_tags_read_each_changed_tree_and_blob_once(tmp_path: Path) -> None:
    # The reading alone: writing is the writer's (shared with every importer), and
    # scripts/bench_import.py times the whole import.
    with GitRepo(_thousand_tags(tmp_path / "repo")) as git:
        choice = choose_tags(git.tags(), ["v*"], pre=False)
        reader = ReleaseReader(git, ("prompts/**/*.md",), ("prompts",))
        releases = [reader.release(tag) for tag in choice.releases]
    assert len(releases) == 1000
    assert [f.id for f in releases[-1].files] == ["a", "b", "deep-c"]
    assert releases[-1].files[0].text == "A 99"
    # Blobs: a.md's 100 texts, b.md's one, c.md's two; nothing under src/ is read.
    assert reader.stats.blobs_read == 103
    # Trees: each release's top tree; prompts/ only when it changed (100 times),
    # prompts/deep/ only twice; src/ and its folders never.
    assert reader.stats.trees_read == 1000 + 100 + 2
    # Known from an earlier release: prompts/ 900 times; prompts/deep/ 98 of the
    # 100 times prompts/ was read.
    assert reader.stats.trees_reused == 900 + 98


def test_importing_a_clone_elsewhere_keeps_the_versions_there(
    history: History, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _import(history.path, out)
    moved = tmp_path / "elsewhere"
    history.path.rename(moved)
    again = _import(moved, out)
    # Only the first line (where the repository was) would differ: the parts are the same.
    assert {v.status for v in again.report.versions} == {"unchanged"}
    first_line = (out / "agent" / "1.0.0" / "catalog.toml").read_text().splitlines()[0]
    assert str(history.path) in first_line
