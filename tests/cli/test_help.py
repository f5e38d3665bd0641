"""``catalog help TOPIC`` prints a page whose links to files of the package point where
this copy of the package has them (the coding-agent changelog, from ``catalogs``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import catalog
from catalog.cli._help import docs_folder, topics
from tests.conftest import run_cli

_PACKAGE = Path(catalog.__file__).resolve().parent


def test_the_changelog_link_of_the_catalogs_page_leads_to_the_changelog(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(capsys, "help", "catalogs")
    assert code == 0
    changelog = _PACKAGE / "parts" / "coding-agent" / "CHANGELOG.md"
    assert f"]({changelog})" in out
    assert changelog.is_file()


def test_no_page_printed_links_outside_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    folder = docs_folder()
    assert folder is not None
    for topic in topics(folder):
        _, out, _ = run_cli(capsys, "help", topic)
        assert "](../src/" not in out, topic
        for target in re.findall(r"\]\((/[^)#\s]+)", out):
            assert Path(target).exists(), (topic, target)
