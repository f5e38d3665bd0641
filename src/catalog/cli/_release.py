"""``catalog release``: name releases in a prompt store, point them at catalog versions
with a canary, roll them back and read their history."""

from __future__ import annotations

import argparse
import datetime
import sys
from typing import Any

from catalog.cli._common import EXIT_OK, add_format, emit_json
from catalog.conversations.base import LOCAL, Canary, Release
from catalog.conversations.connect import default_store_url, open_store
from catalog.conversations.releases import Releases, catalog_path_loader
from catalog.errors import UsageError
from catalog.io.catalog_path import CatalogPath, parse_ref
from catalog.text.visible import visible_line

__all__ = ["register", "run"]

_ACTIONS = {
    "set": "point a release at NAME@VERSION, with a canary or none",
    "show": "show a release as it stands",
    "list": "list every release",
    "history": "list every change of a release, oldest first",
    "rollback": "put a release back as it was before its latest change",
}


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``release`` command and its actions (each takes ``--store`` and ``--format``)."""
    parser.description = (
        "Releases are labels (production, staging) kept in the prompt store that choose "
        "the catalog version of each new conversation constructed for them (PUT "
        '/conversations/{id} with {"release": LABEL}), with a canary version for a '
        "share of them; every change is kept in order. Changes made here are recorded as "
        f"made by {LOCAL!r}. Exit 0 on success, 2 on bad input or an unknown release."
    )
    add_format(parser, "json")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_ in _ACTIONS.items():
        action = actions.add_parser(name, help=help_, description=help_)
        if name != "list":
            action.add_argument("label", metavar="LABEL", help="the release, e.g. production")
        if name == "set":
            action.add_argument(
                "ref",
                metavar="NAME@VERSION",
                help="the catalog and version (a specifier chooses the newest match now)",
            )
            action.add_argument(
                "--canary", metavar="VERSION", help="another version of the catalog to try"
            )
            action.add_argument(
                "--percent",
                type=float,
                metavar="N",
                help="the share of new conversations given the canary (more than 0, at most 100)",
            )
        action.add_argument(
            "--store",
            default=None,
            metavar="URL",
            help=f"the prompt store: sqlite:///FILE or postgresql://USER@HOST/DB (default: "
            f"{default_store_url()})",
        )
        # Unset unless given here, so that --format and --path given before the action hold.
        action.add_argument(
            "--format", choices=("text", "json"), default=argparse.SUPPRESS, help="output format"
        )
        action.add_argument(
            "--path",
            action="append",
            default=argparse.SUPPRESS,
            metavar="DIR",
            help="a folder of catalogs, where versions are found; repeatable",
        )
        action.set_defaults(func=run, parser=action)


def run(args: argparse.Namespace) -> int:
    """Open the store, do the action, print the release(s)."""
    canary = _canary(args)
    store = open_store(args.store or default_store_url())
    try:
        releases = Releases(store, load=catalog_path_loader(args.path))
        if args.action == "set":
            name, version = _version(args)
            _emit(releases.set(args.label, name, version, canary), args.format)
        elif args.action == "rollback":
            _emit(releases.rollback(args.label), args.format)
        elif args.action == "show":
            _emit(releases.get(args.label), args.format)
        elif args.action == "history":
            _emit_all(releases.history(args.label), args.format, history=True)
        else:
            _emit_all(releases.all(), args.format, history=False)
    finally:
        store.close()
    return EXIT_OK


def _canary(args: argparse.Namespace) -> Canary | None:
    canary, percent = getattr(args, "canary", None), getattr(args, "percent", None)
    if (canary is None) != (percent is None):
        raise UsageError(
            "--canary and --percent go together",
            hint="give both (--canary 1.3.0 --percent 10), or neither for no canary",
        )
    return None if canary is None or percent is None else Canary(canary, percent)


def _version(args: argparse.Namespace) -> tuple[str, str]:
    """The catalog name and exact version ``NAME@VERSION`` names on the catalog path."""
    name, spec = parse_ref(args.ref)
    if spec is None:
        raise UsageError(
            f"{args.ref!r} names no version", hint=f"write {name}@VERSION, e.g. {name}@1.0.0"
        )
    return name, str(CatalogPath(args.path).find(name, spec).version)


def _when(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _target(release: Release) -> str:
    target = release.target
    canary = target.canary
    shown = f"{target.catalog} {target.version}"
    if canary is not None:
        shown += f", canary {canary.version} for {canary.percent:g}% of new conversations"
    return shown


def _change(release: Release) -> str:
    return (
        f"change {release.number} ({release.action}) at {_when(release.changed)} by {release.who}"
    )


def _emit(release: Release, format_: str) -> None:
    if format_ == "json":
        emit_json(release.to_dict())
        return
    sys.stdout.write(
        visible_line(f"{release.label}: {_target(release)}") + "\n"
        f"  {visible_line(_change(release))}\n"
    )


def _emit_all(releases: list[Release], format_: str, *, history: bool) -> None:
    if format_ == "json":
        rows: list[dict[str, Any]] = [release.to_dict() for release in releases]
        emit_json(rows)
        return
    if not releases:
        sys.stdout.write("no releases\n")
    for release in releases:
        if history:
            line = f"{release.number:>4}  {_when(release.changed)}  {release.action:<8}  "
            line += f"{release.who:<18}  {_target(release)}"
        else:
            line = f"{release.label:<16} {_target(release)}  ({_change(release)})"
        sys.stdout.write(visible_line(line) + "\n")
