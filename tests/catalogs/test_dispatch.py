"""The bundled dispatch catalog: each documented behaviour, on real temporary folders."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import catalog
import catalog.cli
from catalog import Catalog, Sessions, SourceWarning
from tests._support.gathering import gather_in, git, write

PERSONA = "You are Dispatch, a careful software engineering assistant."


@pytest.fixture(scope="module")
def dispatch() -> Catalog:
    return catalog.load("dispatch", "==1.0.0")


def render(dispatch: Catalog, cwd: Path, **kwargs: Any) -> str:
    kwargs.setdefault("root", cwd)
    return dispatch.assemble(gather_in(dispatch, cwd, **kwargs)).text


def test_default_template_without_agents_md(dispatch: Catalog, tmp_path: Path) -> None:
    text = render(dispatch, tmp_path)
    assert text.startswith(PERSONA)
    assert text.endswith(f"what is left.\n\nWorking directory: {tmp_path.resolve()}")
    assert "AGENTS.md" not in text


def test_default_template_with_agents_md(dispatch: Catalog, tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "Run make test.\n")
    text = render(dispatch, tmp_path)
    assert text.endswith(
        "what is left.\n\nInstructions for this project (AGENTS.md):\n\n"
        f"Run make test.\n\nWorking directory: {tmp_path.resolve()}"
    )


def test_every_fixed_variable_and_the_file_type(dispatch: Catalog, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "notes" / "todo.md", "ship it")
    git(repo, "init", "-q")
    write(
        repo / ".dispatch" / "SYSTEM.md",
        "[system:date] [system:time] [system:os] [system:hostname]\n"
        "[prompt:cwd] [prompt:model] [prompt:conversation_id]\n"
        "[git:branch]\n[git:status]\n[file:notes/todo.md]",
    )
    ctx = gather_in(
        dispatch,
        repo,
        root=repo,
        git=True,
        model="m-1",
        environ={"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": os.devnull},
        base={"env": {"hostname": "box", "os": "Linux"}, "session": {"id": "c-9"}},
    )
    assert dispatch.assemble(ctx).text == (
        f"2025-01-31 14:05 Linux box\n{repo.resolve()} m-1 c-9\ntrunk\n"
        "?? .dispatch/\n?? notes/\nship it"
    )


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("[if git:branch]on [git:branch][else]no repo[endif]", "no repo"),
        ("[if !git:branch]outside git[endif]", "outside git"),
        (
            "[if file:a.md][if !file:b.md]a without b[else]both[endif][else]no a[endif]",
            "a without b",
        ),
        (
            "keep [endif] and [else] and [if file:a.md]",
            "keep [endif] and [else] and [if file:a.md]",
        ),
        ("x[weather:today]y[system:nonsense]z[file:missing.md]", "xyz"),
        ("[file:a.md]", "A [system:date] [if x:y]"),
    ],
)
def test_user_template_syntax(
    dispatch: Catalog, tmp_path: Path, template: str, expected: str
) -> None:
    write(tmp_path / "a.md", "A [system:date] [if x:y]")
    write(tmp_path / ".dispatch" / "SYSTEM.md", template)
    assert render(dispatch, tmp_path) == expected


def test_the_home_template_is_used_when_the_project_has_none(
    dispatch: Catalog, tmp_path: Path
) -> None:
    write(tmp_path / "home" / ".dispatch" / "SYSTEM.md", "home template in [prompt:cwd]")
    (tmp_path / "work").mkdir()
    text = render(dispatch, tmp_path / "work", home=tmp_path / "home")
    assert text == f"home template in {(tmp_path / 'work').resolve()}"


def test_a_file_outside_the_project_is_refused(dispatch: Catalog, tmp_path: Path) -> None:
    write(tmp_path / "secret.txt", "secret")
    write(tmp_path / "work" / ".dispatch" / "SYSTEM.md", "[[file:../secret.txt]]")
    with pytest.warns(SourceWarning, match="refused"):
        assert render(dispatch, tmp_path / "work") == "[]"


def test_the_variables_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert catalog.cli.main(["variables", "dispatch", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [b["name"] for b in data["bindings"]] == [
        "system:time",
        "system:date",
        "system:os",
        "system:hostname",
        "prompt:cwd",
        "prompt:model",
        "prompt:conversation_id",
        "git:branch",
        "git:status",
        "file:",
    ]
    assert [b["name"] for b in data["bindings"] if b["dynamic"]] == ["file:"]
    assert data["variables"][0]["name"] == "template"


def test_resolved_once_per_conversation_and_rebuilt_on_compaction(
    dispatch: Catalog, tmp_path: Path
) -> None:
    template = write(tmp_path / ".dispatch" / "SYSTEM.md", "v1 for [prompt:conversation_id]")
    with Sessions(dispatch, tmp_path / "prompts.sqlite") as sessions:
        first = sessions.construct("c1", gather_in(dispatch, tmp_path))
        assert first.text == "v1 for c1"
        template.write_text("v2 for [prompt:conversation_id]")
        assert sessions.construct("c1", gather_in(dispatch, tmp_path)).text == "v1 for c1"
        assert sessions.get("c1") == first
        assert sessions.construct("c2", gather_in(dispatch, tmp_path)).text == "v2 for c2"
        sent = sessions.rebuild(
            "c1", gather_in(dispatch, tmp_path), append="Summarise the conversation so far."
        )
        stored = sessions.get("c1")
    assert sent == "v2 for c1\n\nSummarise the conversation so far."
    assert stored is not None and stored.text == "v2 for c1" and stored.revision == 1
