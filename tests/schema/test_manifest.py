"""The manifest's `[review]` table: review contexts and models, checked with their lines;
its words for a name that is not one and an agent nobody declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import ManifestError
from catalog.io.manifests import parse_manifest
from catalog.schema.manifest import name_problem
from tests.conftest import write_catalog

HEAD = """\
[catalog]
name = "x"
version = "1.0.0"

[[agent]]
name = "explore"

[[part]]
id = "a"
file = "a.md"
order = 1
tokens = 1
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
"""


def test_contexts_and_models_are_read() -> None:
    text = (
        HEAD
        + """
[review]
models = ["claude-sonnet-4-5"]

[[review.context]]
name = "bash"
agents = ["explore"]
context = { tools = ["Bash"] }
"""
    )
    review = parse_manifest(text, "catalog.toml").review
    assert review.models == ("claude-sonnet-4-5",)
    [context] = review.context
    assert (context.name, context.agents, context.context.tools) == (
        "bash",
        ("explore",),
        ("Bash",),
    )


@pytest.mark.parametrize(
    ("table", "line", "words"),
    [
        ('[[review.context]]\nname = "a"\nagents = ["nobody"]\n', 17, "unknown agent 'nobody'"),
        ('[[review.context]]\nname = "a"\n\n[[review.context]]\nname = "a"\n', 19,
         "duplicate review.context name 'a'"),
        ('[[review.context]]\nname = "a"\ncontext = { tool = ["Bash"] }\n', 17,
         "unknown key 'tool'"),
        ('[review]\nmodels = ["m", "m"]\n', 16, "duplicate review.models entry 'm'"),
        ('[review]\nmodel = ["m"]\n', 16, "unknown key 'model'"),
    ],
)  # fmt: skip
def test_mistakes_are_placed_at_their_line(table: str, line: int, words: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest(HEAD + "\n" + table, "catalog.toml")
    assert caught.value.line == line
    assert words in str(caught.value)


def test_a_manifest_without_the_table_dumps_as_before() -> None:
    manifest = parse_manifest(HEAD, "catalog.toml")
    assert "review" not in manifest.model_dump(by_alias=True)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("mybot", None),
        ("CC", "it has upper-case letters; 'cc' would do"),
        ("claude code", "it holds ' ', which a name may not; 'claude-code' would do"),
        (".hidden", "it starts with '.', not a letter or a digit; 'hidden' would do"),
        ("", "it is empty"),
        ("a" * 101, "it is 101 characters long, more than 100"),
    ],
)
def test_name_problem(name: str, problem: str | None) -> None:
    assert name_problem(name) == problem


def test_an_unknown_agent_gets_a_did_you_mean(tmp_path: Path) -> None:
    folder = write_catalog(
        tmp_path,
        parts=[{"id": "intro", "body": "Hi.", "agents": ["researchr"]}],
        agents=[{"name": "researcher"}, {"name": "writer"}],
    )
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    assert caught.value.message == (
        "unknown agent 'researchr' (declared: main, researcher, writer); did you mean 'researcher'?"
    )
    assert caught.value.key == "part[0].agents"
