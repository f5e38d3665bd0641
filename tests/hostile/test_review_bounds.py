"""A pull request built to exhaust the review: more catalogs, contexts or models than a
review assembles. The work stays bounded and the review says what it left out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from catalog.io.loader import VersionDir, VersionManifest, read_manifest
from catalog.review import compare, overlays
from tests._support.overlay_repo import OverlayRepo, write_lib, write_overlay
from tests._support.piebald_data import git
from tests.conftest import run_cli as run
from tests.conftest import write_catalog


def _repo(
    tmp_path: Path,
    catalogs: int,
    review: dict[str, Any] | None = None,
    body: str = "You are agent {number}.",
    variables: tuple[dict[str, Any], ...] = (),
) -> tuple[Path, str]:
    """A repository whose second commit adds ``catalogs`` catalogs; (its folder, the first
    commit)."""
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("prompts\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    first = git(repo, "rev-parse", "HEAD").strip()
    for number in range(catalogs):
        write_catalog(
            repo / "prompts",
            f"c{number}",
            "1.0.0",
            [{"id": "intro", "body": body.replace("{number}", str(number)), "order": 10}],
            variables=variables,
            catalog={"tokenizer": "chars"},
            extra={"review": review} if review else None,
        )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second")
    return repo, first


def _review(capsys: pytest.CaptureFixture[str], repo: Path, first: str) -> tuple[int, Any]:
    code, out, _ = run(capsys, "review", first, "HEAD", "--repo", str(repo), "--format", "json")
    return code, json.loads(out)


def test_past_the_reviews_bound_versions_are_left_out_unloaded_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compare, "MAX_REVIEW_PROMPTS", 3)
    repo, first = _repo(tmp_path, 5)
    code, data = _review(capsys, repo, first)
    assert code == 2  # an incomplete review fails the check
    reviewed = [v["catalog"] for v in data["versions"] if not v["error"]]
    left_out = [v["catalog"] for v in data["versions"] if v["error"]]
    assert reviewed == ["c0", "c1", "c2"] and left_out == ["c3", "c4"]
    assert all("left out: the review assembles at most 3 prompts" in e for e in data["errors"])
    code, out, _ = run(capsys, "review", first, "HEAD", "--repo", str(repo), "--format", "markdown")
    assert "| `c4 1.0.0 (new)` | error |" in out and "left out" in out


def test_a_manifest_asking_for_too_many_prompts_or_models_is_refused_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contexts = [{"name": f"ctx{n}"} for n in range(compare.MAX_PROMPTS + 1)]
    models = [f"model-{n}" for n in range(compare.MAX_MODELS + 1)]
    repo, first = _repo(tmp_path, 1, {"context": contexts})
    code, data = _review(capsys, repo, first)
    assert code == 2
    assert data["errors"] == [
        f"c0 1.0.0 (new): the review contexts ask for {compare.MAX_PROMPTS + 1} prompts, more "
        f"than {compare.MAX_PROMPTS} (declare fewer [[review.context]] entries, or name their "
        "agents)"
    ]
    repo2, first2 = _repo(tmp_path / "two", 1, {"models": models})
    code, data = _review(capsys, repo2, first2)
    assert code == 2 and f"names {compare.MAX_MODELS + 1} models, more than" in data["errors"][0]


def test_after_versions_that_spend_their_evaluation_budget_the_rest_are_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compare, "MAX_OVER_BUDGET", 2)
    loops = "{% for x in xs %}{% for y in xs %}{% for z in xs %}{{ x }}{% endfor %}{% endfor %}"
    body = "Agent {number}. " + loops + "{% endfor %}"
    xs = {"name": "xs", "type": "list", "default": list(range(1000))}
    repo, first = _repo(tmp_path, 4, body=body, variables=(xs,))
    code, data = _review(capsys, repo, first)
    assert code == 2
    errors = [v["error"] for v in data["versions"]]
    assert all("more than 100000 loop iterations" in e for e in errors[:2]), errors
    assert all("left out: 2 versions already failed in evaluation" in e for e in errors[2:])


def test_a_long_chain_of_overlays_is_walked_once_without_recursion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1,200 overlays, each the base of the one before, down to app, an overlay of
    # lib 1.0.0; the change is to lib 2.0.0, which none of them takes. Deeper than
    # Python's recursion limit, and read once each: one manifest a version.
    made = OverlayRepo(tmp_path)
    write_lib(made.prompts)
    write_lib(made.prompts, "2.0.0")
    write_overlay(made.prompts, "app", "lib@==1.0.0", {"intro": "intro"})
    chain = 1_200
    for number in range(chain):
        below = f"c{number + 1}@1.0.0" if number + 1 < chain else "app@1.0.0"
        write_overlay(made.prompts, f"c{number}", below, {"intro": "intro"})
    first = made.commit()
    shutil.rmtree(made.prompts / "lib" / "2.0.0")
    write_lib(made.prompts, "2.0.0", rules="Rules: none.")
    second = made.commit()
    read: list[str] = []
    counted = read_manifest

    def counting(where: VersionDir) -> VersionManifest:
        read.append(f"{where.catalog_dir.name} {where.name}")
        return counted(where)

    monkeypatch.setattr(overlays, "read_manifest", counting)
    code, out = made.review(capsys, first, second, "--format", "json")
    assert code == 1
    assert [v["catalog"] for v in json.loads(out)["versions"]] == ["lib"]
    versions = ["app 1.0.0", "lib 1.0.0", *(f"c{number} 1.0.0" for number in range(chain))]
    assert sorted(read) == sorted(versions)
