"""``catalog import git``: any repository's prompt files, one catalog version per release tag."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from catalog.cli._common import EXIT_OK, emit_json, emit_text
from catalog.cli._formatters import RawHelpFormatter
from catalog.cli._import_report import (
    add_shared_options,
    print_version,
    summary_json,
    summary_text,
)
from catalog.importers.git.rules import Rules, load_rules
from catalog.importers.git.write import DEFAULT_ORDER, GitImport, import_git

__all__ = ["register", "run"]

_SHOWN = 10  # tag names shown per reason they were left out


def register(formats: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``git`` to the source formats of ``catalog import``."""
    git = formats.add_parser(
        "git",
        help="any git repository's prompt files, one version per release tag",
        description="Import the files of REPO (a clone) at every tag matching --tags, in "
        "version order (tags off the main line count): the version is the tag without its "
        "prefix (v1.3.4 -> 1.3.4, rust-v0.46.0 -> 0.46.0); tags that are no PEP 440 version "
        "are skipped and counted, pre-releases too unless --pre. Each file matching --include "
        "is one part, its id the path under the longest --root holding it, without the "
        "extension, folders joined by '-'. Parts are raw text (template = false), of order "
        f"{DEFAULT_ORDER}, unless --rules FILE says otherwise (conditions, kinds, order, "
        "groups, placeholder syntax, prompts inside data files: see docs/importing.md). "
        "Bodies are stored once under NAME/_blobs/; importing again writes only new releases. "
        "The repository is read without running git or anything it configures. "
        "Exit 0 on success, 2 on bad input.",
        formatter_class=RawHelpFormatter,
    )
    git.add_argument("repo", metavar="REPO", help="a clone of the repository (or a bare one)")
    git.add_argument("--name", required=True, help="the catalog name, e.g. opencode")
    git.add_argument(
        "--out", required=True, metavar="DIR", help="where catalogs are written (DIR/NAME/VERSION/)"
    )
    git.add_argument(
        "--tags",
        action="append",
        required=True,
        metavar="GLOB",
        help="release tags to import, e.g. 'v*' (repeatable)",
    )
    git.add_argument(
        "--include",
        action="append",
        required=True,
        metavar="GLOB",
        help="files to import, e.g. 'src/prompt/*.txt' or 'prompts/**/*.md' (repeatable)",
    )
    git.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="PATH",
        help="a folder part ids are named under (repeatable; the longest holding a file wins)",
    )
    git.add_argument("--rules", metavar="FILE", help="a rules file (TOML): see docs/importing.md")
    git.add_argument("--pre", action="store_true", help="import pre-release tags too")
    add_shared_options(git)
    git.set_defaults(func=run, parser=git)


def run(args: argparse.Namespace) -> int:
    """Import, print a line per version, the summary and what was left out or unmatched
    (``--format json``: all of it as one object)."""
    rules = load_rules(args.rules) if args.rules is not None else Rules.none()
    as_json = args.format == "json"
    done = import_git(
        args.repo,
        name=args.name,
        out=args.out,
        tags=args.tags,
        includes=args.include,
        roots=args.root,
        rules=rules,
        pre=args.pre,
        force=args.force,
        on_version=None if as_json else print_version,
    )
    if as_json:
        emit_json(_as_json(args.name, done))
    else:
        emit_text(summary_text(args.name, done.report) + _notes(done))
    return EXIT_OK


def _as_json(name: str, done: GitImport) -> dict[str, Any]:
    return {
        **summary_json(name, done.report),
        "skipped_tags": {
            "not_versions": list(done.tags.not_versions),
            "pre_releases": list(done.tags.pre_releases),
            "duplicates": list(done.tags.duplicates),
            "not_commits": list(done.tags.not_commits),
        },
        "unmatched_parts": list(done.unmatched_parts),
        "idle_rules": list(done.idle_rules),
        "idle_includes": list(done.idle_includes),
        "read": asdict(done.stats),
    }


def _notes(done: GitImport) -> str:
    lines = []
    for tags, why in (
        (done.tags.not_versions, "not versions"),
        (done.tags.pre_releases, "pre-releases (--pre takes them)"),
        (done.tags.duplicates, "equal to another tag's version"),
        (done.tags.not_commits, "naming a tree or a blob, not a commit"),
    ):
        if tags:
            shown = ", ".join(tags[:_SHOWN]) + (", ..." if len(tags) > _SHOWN else "")
            lines.append(f"skipped {len(tags)} tag(s): {why}: {shown}\n")
    if done.unmatched_parts:
        lines.append(
            f"{len(done.unmatched_parts)} part(s) no rule matched, imported as they are: "
            + ", ".join(done.unmatched_parts)
            + "\n"
        )
    lines.extend(f"{said}\n" for said in done.idle_rules)
    lines.extend(
        f"--include {glob!r} matches no file in any release imported\n"
        for glob in done.idle_includes
    )
    return "".join(lines)
