"""expanduser(path, home): a leading ~ as the home folder, for paths a catalog prints."""

from __future__ import annotations

import pytest

from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import SCALAR


@pytest.mark.parametrize(
    ("path", "home", "expected"),
    [
        ("~/.opal/sessions", "/home/ada", "/home/ada/.opal/sessions"),
        ("~", "/home/ada/", "/home/ada"),
        ("~\\skills", "C:\\Users\\ada", "C:\\Users\\ada\\skills"),
        ("~/x", "", "~/x"),
        ("/data/~/x", "/home/ada", "/data/~/x"),
        ("~ada/x", "/home/ada", "~ada/x"),
        (None, "/home/ada", ""),
    ],
)
def test_expanduser(path: str | None, home: str, expected: str) -> None:
    run = compile_expression("expanduser(p, h)", {"p": SCALAR, "h": SCALAR})
    assert run({"p": path, "h": home}) == expected
