"""The manifest's `[review]` table: review contexts and models, checked with their lines."""

from __future__ import annotations

import pytest

from catalog.errors import ManifestError
from catalog.io.manifests import parse_manifest

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
