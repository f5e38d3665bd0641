"""`catalog review` follows overlays: a change to a base catalog alone shows the overlay
prompts it changes, down a chain of bases, and nothing for an overlay it does not reach."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from catalog.engine.catalog import Catalog
from tests._support.overlay_repo import SHELL, OverlayRepo, write_lib, write_overlay
from tests.conftest import write_catalog


@pytest.fixture
def repo(tmp_path: Path) -> OverlayRepo:
    """``lib 1.0.0`` and ``app 1.0.0``, an overlay taking ``lib``'s intro and tool."""
    made = OverlayRepo(tmp_path)
    write_lib(made.prompts)
    write_overlay(made.prompts, "app", "lib@>=1", {"intro": "intro", "tool": "shell"})
    return made


@pytest.fixture
def assembled(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The ``NAME VERSION`` of every catalog assembled, in order."""
    seen: list[str] = []
    original = Catalog.assemble

    def counting(self: Catalog, *args: Any, **kwargs: Any) -> Any:
        seen.append(f"{self.name} {self.version}")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "assemble", counting)
    yield seen


def _versions(out: str) -> dict[str, dict[str, Any]]:
    return {v["catalog"]: v for v in json.loads(out)["versions"]}


def test_a_change_to_the_base_alone_shows_the_overlays_changed_prompt(
    repo: OverlayRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    first = repo.commit()
    second = repo.replace_lib(tool="Shell")  # the tool's name, which the overlay takes, changes
    code, out = repo.review(capsys, first, second, "--format", "json")
    assert code == 1
    found = _versions(out)
    assert set(found) == {"lib", "app"}
    app = found["app"]
    assert (app["status"], app["catalog_status"], app["error"]) == ("changed", "unchanged", None)
    assert app["through"] == {"base": "lib 1.0.0", "changed": "lib 1.0.0", "depth": 1}
    [prompt] = app["prompts"]
    assert prompt["status"] == "changed"
    assert "-[tool Bash]" in prompt["tools_diff"].split("\n")
    assert "+[tool Shell]" in prompt["tools_diff"].split("\n")
    assert prompt["system_diff"] == ""

    code, text = repo.review(capsys, first, second)
    assert "app 1.0.0 in " in text
    assert ": changed through its base lib 1.0.0\n" in text
    code, markdown = repo.review(capsys, first, second, "--format", "markdown")
    assert "| `app 1.0.0` | changed through its base lib 1.0.0 |" in markdown
    assert "- changed through its base lib 1.0.0\n" in markdown


def test_a_base_change_the_overlay_does_not_take_lists_nothing_for_it(
    repo: OverlayRepo, capsys: pytest.CaptureFixture[str], assembled: list[str]
) -> None:
    first = repo.commit()
    second = repo.replace_lib(rules="Rules: be brief and kind.")  # a part app does not take
    code, out = repo.review(capsys, first, second, "--format", "json")
    assert code == 1
    assert set(_versions(out)) == {"lib"}
    assert "app 1.0.0" in assembled  # compared, and found the same


def test_a_chain_of_bases_is_followed_to_the_one_that_changed(
    repo: OverlayRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    write_overlay(repo.prompts, "top", "app@==1.0.0", {"tool": "tool"})
    write_overlay(repo.prompts, "apex", "top@==1.0.0", {"tool": "tool"})
    first = repo.commit()
    second = repo.replace_lib(tool="Shell")
    code, out = repo.review(capsys, first, second, "--format", "json")
    assert code == 1
    found = _versions(out)
    assert set(found) == {"lib", "app", "top", "apex"}
    top = found["top"]
    assert top["through"] == {"base": "app 1.0.0", "changed": "lib 1.0.0", "depth": 2}
    assert "+[tool Shell]" in top["prompts"][0]["tools_diff"].split("\n")
    assert found["apex"]["through"] == {"base": "top 1.0.0", "changed": "lib 1.0.0", "depth": 3}
    code, text = repo.review(capsys, first, second)
    assert "top 1.0.0 in " in text
    assert ": changed through its base app 1.0.0, whose base lib 1.0.0 changed\n" in text
    assert ": changed through its base top 1.0.0, down to lib 1.0.0 (3 bases down)\n" in text


def test_an_unchanged_base_leaves_the_overlay_unassembled(
    repo: OverlayRepo, capsys: pytest.CaptureFixture[str], assembled: list[str]
) -> None:
    write_lib(repo.prompts, "2.0.0")
    write_overlay(repo.prompts, "pinned", "lib@==1.0.0", {"intro": "intro"})
    first = repo.commit()
    shutil.rmtree(repo.prompts / "lib" / "2.0.0")
    write_lib(repo.prompts, "2.0.0", rules="Rules: none.")
    second = repo.commit()
    code, out = repo.review(capsys, first, second, "--format", "json")
    assert code == 1
    assert set(_versions(out)) == {"lib"}
    assert "app 1.0.0" in assembled  # app takes lib@>=1, 2.0.0: compared, the same
    assert "pinned 1.0.0" not in assembled
    assert not any(seen.startswith("lib 1.0.0") for seen in assembled)


def _add_lib_1_1(prompts: Path) -> None:
    """A new version of ``lib`` that ``app``'s ``lib@>=1`` now takes, its intro reworded."""
    write_catalog(
        prompts,
        "lib",
        "1.1.0",
        [
            {"id": "intro", "body": "You are App, a hasty agent."},
            {"id": "shell", "kind": "tool", "name": "Bash", "body": SHELL},
        ],
        catalog={"tokenizer": "chars"},
    )


def _remove_lib(prompts: Path) -> None:
    shutil.rmtree(prompts / "lib")


@pytest.mark.parametrize(
    ("change", "label", "error"),
    [
        # app's recorded sha256 no longer matches the base text it now takes
        (_add_lib_1_1, "lib 1.0.0 -> 1.1.0", "base part 'intro' of lib 1.1.0"),
        (_remove_lib, "lib 1.0.0 -> none", "no catalog named 'lib'"),
    ],
)
def test_a_base_resolving_to_another_version_or_none_is_followed(
    repo: OverlayRepo,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[Path], None],
    label: str,
    error: str,
) -> None:
    first = repo.commit()
    change(repo.prompts)
    second = repo.commit()
    code, out = repo.review(capsys, first, second, "--format", "json")
    assert code == 2
    app = _versions(out)["app"]
    assert app["through"] == {"base": label, "changed": label, "depth": 1}
    assert error in app["error"]


