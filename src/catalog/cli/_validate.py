"""``catalog validate [NAME[@SPEC] | DIR]...``: load and check catalogs."""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import asdict
from typing import Any, NoReturn

from catalog.cli._common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    add_format,
    emit_json,
    make_catalog_path,
)
from catalog.engine.catalog import Catalog
from catalog.errors import (
    CatalogError,
    ManifestError,
)
from catalog.io.catalog_path import (
    CatalogPath,
    is_folder_ref,
    parse_ref,
)
from catalog.io.loader import version_folder
from catalog.io.validate import Problem, check_catalog, error_problems
from catalog.review.economics import cache_warnings
from catalog.review.prices import ModelPrice, load_prices
from catalog.text.visible import (
    visible,
)

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``validate`` command."""
    parser.description = (
        "Check every version of every catalog found (no arguments), or the given "
        "NAME, NAME@SPEC or version folders, and list every problem found, each at its "
        "file, line and column. Exit 1 when an error is found."
    )
    parser.add_argument("targets", nargs="*", metavar="NAME[@SPEC]|DIR")
    parser.add_argument(
        "--strict", action="store_true", help="treat warnings as errors (exit 1 on any finding)"
    )
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="ID",
        help="also warn where the prompt of an agent (empty context) caches badly on "
        "model ID: a cache block under the model's minimum cacheable length, more "
        "stability changes than breakpoints, stable parts after a part that changes "
        "every turn; repeatable",
    )
    parser.add_argument(
        "--prices", metavar="FILE", help="a TOML file of model prices over the bundled ones"
    )
    add_format(parser, "json")
    parser.set_defaults(func=run)


def _targets(catalog_path: CatalogPath, targets: list[str]) -> list[tuple[str, Any]]:
    """Pairs of (label, loader) for everything to check."""
    found: list[tuple[str, Any]] = []
    names = targets or catalog_path.names()
    for target in names:
        if is_folder_ref(target):
            version_folder(target)  # a folder of one version, or an error saying what it is
            found.append((target, lambda t=target: catalog_path.load_ref(t)))
            continue
        name, spec = parse_ref(target)
        try:
            refs = [catalog_path.find(name, spec)] if spec else catalog_path.versions(name)
        except ManifestError as exc:  # two folders of one version: a finding of its own
            found.append((target, functools.partial(_raise, exc)))
            continue
        if not refs:
            catalog_path.find(name)  # raises the "no catalog named" error with the list
        found.extend((f"{name}@{r.version}", r.load) for r in refs)
    return found


def _raise(exc: CatalogError) -> NoReturn:
    raise exc


def _cache_problems(catalog: Catalog, models: list[ModelPrice]) -> list[Problem]:
    """The cache warnings of every agent's prompt under an empty context, per model."""
    problems: list[Problem] = []
    for agent in catalog.agents:
        prompt = catalog.assemble({}, agent=agent)
        for model in models:
            problems.extend(
                Problem("warning", catalog.manifest_file, f"agent {agent!r}, {model.id}: {text}")
                for text in cache_warnings(prompt, model)
            )
    return problems


def run(args: argparse.Namespace) -> int:
    """Validate and report; exit 1 on errors (or on warnings with --strict)."""
    catalog_path = make_catalog_path(args)
    prices = load_prices(args.prices) if args.model or args.prices else None
    models = [prices.model(model) for model in args.model] if prices else []
    checked: list[dict[str, Any]] = []
    for label, load in _targets(catalog_path, args.targets):
        try:
            catalog = load()
            problems = check_catalog(catalog) + _cache_problems(catalog, models)
        except CatalogError as exc:
            problems = error_problems(exc, label)
        checked.append({"catalog": label, "ok": not problems, "problems": problems})
    every = [p for entry in checked for p in entry["problems"]]
    errors = sum(p.severity == "error" for p in every)
    warnings = sum(p.severity == "warning" for p in every)
    if args.format == "json":
        for entry in checked:
            entry["problems"] = [asdict(p) for p in entry["problems"]]
        emit_json({"catalogs": checked, "errors": errors, "warnings": warnings})
    else:
        for entry in checked:
            label = entry["catalog"]
            for problem in entry["problems"]:
                where = "" if problem.location == label else f"{problem.location}: "
                line = f"{label}: {problem.severity}: {where}{problem.message}"
                if problem.hint:
                    line += f"\n  hint: {problem.hint}"
                sys.stdout.write(visible(line) + "\n")
            if entry["ok"]:
                sys.stdout.write(visible(f"{label}: ok") + "\n")
        sys.stdout.write(f"{errors} error(s), {warnings} warning(s)\n")
    failed = errors or (args.strict and warnings)
    return EXIT_PROBLEMS if failed else EXIT_OK
