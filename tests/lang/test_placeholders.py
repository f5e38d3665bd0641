"""Placeholders written ``{{ NAME }}`` and ``{NAME}`` in raw bodies, as other sources write
them: found, filled from ``[placeholders]`` (also through an overlay) and listed when
left unbound."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import tomli_w

from catalog import CatalogPath, load_dir
from catalog.lang.placeholders import bind_placeholders, unbound_names, written_as
from tests.conftest import run_cli, sha

CODEX = "You are {{ model_name }}.\n{{personality}} {{ not a name }} {{{{ x }}}} {NAME} ${NAME}"
PYTHON = "Hello {NAME}! {{NAME}} {{ OTHER }} {1} {NAME.attr} ${NAME}"


def test_each_syntax_finds_only_its_own_names() -> None:
    assert unbound_names(CODEX, {}, "double-brace") == ["model_name", "personality", "x"]
    assert unbound_names(PYTHON, {}, "single-brace") == ["NAME"]
    assert unbound_names(PYTHON, {}, "dollar-brace") == ["NAME"]
    assert unbound_names(CODEX, {"x": 1}, "double-brace") == ["model_name", "personality"]


def test_filling_replaces_only_the_names_bound() -> None:
    filled = bind_placeholders(CODEX, {"model_name": "Codex", "x": "X"}, {}, "double-brace")
    assert filled is not None
    assert filled.render({}) == (
        "You are Codex.\n{{personality}} {{ not a name }} {{X}} {NAME} ${NAME}"
    )
    single = bind_placeholders(PYTHON, {"NAME": "Ann"}, {}, "single-brace")
    assert single is not None
    assert single.render({}) == "Hello Ann! {{NAME}} {{ OTHER }} {1} {NAME.attr} ${NAME}"


@pytest.mark.parametrize(
    ("syntax", "written"),
    [("dollar-brace", "${A}"), ("double-brace", "{{ A }}"), ("single-brace", "{A}")],
)
def test_written_as(syntax: str, written: str) -> None:
    assert written_as("A", syntax) == written  # type: ignore[arg-type]


def test_a_raw_part_says_its_syntax_and_placeholders_fill_it(
    make_catalog: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        "codex",
        parts=[
            {
                "id": "base",
                "body": "I am {{ model_name }}, {{ mood }}.",
                "template": False,
                "placeholders": "double-brace",
            },
            {"id": "old", "body": "Tool ${TOOL} {{ model_name }}", "template": False},
        ],
        extra={"placeholders": {"model_name": "Codex", "TOOL": "shell"}},
    )
    cat = load_dir(folder)
    assert cat.assemble({}).text == "I am Codex, {{ mood }}.\n\nTool shell {{ model_name }}"
    assert cat.unbound_placeholders() == {"mood": ("base",)}
    code, _, err = run_cli(capsys, "assemble", str(folder), "--explain")
    assert code == 0
    assert "? {{ mood }} left as written (not in [placeholders]): base" in err


def test_an_overlay_fills_its_base_parts_in_their_own_syntax(
    make_catalog: Callable[..., Path], tmp_path: Path
) -> None:
    body = "Mode: {{ mode }}."
    make_catalog(
        "upstream",
        parts=[{"id": "mode", "body": body, "template": False, "placeholders": "double-brace"}],
    )
    overlay = tmp_path / "catalogs" / "mine" / "1.0.0"
    overlay.mkdir(parents=True)
    manifest = {
        "catalog": {"name": "mine", "version": "1.0.0", "base": "upstream@1.0.0"},
        "variable": [{"name": "plan", "type": "bool"}],
        "placeholders": {"mode": {"expr": "'plan' if plan else 'build'"}},
        "part": [{"id": "mode", "from": "mode", "order": 1, "tokens": 3, "sha256": sha(body)}],
    }
    (overlay / "catalog.toml").write_text(tomli_w.dumps(manifest), encoding="utf-8")
    cat = CatalogPath([tmp_path / "catalogs"]).load("mine")
    assert cat.part("mode").decl.placeholder_syntax == "double-brace"
    assert cat.assemble({"variables": {"plan": True}}).text == "Mode: plan."
    assert cat.assemble({}).text == "Mode: build."
