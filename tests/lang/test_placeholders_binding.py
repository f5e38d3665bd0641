"""Binding the ``${NAME}`` placeholders of raw bodies from ``[placeholders]``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from catalog import CatalogError, load_dir
from tests.conftest import run_cli

BODY = (
    "Use ${READ_TOOL_NAME} before ${EDIT_TOOL_NAME}; you are ${PRODUCT}.\n"
    'Kept: ${IS_BASH?"bash":"pwsh"} and \\${READ_TOOL_NAME} and ${UNBOUND_NAME}.'
)


def test_values_and_expressions_fill_simple_placeholders(
    make_catalog: Callable[..., Path],
) -> None:
    folder = make_catalog(
        "bound",
        parts=[{"id": "intro", "body": BODY, "template": False}],
        variables=[{"name": "product", "type": "str", "default": "Claude Code"}],
        extra={
            "placeholders": {
                "READ_TOOL_NAME": "Read",
                "EDIT_TOOL_NAME": "Edit",
                "PRODUCT": {"expr": "product + ' (' + env.os + ')'"},
            }
        },
    )
    cat = load_dir(folder)
    text = cat.assemble({"env": {"os": "linux"}}).text
    assert text == (
        "Use Read before Edit; you are Claude Code (linux).\n"
        'Kept: ${IS_BASH?"bash":"pwsh"} and \\${READ_TOOL_NAME} and ${UNBOUND_NAME}.'
    )
    # The body itself (what diffs, locks and hashes see) stays as written.
    assert cat.part("intro").body == BODY
    assert cat.unbound_placeholders() == {"UNBOUND_NAME": ("intro",)}


def test_templated_parts_are_not_touched(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        "tpl",
        parts=[{"id": "t", "body": "Price ${READ_TOOL_NAME} {{ 1 + 1 }}"}],
        extra={"placeholders": {"READ_TOOL_NAME": "Read"}},
    )
    cat = load_dir(folder)
    assert cat.assemble({}).text == "Price ${READ_TOOL_NAME} 2"
    assert cat.unbound_placeholders() == {}


def test_a_bad_expression_names_its_key(make_catalog: Callable[..., Path]) -> None:
    folder = make_catalog(
        "bad",
        parts=[{"id": "p", "body": "${X}", "template": False}],
        extra={"placeholders": {"X": {"expr": "nosuchname + 1"}}},
    )
    with pytest.raises(CatalogError) as info:
        load_dir(folder)
    assert info.value.key == "placeholders.X.expr"
    assert info.value.line == 6
    assert "unknown name 'nosuchname'" in info.value.message


def test_explain_lists_what_is_left_unbound(
    make_catalog: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_catalog(
        "ex",
        parts=[{"id": "intro", "body": BODY, "template": False}],
        extra={"placeholders": {"READ_TOOL_NAME": "Read", "EDIT_TOOL_NAME": "Edit"}},
    )
    code, _, err = run_cli(capsys, "assemble", str(folder), "--explain")
    assert code == 0
    assert "? ${PRODUCT} left as written (not in [placeholders]): intro" in err
    assert "? ${UNBOUND_NAME} left as written (not in [placeholders]): intro" in err
    assert "READ_TOOL_NAME" not in err
