"""``variants``: which part of each group each model gets, release by release, and where
one variant changed while its siblings did not (drift); on hand-written releases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.changes.variants import Drift, GroupRow, variants
from catalog.io.catalog_path import CatalogPath
from tests._support.variant_releases import GPT, MODELS, RELEASES, member
from tests.conftest import run_cli, write_catalog


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for version, parts in RELEASES.items():
        write_catalog(tmp_path / "catalogs", "agent", version, parts)
    return tmp_path / "catalogs"


def test_each_model_gets_its_variant_and_drift_is_found(root: Path) -> None:
    catalog_path = CatalogPath([root], use_env=False, use_entry_points=False)
    found = variants([ref.load() for ref in catalog_path.select("agent")], MODELS)
    assert found.versions == ("1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0")
    assert found.rows == (
        GroupRow("1.0.0", "provider", ("gpt", "anthropic", "default")),
        GroupRow("1.1.0", "provider", ("gpt", "anthropic", "default")),
        GroupRow("1.2.0", "provider", ("gpt", "anthropic", "default")),
        GroupRow("1.3.0", "provider", ("gpt", "anthropic", "gemini")),
        GroupRow("1.4.0", "provider", ("gpt", "anthropic", "gemini")),
    )
    assert found.drift == (
        Drift("1.1.0", "1.0.0", "provider", (("gpt", "prose"),), ("anthropic", "default")),
        Drift("1.2.0", "1.1.0", "provider", (("anthropic", "condition"),), ("gpt", "default")),
        Drift(
            "1.3.0",
            "1.2.0",
            "provider",
            (("gpt", "prose"), ("anthropic", "prose")),
            ("default",),  # gemini is new in 1.3.0: neither changed nor unchanged
        ),
    )  # 1.4.0: every variant changed, so none drifted


def test_the_command_prints_a_table_and_the_drift(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["variants", "agent@>=1.1,<1.4", "--by", "model", "--path", str(root)]
    code, out, err = run_cli(capsys, *argv, *(x for m in MODELS for x in ("--model", m)))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "agent: the part of each group each model gets (agent main), 3 versions",
        "version  group     gpt-5  claude-opus-4  gemini-2.5-pro",
        "1.1.0    provider  gpt    anthropic      default",
        "1.2.0    provider  gpt    anthropic      default",
        "1.3.0    provider  gpt    anthropic      gemini",
        "drift: parts of a group that changed while the others did not",
        "1.2.0  provider  anthropic (condition) changed since 1.1.0; not gpt, default",
        "1.3.0  provider  gpt (prose), anthropic (prose) changed since 1.2.0; not default",
    ]


def test_json_and_a_model_no_variant_takes(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    context = tmp_path / "ctx.toml"
    context.write_text('tools = ["Bash"]\n', encoding="utf-8")
    argv = ["variants", "agent@1.0.0", "--model", "o3", "--context", str(context)]
    code, out, _ = run_cli(capsys, *argv, "--format", "json", "--path", str(root))
    assert code == 0
    assert json.loads(out) == {
        "catalog": "agent",
        "agent": "main",
        "by": "model",
        "values": ["o3"],
        "versions": ["1.0.0"],
        "rows": [{"version": "1.0.0", "group": "provider", "taken": {"o3": "default"}}],
        "drift": [],
    }


def test_a_group_without_a_fallback_may_give_a_model_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_catalog(tmp_path / "c", "solo", "1.0.0", [member("gpt", 10, "GPT.", GPT)])
    argv = ["variants", "solo", "--model", "gpt-5", "--model", "o3", "--path", str(tmp_path / "c")]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0
    assert out.splitlines()[1:] == ["version  group     gpt-5  o3", "1.0.0    provider  gpt    -"]


def test_no_version_in_the_range_is_a_clear_error(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "variants", "agent@>=9", "--model", "x", "--path", str(root))
    assert code != 0
    assert "no version of 'agent' satisfies '>=9'" in err
    assert "Traceback" not in err
