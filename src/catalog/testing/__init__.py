"""The pytest plugin of agent-prompt-catalog: snapshot-test assembled prompts.

Installed packages register it through the ``pytest11`` entry point, so a
project that depends on agent-prompt-catalog gets the ``prompt_snapshot`` fixture
without any configuration::

    def test_prompt(prompt_snapshot):
        prompt = catalog.load("coding-agent", "==1.1.0").assemble({"tools": ["Bash"]})
        assert prompt.text == prompt_snapshot

``pytest --snapshot-update`` writes ``__snapshots__/<test file>/<test>.md``
beside the test; later runs fail with a line diff when the prompt changes.

The fixture needs syrupy (``pip install 'agent-prompt-catalog[pytest]'``). The
plugin itself imports only pytest, so it loads in any test run, and a test
that asks for the fixture without syrupy installed errors with that advice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

__all__ = ["prompt_snapshot"]

_NEEDS_SYRUPY = (
    "the prompt_snapshot fixture needs syrupy and its pytest plugin: "
    "pip install 'agent-prompt-catalog[pytest]' (and do not disable syrupy with -p no:syrupy)"
)


@pytest.fixture
def prompt_snapshot(request: pytest.FixtureRequest) -> SnapshotAssertion:
    """syrupy's ``snapshot``, storing each snapshot as one readable ``.md`` file."""
    snapshot: SnapshotAssertion | None
    try:
        snapshot = request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        snapshot = None
    if snapshot is None:  # failing outside the except block keeps pytest's lookup error out
        pytest.fail(_NEEDS_SYRUPY, pytrace=False)
    from catalog.testing.snapshots import PromptSnapshotExtension

    return snapshot.use_extension(PromptSnapshotExtension)
