"""The package's public API: a small ``__all__``, loaded lazily, and a fast import."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import catalog
from catalog import errors


def test_all_is_small_and_every_name_resolves() -> None:
    assert len(catalog.__all__) <= 25
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in catalog.__all__:
            assert getattr(catalog, name) is not None, name
    assert set(catalog.__all__) <= set(dir(catalog))


def test_import_catalog_loads_no_heavy_module() -> None:
    code = (
        "import sys, catalog; "
        "print(sorted(m for m in ('pydantic', 'tiktoken', 'pytest', 'syrupy',"
        " 'catalog.engine.catalog', 'catalog.schema.context', 'packaging') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_diff_and_gather_are_functions_whoever_imports_the_subpackages() -> None:
    code = (
        "import catalog.changes.render, catalog.gathering, catalog; "
        "from catalog import diff, gather; "
        "print(callable(catalog.diff), callable(catalog.gather), diff is catalog.diff, "
        "diff.__module__, gather.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [
        "True",
        "True",
        "True",
        "catalog.changes.compute",
        "catalog.gathering.gatherer",
    ]


@pytest.mark.parametrize("name", ["Nope", "UsedPart", "Environment", "ExpressionError"])
def test_a_name_outside_all_is_an_attribute_error(name: str) -> None:
    # The context models, the prompt's parts and the other errors live in their modules.
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(catalog, name)


def _bullet(page: str, start: str) -> str:
    """The text of the bullet of ``page`` that starts with ``start``, up to the next one."""
    after = page.split(f"- {start}", 1)[1]
    return after.split("\n- ", 1)[0]


def test_the_public_names_are_what_the_docs_say() -> None:
    """docs/python.md lists ``catalog.__all__`` name by name, and says every error of
    ``catalog.errors`` is a ``CatalogError``."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "python.md").read_text(encoding="utf-8")
    public = _bullet(page, "**`catalog.__all__`**")
    listed = set(re.findall(r"`(\w+)`", public))
    assert listed == set(catalog.__all__)
    documented_errors = set(re.findall(r"`(\w+Error)`", _bullet(page, "**`catalog.errors`**")))
    assert documented_errors <= set(errors.__all__)
    raised = {
        name
        for name in errors.__all__
        if isinstance(getattr(errors, name), type)
        and issubclass(getattr(errors, name), BaseException)
    }
    assert "CatalogError" in raised and "ExpressionError" in raised
    assert all(issubclass(getattr(errors, name), catalog.CatalogError) for name in raised)
    every_class = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
        and not name.startswith("_")
    }
    assert every_class == raised  # no error of the package left out of __all__
