"""The package's public API: a small ``__all__``, loaded lazily, and a fast import."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import catalog


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
