"""Prompts inside data files: one part per entry of a text field, named by its key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import ImporterError
from catalog.importers.git import import_git, load_rules
from catalog.importers.git.data import MAX_ENTRIES, data_entries
from catalog.importers.git.rules import DataDecl
from tests._support.git_history import History
from tests.conftest import dedent

MODELS = {
    "models": [
        {"slug": "gpt-5", "base_instructions": "You are GPT-5.", "priority": 1},
        {"slug": "gpt-5.1-codex", "base_instructions": "You are Codex."},
        {"slug": "o3", "base_instructions": None},
        {"slug": "mini"},
    ]
}


def _entries(text: str, fmt: str, **decl: str) -> list[tuple[str, str]]:
    found = data_entries(text, "models", DataDecl(**decl), fmt)  # type: ignore[arg-type]
    return [(entry.name, entry.text) for entry in found]


def test_a_field_of_every_list_entry_named_by_another_field() -> None:
    text = json.dumps(MODELS)
    assert _entries(text, "json", file="m.json", path="models.*.base_instructions", key="slug") == [
        ("gpt-5", "You are GPT-5."),
        ("gpt-5.1-codex", "You are Codex."),
    ]
    # Without `key`, entries of a list are named by their index.
    assert _entries(text, "json", file="m.json", path="models.*.base_instructions") == [
        ("0", "You are GPT-5."),
        ("1", "You are Codex."),
    ]


def test_tables_are_named_by_their_keys_in_toml_and_yaml() -> None:
    toml = '[modes.plan]\ntext = "Plan first."\n[modes.build]\ntext = "Build."\n'
    assert _entries(toml, "toml", file="m.toml", path="modes.*.text") == [
        ("plan", "Plan first."),
        ("build", "Build."),
    ]
    yaml = "modes:\n  plan:\n    text: Plan first.\n  review:\n    text: |\n      Review.\n"
    assert _entries(yaml, "yaml", file="m.yaml", path="modes.*.text") == [
        ("plan", "Plan first."),
        ("review", "Review.\n"),
    ]
    # No '*': the one field, named by the path's last key.
    assert _entries(toml, "toml", file="m.toml", path="modes.plan.text") == [
        ("text", "Plan first.")
    ]


def test_an_entry_without_its_naming_field_is_an_error() -> None:
    text = json.dumps({"models": [{"base_instructions": "x"}]})
    with pytest.raises(ImporterError, match=r"entry '0' .* has no field 'slug'"):
        _entries(text, "json", file="m.json", path="models.*.base_instructions", key="slug")


def test_yaml_aliases_are_refused() -> None:
    laughs = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    with pytest.raises(ImporterError, match="anchors and aliases"):
        _entries(laughs, "yaml", file="m.yaml", path="c.*")


def test_a_path_visiting_too_many_entries_is_refused() -> None:
    text = json.dumps({"rows": [[str(i)] * 20 for i in range(MAX_ENTRIES // 10)]})
    with pytest.raises(ImporterError, match=f"more than {MAX_ENTRIES} entries"):
        _entries(text, "json", file="m.json", path="rows.*.*")


def test_invalid_data_is_an_error_naming_the_file_and_line() -> None:
    with pytest.raises(ImporterError) as caught:
        _entries('{\n "models": [\n}', "json", file="m.json", path="models.*")
    assert (caught.value.file, caught.value.line) == ("models", 3)


def test_data_entries_become_parts_with_conditions_from_rules(tmp_path: Path) -> None:
    history = History(tmp_path / "repo")
    one = dict(MODELS, models=MODELS["models"][:1])
    history.tag("v1.0", history.commit({"core/models.json": json.dumps(one)}))
    history.tag("v1.1", history.commit({"core/models.json": json.dumps(MODELS)}))
    repo = history.save()
    rules = tmp_path / "rules.toml"
    rules.write_text(
        dedent(
            """
            [[variable]]
            name = "model_id"
            type = "str"

            [[data]]
            file = "core/models.json"
            path = "models.*.base_instructions"
            key = "slug"
            prefix = "model-"

            [[rule]]
            parts = "model-gpt-5*"
            when = 'startswith(model_id, "gpt-5")'

            [[data]]
            file = "core/models.json"
            path = "models.*.instructions"
            """
        )
    )
    out = tmp_path / "out"
    done = import_git(
        repo, name="codex", out=out, tags=["v*"], includes=[], rules=load_rules(rules)
    )
    assert [v.parts for v in done.report.versions] == [1, 2]
    assert done.idle_rules == (
        f"{rules}:15: data 2: file 'core/models.json', path 'models.*.instructions' finds no text",
    )
    catalog = load_dir(out / "codex" / "1.1")
    parts = {p.id: (p.body, p.decl.meta["source"]) for p in catalog.parts}
    assert {p.decl.when for p in catalog.parts} == {'startswith(model_id, "gpt-5")'}
    assert parts == {
        "model-gpt-5": ("You are GPT-5.", {"path": "core/models.json", "entry": "gpt-5"}),
        "model-gpt-5.1-codex": (
            "You are Codex.",
            {"path": "core/models.json", "entry": "gpt-5.1-codex"},
        ),
    }
    # The file is read once per blob: its unchanged entry shares one body.
    assert done.report.distinct_bodies == 2
