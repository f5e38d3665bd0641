"""The package's public API: a small ``__all__``, loaded lazily, and a fast import."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import catalog
from catalog import assemble, context, errors, prompt


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
        "print(sorted(m for m in ('pydantic', 'tiktoken', 'pytest', 'syrupy', 'catalog.compiled',"
        " 'catalog.context', 'packaging') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_assembling_a_bundled_catalog_imports_only_what_it_needs() -> None:
    unneeded = (
        "pydantic",
        "importlib.metadata",  # entry points are scanned without it when none is declared
        "importlib.resources",  # the bundled catalogs are found next to the package
        "email",
        "zipfile",
        "difflib",  # only for did-you-mean hints
        "html",  # only for escape()
        "catalog.lang.brackets",  # only for brackets()
        "catalog.gather",
        "catalog.diff",
        "dataclasses",  # value classes are records.frozen.Frozen (on Python 3.11, with
        # inspect; from 3.13 packaging.version imports inspect itself)
        "shutil",  # argparse's formatters are told the terminal's width
        "json",  # text output reads and writes no JSON
        "threading",
        "tomli_w",  # only for writing manifests and locks
        "hashlib",  # catalog._digest: CPython's own SHA-256, not OpenSSL's
    )
    code = (
        "import contextlib, io, sys; from catalog.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['assemble', 'coding-agent'])\n"
        f"print(sorted(m for m in {unneeded!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_diff_and_gather_stay_functions_whoever_imports_their_subpackages() -> None:
    code = (
        "import catalog.diff.render, catalog.gather, catalog; "
        "from catalog import diff, gather; "
        "print(callable(catalog.diff), callable(catalog.gather), diff is catalog.diff, "
        "diff.__module__, gather.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "True", "catalog.diff.compute", "catalog.gather"]


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
