"""What ``catalog mcp`` offers, apart from the protocol: prompt names, arguments, releases."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.errors import CatalogError, ContextError, NotFoundError, UsageError
from catalog.mcp.library import PromptLibrary
from tests.conftest import run_cli, write_catalog


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "catalogs"
    agents = [{"name": "x.y", "description": "a sub-agent whose name holds a dot"}]
    write_catalog(
        root,
        "acme.bot",
        "1.0.0",
        [
            {"id": "main", "body": "Main."},
            {"id": "sub", "body": "Sub {{ 'on' if verbose else 'off' }}.", "agents": ["x.y"]},
        ],
        agents=agents,
        variables=[{"name": "verbose", "type": "bool", "description": "say more"}],
    )
    write_catalog(root, "acme", "1.0.0", [{"id": "main", "body": "Other."}])
    return root


def test_a_prompt_name_is_the_longest_catalog_name_it_starts_with(root: Path) -> None:
    library = PromptLibrary([root], store_url="sqlite://")
    names = [entry.name for entry in library.entries() if entry.catalog.startswith("acme")]
    assert names == ["acme", "acme.bot", "acme.bot.x.y"]
    assert library.get("acme.bot").prompt.text == "Main."
    assert library.get("acme.bot.x.y", {"verbose": "true"}).prompt.text == "Sub on."
    assert library.get("acme.bot.x.y", {"verbose": " "}).prompt.text == "Sub off."  # empty
    with pytest.raises(NotFoundError, match=r"catalog acme\.bot 1\.0\.0 has no agent 'z'"):
        library.get("acme.bot.z")


def test_the_arguments_name_the_version_tools_model_and_each_variable(root: Path) -> None:
    [entry] = [e for e in PromptLibrary([root]).entries() if e.name == "acme.bot.x.y"]
    assert [a.name for a in entry.arguments] == [
        "version-spec",
        "enabled-tools",
        "model-name",
        "verbose",
    ]
    assert entry.arguments[3].description == "say more (bool; default False)"
    assert entry.description == "a sub-agent whose name holds a dot (acme.bot 1.0.0, sub-agent x.y)"


def test_a_release_of_another_catalog_is_refused(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    code, _, err = run_cli(
        capsys, "release", "set", "production", "acme@1.0.0", "--store", store, "--path", str(root)
    )
    assert code == 0, err
    library = PromptLibrary([root], store_url=store)
    try:
        assert library.get("acme", {"version-spec": "production"}).release == "production"
        with pytest.raises(
            UsageError, match=r"release production is of catalog acme, not acme\.bot"
        ):
            library.get("acme.bot", {"version-spec": "production"})
        with pytest.raises(ContextError, match=r"no such variable of acme 1\.0\.0"):
            library.get("acme", {"verbose": "true"})
    finally:
        library.close()


def test_the_model_argument_is_the_contexts_model(tmp_path: Path) -> None:
    parts = [
        {"id": "gpt", "group": "p", "when": 'startswith(model, "gpt")', "body": "GPT {{ model }}."},
        {"id": "any", "group": "p", "body": "Any {{ env.model }}."},
    ]
    write_catalog(tmp_path / "c", "per-model", "1.0.0", parts)
    library = PromptLibrary([tmp_path / "c"], store_url="sqlite://")
    assert library.get("per-model", {"model-name": "gpt-5"}).prompt.text == "GPT gpt-5."
    assert library.get("per-model", {"model-name": "o3"}).prompt.text == "Any o3."


def test_a_catalog_that_does_not_load_is_left_out_with_a_warning(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = root / "broken" / "1.0.0"
    broken.mkdir(parents=True)
    (broken / "catalog.toml").write_text("[catalog\n", encoding="utf-8")
    library = PromptLibrary([root])
    with caplog.at_level("WARNING", logger="catalog.mcp"):
        names = {entry.catalog for entry in library.entries()}
    assert "acme" in names
    assert "broken" not in names
    assert "catalog broken is left out" in caplog.text
    with pytest.raises(CatalogError):
        library.get("broken")
