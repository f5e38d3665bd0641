"""``catalog mcp`` without the ``mcp`` extra: it says which extra to install and exits 2,
and every other command works."""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any

import pytest

from catalog.cli import build_parser
from tests.conftest import run_cli

_HIDDEN = ("mcp", "mcp_types")


class _Hide(importlib.abc.MetaPathFinder):
    """Refuses the ``mcp`` SDK's modules, as if the extra were not installed."""

    def find_spec(self, name: str, *args: Any) -> None:
        if name.partition(".")[0] in _HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


@pytest.fixture
def without_mcp(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(sys.modules):
        if name.partition(".")[0] in _HIDDEN or name.startswith("catalog.mcp"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_Hide(), *sys.meta_path])


@pytest.mark.usefixtures("without_mcp")
def test_without_the_extra_catalog_mcp_says_which_to_install(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(capsys, "mcp")
    assert code == 2
    assert out == ""
    assert "catalog: error: catalog mcp needs the mcp extra (mcp" in err
    assert "pip install 'agent-prompt-catalog[mcp]'" in err
    assert "Traceback" not in err


@pytest.mark.usefixtures("without_mcp")
def test_without_the_extra_every_other_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert "mcp" in build_parser().get_default("commands")  # every command's parser builds
    code, out, _ = run_cli(capsys, "assemble", "pi")
    assert code == 0
    assert out.strip()
    assert not [name for name in sys.modules if name.partition(".")[0] in _HIDDEN]


def test_over_http_off_loopback_a_token_is_required(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mcp")
    monkeypatch.delenv("CATALOG_SERVE_TOKEN", raising=False)
    code, _, err = run_cli(capsys, "mcp", "--http", "--host", "0.0.0.0")
    assert code == 2
    assert "binding to 0.0.0.0 exposes the server to other machines" in err
    code, _, err = run_cli(capsys, "mcp", "--http", "--token", "a" * 40)
    assert code == 2
    assert "--token is no longer accepted" in err
    monkeypatch.setenv("CATALOG_SERVE_TOKEN", "short-token")
    code, _, err = run_cli(capsys, "mcp", "--http")
    assert code == 2
    assert "$CATALOG_SERVE_TOKEN: the token is too short to be safe" in err