def test_a_cycle_of_bases_ends_with_an_error_not_a_hang(
    repo: OverlayRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    write_overlay(repo.prompts, "ping", "pong@1.0.0", {"intro": "intro"})
    write_overlay(repo.prompts, "pong", "ping@1.0.0", {"intro": "intro"})
    write_overlay(repo.prompts, "hangs", "ping@1.0.0", {"intro": "intro"})
    first = repo.commit()
    (repo.prompts / "pong" / "1.0.0" / "notes.txt").write_text("A note.", encoding="utf-8")
    second = repo.commit()
    code, out = repo.review(capsys, first, second, "--format", "json")
    assert code == 2
    found = _versions(out)
    assert set(found) == {"pong", "ping", "hangs"}
    assert "leads back to itself" in found["ping"]["error"]
    assert found["ping"]["through"]["changed"] == "pong 1.0.0"
    through = {"base": "ping 1.0.0", "changed": "pong 1.0.0", "depth": 2}
    assert found["hangs"]["through"] == through


def test_a_cycle_of_unchanged_bases_is_passed_over(
    repo: OverlayRepo, capsys: pytest.CaptureFixture[str], assembled: list[str]
) -> None:
    write_overlay(repo.prompts, "ping", "pong@1.0.0", {"intro": "intro"})
    write_overlay(repo.prompts, "pong", "ping@1.0.0", {"intro": "intro"})
    first = repo.commit()
    second = repo.replace_lib(rules="Rules: other.")
    code, out = repo.review(capsys, first, second, "--format", "json")
    assert code == 1
    assert set(_versions(out)) == {"lib"}
    assert not any(seen.startswith(("ping", "pong")) for seen in assembled)
