"""The values a body reads, read at once from a scope (the memo's keys)."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.lang.rows import row_reader
from catalog.schema.context import Environment


def test_the_names_read_whole_come_first_then_the_paths_of_each_name() -> None:
    read = row_reader({("tools",), ("env", "os"), ("env", "cwd"), ("x", "a", "b"), ("mode",)})
    scope = {
        "tools": ("Bash",),
        "mode": "plan",
        "env": Environment(cwd="/p", os="Linux"),
        "x": {"a": {"b": 3}},
    }
    assert read(scope) == ("plan", ("Bash",), "/p", "Linux", 3)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (Environment(cwd="/p", os="Linux"), ("/p", "Linux")),  # declared fields, in one call
        ({"cwd": "/m", "os": "Mac"}, ("/m", "Mac")),  # a mapping: its keys
        ({"cwd": "/m"}, ("/m", None)),  # a missing key is none
        (None, (None, None)),  # safe navigation
        ("text", (None, None)),  # a value without those names
    ],
)
def test_paths_are_read_as_the_expression_language_reads_them(env: Any, expected: Any) -> None:
    assert row_reader({("env", "cwd"), ("env", "os")})({"env": env}) == expected
    assert row_reader({("env", "cwd")})({"env": env}) == expected[:1]


def test_a_name_read_whole_is_read_alone() -> None:
    x = {"a": 1}
    assert row_reader({("x", "a"), ("x",)})({"x": x}) == (x,)
