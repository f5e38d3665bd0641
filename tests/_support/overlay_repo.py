"""A repository of overlays for the review's tests: ``lib``, a base catalog, and
overlays of it (or of each other) under ``prompts/``, committed step by step."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from tests._support.piebald_data import git
from tests.conftest import run_cli as run
from tests.conftest import sha, write_catalog

INTRO = "You are App, a careful agent."
SHELL = "Runs a shell command."
RULES = "Rules: be brief."
OWN = "Answer in English."


def write_lib(
    root: Path, version: str = "1.0.0", *, tool: str = "Bash", rules: str = RULES
) -> None:
    """The base catalog: an intro, rules and a shell tool."""
    write_catalog(
        root,
        "lib",
        version,
        [
            {"id": "intro", "body": INTRO},
            {"id": "rules", "body": rules},
            {"id": "shell", "kind": "tool", "name": tool, "body": SHELL},
        ],
        catalog={"tokenizer": "chars"},
    )


def write_overlay(root: Path, name: str, base: str, froms: dict[str, str]) -> None:
    """An overlay ``name 1.0.0`` of ``base``: a part of its own, then each part of
    ``froms`` (its id to the base part's id, whose body it records)."""
    folder = root / name / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "own.md").write_text(OWN, encoding="utf-8")
    bodies = {"intro": INTRO, "shell": SHELL, "tool": SHELL}
    parts: list[dict[str, Any]] = [
        {"id": "own", "file": "own.md", "order": 5, "sha256": sha(OWN), "tokens": 4}
    ]
    for order, (part, source) in enumerate(froms.items(), start=1):
        body = bodies[source]
        parts.append(
            {"id": part, "from": source, "order": 10 * order, "sha256": sha(body), "tokens": 5}
        )
    manifest = {
        "catalog": {"name": name, "version": "1.0.0", "tokenizer": "chars", "base": base},
        "part": parts,
    }
    (folder / "catalog.toml").write_text(tomli_w.dumps(manifest), encoding="utf-8")


class OverlayRepo:
    """A repository of catalogs under ``prompts/``, committed step by step."""

    def __init__(self, tmp: Path) -> None:
        self.top = tmp / "repo"
        self.prompts = self.top / "prompts"
        self.prompts.mkdir(parents=True)
        git(self.top, "init", "-q", "-b", "main")

    def commit(self) -> str:
        git(self.top, "add", "-A")
        git(self.top, "commit", "-q", "--allow-empty", "-m", "step")
        return git(self.top, "rev-parse", "HEAD").strip()

    def replace_lib(self, **lib: Any) -> str:
        """Commit ``lib 1.0.0`` written anew with ``lib`` (see :func:`write_lib`)."""
        shutil.rmtree(self.prompts / "lib")
        write_lib(self.prompts, **lib)
        return self.commit()

    def review(
        self, capsys: pytest.CaptureFixture[str], first: str, second: str, *more: str
    ) -> tuple[int, str]:
        code, out, _ = run(
            capsys, "review", first, second, "--repo", str(self.top), "--path", str(self.prompts),
            *more,
        )  # fmt: skip
        return code, out
