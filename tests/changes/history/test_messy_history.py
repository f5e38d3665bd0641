"""Whole git histories in the upstream format import, and diff like a changelog.

The histories come from :mod:`tests._support.messy_history`: a synthetic one with
every kind of header mess, rewrites, reformatted placeholders, removals and
renames, and one made of the real fixture releases.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import catalog
from catalog.importers.piebald import import_releases, read_history
from catalog.io.validate import check_catalog
from tests._support.messy_history import build_messy_history, history_from_folders


@pytest.fixture(autouse=True)
def _quiet_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)


def test_a_synthetic_history_with_every_mess_imports(tmp_path: Path) -> None:
    repo = tmp_path / "upstream"
    total = build_messy_history(repo, releases=24, max_parts=140, seed=3)
    report = import_releases(read_history(repo), name="syn", out=tmp_path / "out")
    assert len(report.versions) == 24
    assert sum(v.parts for v in report.versions) == total
    newest = catalog.load("syn", paths=[tmp_path / "out"])
    assert str(newest.version) == "2.0.23" and len(newest.parts) == 140
    assert check_catalog(newest) == []
    # Every header style reads as meant: "- *" is every tool, quotes are unquoted.
    metas = [p.decl.meta for p in newest.parts]
    assert any(m.get("agentMetadata", {}).get("tools") == ["*"] for m in metas)
    assert any(str(m.get("name", "")).endswith("'s part") for m in metas)
    assert all(not str(m.get("name", "")).startswith(("'", '"')) for m in metas)


def test_synthetic_releases_diff_into_classes_and_renames(tmp_path: Path) -> None:
    repo = tmp_path / "upstream"
    build_messy_history(repo, releases=24, max_parts=140, seed=3)
    import_releases(read_history(repo), name="syn", out=tmp_path / "out")
    found = {"renamed": 0, "placeholders": 0, "whitespace": 0, "metadata": 0, "prose": 0}
    for index in range(1, 24):
        old = catalog.load("syn", f"==2.0.{index - 1}", paths=[tmp_path / "out"])
        new = catalog.load("syn", f"==2.0.{index}", paths=[tmp_path / "out"])
        result = catalog.diff(old, new)
        for part in result.changes:
            if part.status == "renamed":
                found["renamed"] += 1
                assert part.old_id is not None and "renamed-" in part.id
            elif part.change in found:
                found[str(part.change)] += 1
    # Releases 5 and 16 rename a part; the others reformat, rewrite and re-head some.
    assert found["renamed"] == 2
    assert all(count > 0 for count in found.values()), found


def test_a_git_history_of_the_fixture_releases(claude_code_releases: Path, tmp_path: Path) -> None:
    upstream = claude_code_releases
    repo = tmp_path / "upstream"
    versions = history_from_folders(repo, upstream.iterdir())
    assert versions[0] == "2.0.14" and versions[-1] == "2.1.240" and len(versions) == 9
    printed: list[str] = []
    report = import_releases(
        read_history(repo), name="claude-code", out=tmp_path / "out",
        on_version=lambda item: printed.append(item.version),
    )  # fmt: skip
    assert printed == versions
    assert [v.version for v in report.versions] == versions
    newest = catalog.load("claude-code", "==2.1.240", paths=[tmp_path / "out"])
    files = list((upstream / "2.1.240" / "system-prompts").glob("*.md"))
    assert len(newest.parts) == len(files)
    # Bodies shared by several releases are stored once.
    assert report.size.blob_bytes < report.unshared_bytes
