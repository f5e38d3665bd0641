"""The package's public API: a small ``__all__``, loaded lazily, and a fast import."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import catalog
from catalog import errors
from catalog.engine import assemble, prompt
from catalog.schema import context


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


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("ExpressionError", errors),
        ("TemplateError", errors),
        ("Reminder", prompt),
        ("UsedPart", prompt),
        ("CompiledPart", assemble),
        ("Skill", context),
        ("Environment", context),
    ],
)
def test_names_moved_out_of_the_top_level_still_work_with_a_warning(
    name: str, module: object
) -> None:
    assert name not in catalog.__all__
    with pytest.warns(DeprecationWarning, match=f"import it from {module.__name__}"):  # type: ignore[attr-defined]
        value = getattr(catalog, name)
    assert value is getattr(module, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        catalog.Nope  # noqa: B018


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("catalog.context", "Environment", "catalog.schema.context"),
        ("catalog.prompt", "UsedPart", "catalog.engine.prompt"),
        ("catalog.assemble", "CompiledPart", "catalog.engine.assemble"),
    ],
)
def test_module_paths_of_the_last_release_still_work_with_a_warning(
    old: str, name: str, new: str
) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: import {name} from {new}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)
