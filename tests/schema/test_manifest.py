"""The manifest's words for a name that is not one and an agent nobody declared."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import ManifestError
from catalog.schema.manifest import name_problem
from tests.conftest import write_catalog


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
