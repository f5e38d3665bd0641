"""What ``catalog log``, ``blame`` and ``grep`` share: the catalog they are asked about."""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable, Sequence

from catalog.changes.history import CatalogHistory, IdHolder, open_history
from catalog.changes.history.cache import CacheWarning
from catalog.cli._common import make_catalog_path, warn_notes
from catalog.errors import UsageError
from catalog.io.catalog_path import is_folder_ref, parse_ref

__all__ = ["add_versions", "history_of", "holder_lines"]


def add_versions(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--versions SPEC``: which versions ``what``."""
    parser.add_argument(
        "--versions",
        metavar="SPEC",
        help=f"a PEP 440 specifier: {what} (e.g. '>=2.1', '!=2.1.39'; default all)",
    )


def history_of(
    args: argparse.Namespace, ref: str, *, spec: bool
) -> tuple[CatalogHistory, str | None]:
    """The history of the catalog ``ref`` names (``NAME``, or ``NAME@SPEC`` when ``spec``),
    and the specifier given with it."""
    if is_folder_ref(ref):
        raise UsageError(
            f"{ref!r} is a folder: the history is asked of a catalog by its name",
            hint="give the catalog's name, and the folder holding it with --path",
        )
    name, given = parse_ref(ref)
    if given is not None and not spec:
        raise UsageError(
            f"{ref!r}: this command looks at every version of a catalog",
            hint=f"give the name alone; choose versions with --versions {given!r}",
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CacheWarning)
        history = open_history(name, catalog_path=make_catalog_path(args))
    warn_notes(args, (str(warning.message) for warning in caught))
    return history, given


def holder_lines(
    part: str, holders: Sequence[IdHolder], ask: Callable[[IdHolder], str]
) -> list[str]:
    """Lines saying which parts held the id ``part``, one after another, when more than
    one did: each one's versions, its id now when it was renamed since, and which is
    shown (``ask`` gives the command that shows another)."""
    if not holders:
        return []
    lines = [f"{part!r} was the id of {len(holders)} different parts, one after another:"]
    for holder in holders:
        now = f", now {holder.now} (in {holder.newest})" if holder.now != part else ""
        mark = "shown here" if holder.shown else ask(holder)
        lines.append(f"  {holder.first} to {holder.last}{now}: {mark}")
    return lines
