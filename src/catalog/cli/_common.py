"""Helpers shared by the command modules: common options, loading, output.

The exit statuses and the global options live in :mod:`catalog.cli._options` (which
the top-level parser loads alone) and are named here too, for the command modules.

What a command prints for a person goes through :mod:`catalog.text.visible` (a
control or invisible character is shown as ``<U+XXXX>``); JSON output escapes
those characters, so a program parses the exact data.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog.cli._options import (
    ALL_FORMATS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    add_counter,
    add_format,
    common_parser,
    resolve_globals,
)
from catalog.cli._report import write_warning
from catalog.engine.catalog import Catalog
from catalog.engine.prompt import CACHE_TTLS
from catalog.errors import CatalogError, ContextError
from catalog.io.catalog_path import CatalogPath
from catalog.io.contexts import load_context
from catalog.io.positions import key_lines
from catalog.io.settings import guessed_value, tool_list, typed_value
from catalog.io.textfile import read_text, write_text
from catalog.schema.context import (
    Context,
    coerce_context,
)
from catalog.schema.manifest import (
    fits_type,
)
from catalog.text.suggest import did_you_mean, guess
from catalog.text.visible import json_visible, visible

if TYPE_CHECKING:
    from catalog.gathering import Gathering

__all__ = [
    "ALL_FORMATS",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
    "add_context_options",
    "add_counter",
    "add_format",
    "add_price_options",
    "common_parser",
    "context_from_args",
    "context_requested",
    "emit_json",
    "emit_text",
    "gathering_from_args",
    "load_ref",
    "make_catalog_path",
    "resolve_globals",
    "warn_notes",
    "write_output",
]


DEFAULT_TURNS = 10
"""The turns of a conversation ``cost`` and ``review`` price when not told."""
_MAX_TURNS = 1_000_000
"""The most turns priced: with the prices' own bounds, every cost stays exact to the cent."""


def _turns(text: str) -> int:
    """A number of turns from the command line: a whole number from 1 to :data:`_MAX_TURNS`."""
    if not (text.isascii() and text.isdigit() and len(text) <= 7) or not (
        1 <= int(text) <= _MAX_TURNS
    ):
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a number of turns (1 to {_MAX_TURNS})"
        )
    return int(text)


def add_price_options(parser: argparse.ArgumentParser) -> None:
    """``--turns``, ``--ttl`` and ``--prices``: how a conversation's cost is worked out."""
    parser.add_argument(
        "--turns",
        type=_turns,
        default=DEFAULT_TURNS,
        metavar="N",
        help=f"turns of one conversation (default {DEFAULT_TURNS})",
    )
    parser.add_argument(
        "--ttl",
        choices=CACHE_TTLS,
        default="5m",
        help="the cache lifetime: 5m (writes cost 1.25x the input price, the default) or 1h (2x)",
    )
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="a TOML file of model prices over the bundled ones (same format)",
    )


def make_catalog_path(args: argparse.Namespace) -> CatalogPath:
    """The catalog path the command's ``--path`` options describe."""
    return CatalogPath(args.path)


def load_ref(args: argparse.Namespace, ref: str) -> Catalog:
    """Load ``NAME[@SPEC]`` or a version folder."""
    return make_catalog_path(args).load_ref(ref)


def emit_text(text: str) -> None:
    """Print a report for a person: every control or invisible character (a file name's,
    a manifest's text) shown as ``<U+XXXX>``, so nothing acts on the terminal."""
    sys.stdout.write(visible(text))


def emit_json(data: Any) -> None:
    """Print ``data`` as indented, key-sorted JSON, hidden characters escaped."""
    import json  # on first use: most commands never read or write JSON

    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True)
    sys.stdout.write(json_visible(text) + "\n")


def warn_notes(args: argparse.Namespace, notes: Iterable[str]) -> None:
    """Write each note of a result (an unknown tool, a file skipped...) to stderr as a
    warning: one line of text, hidden characters shown, or of JSON with ``--format json``."""
    for note in notes:
        write_warning(note, as_json=args.format == "json")


def write_output(path: str, text: str) -> None:
    """Write a command's output to the file given with ``-o``, replacing it in one step
    (an interrupted command leaves the old file whole)."""
    write_text(path, text, CatalogError, "check the -o path")


def add_context_options(parser: argparse.ArgumentParser) -> None:
    """``--context``, ``--set`` and ``--tools``: how a command builds its context."""
    parser.add_argument(
        "--context",
        metavar="FILE",
        help="a context file (.toml or .json); see `catalog schema context`",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a declared variable or a context field (dotted, e.g. env.os=Linux); "
        "values are read as JSON when they parse, else as text; repeatable",
    )
    parser.add_argument("--tools", metavar="A,B,...", help="the enabled tools, comma-separated")
    parser.add_argument(
        "--model",
        default="",
        metavar="ID",
        help="the model id the prompt is for: the context's `model`, which conditions and "
        "bodies read (and env.model, unless the context sets it)",
    )
    parser.add_argument(
        "--touched",
        action="append",
        default=[],
        metavar="FILE",
        help="a file the agent has read or edited (touched_files): path-scoped rules "
        "whose globs match it are gathered; repeatable",
    )
    gathering = parser.add_argument_group(
        "gathering",
        "fill the context from a real folder, as the catalog's [sources] table says "
        "(the options after --from-dir need it)",
    )
    gathering.add_argument(
        "--from-dir", metavar="DIR", help="the agent's working directory to gather from"
    )
    gathering.add_argument(
        "--home", metavar="DIR", help="use DIR as the home folder for '~' paths (default: yours)"
    )
    gathering.add_argument(
        "--root",
        metavar="DIR",
        help="the project root: the upward walk stops there and file: reads stay under "
        "it (default: the nearest folder holding one of the catalog's root markers, such "
        "as .git, else --from-dir)",
    )
    gathering.add_argument("--provider", default="", help="the provider name, for env.provider")
    gathering.add_argument(
        "--no-git", action="store_true", help="leave out the git facts (branch, status)"
    )
    gathering.add_argument(
        "--follow-links",
        action="store_true",
        help="read files reached through symbolic links that lead out of where they may "
        "reach: the project root, and the home folder for your own files (skipped with a "
        "warning by default; @path imports stay confined)",
    )


def context_from_args(args: argparse.Namespace, catalog: Catalog, *also: Catalog) -> Context:
    """Build the context: gathered (``--from-dir``), then ``--context``, ``--tools``,
    ``--model``, ``--set``."""
    return gathering_from_args(args, catalog, *also)[0]


def gathering_from_args(
    args: argparse.Namespace, catalog: Catalog, *also: Catalog
) -> tuple[Context, Gathering | None]:
    """The context the options describe, and the record of its gathering (with ``--from-dir``).

    Each later source wins over the earlier ones. What the options give is
    known before gathering, so a ``[file:PATH]`` in a template set with
    ``--set`` is read like one in a gathered template. Gathering warnings (a
    file skipped or cut) go to stderr. ``--set`` may name a variable of
    ``catalog`` or of ``also`` (the other side of a diff), typed as
    ``catalog`` declares it when both do.
    """
    types: dict[str, str] = {}
    for each in reversed((catalog, *also)):
        types.update(each.variable_types)
    data: dict[str, Any] = {}
    if args.context:
        data = _file_context(args.context, types).model_dump(exclude_defaults=True)
    if args.tools is not None:
        data["tools"] = tool_list(args.tools)
    if args.touched:
        data["touched_files"] = list(args.touched)
    if args.model:
        data["model"] = args.model
        data.setdefault("env", {}).setdefault("model", args.model)
    for item in args.set:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ContextError(
                f"--set {item!r} is not KEY=VALUE", hint="write e.g. --set plan_mode=true"
            )
        name = key.removeprefix("variables.")  # either spelling of a declared variable
        declared = types.get(name)
        if declared is not None:
            data.setdefault("variables", {})[name] = typed_value(raw, declared, key)
        elif key.split(".")[0] in Context.model_fields:
            _set_path(data, key.split("."), guessed_value(raw))
        else:
            close = guess(key, types.keys() | Context.model_fields.keys())
            raise ContextError(
                f"--set {key}: no such variable or context field",
                hint=f"{close} `catalog variables {catalog.name}@{catalog.version}` lists the "
                "catalog's variables, `catalog schema context` the context's fields".lstrip(),
            )
    given = coerce_context(data, source="--set/--tools/--context")
    if args.from_dir is None:
        stray = _gathering_options(args)
        if stray:
            raise ContextError(
                f"{', '.join(stray)} {'applies' if len(stray) == 1 else 'apply'} only "
                "when gathering a context",
                hint="add --from-dir DIR, or set a field directly (e.g. --set env.model=NAME)",
            )
        return given, None
    # Imported here: gathering (git, front matter, time zones) is not needed otherwise.
    from catalog.gathering import SourceWarning, gather_with_provenance

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SourceWarning)
        gathered = gather_with_provenance(
            catalog,
            args.from_dir,
            base=given,
            home=args.home,
            root=args.root,
            model=args.model,
            provider=args.provider,
            git=not args.no_git,
            follow_links=args.follow_links,
        )
    warn_notes(args, (str(warning.message) for warning in caught))
    return gathered.context, gathered


def _file_context(path: str, types: Mapping[str, str]) -> Context:
    """A ``--context`` file whose variables are checked against the catalog's declarations.

    Assembling would refuse the same values, but only the file knows the
    line to point at (``[variables] plan_mode = "yes"``).
    """
    context = load_context(path)
    for name, value in context.variables.items():
        declared = types.get(name)
        if declared is not None and fits_type(value, declared):
            continue
        if declared is None:
            problem = f"unknown variable {name!r}"
            hint = did_you_mean(name, types, what="declared variables")
        else:
            problem = f"variable {name!r} must be of type {declared}, got {value!r}"
            hint = f"write a {declared} value"
        text = (
            ""
            if path.lower().endswith(".json")
            else read_text(Path(path), ContextError, "the context file", "check --context")
        )
        raise ContextError(
            problem,
            file=path,
            line=key_lines(text)(("variables", name)) if text else None,
            key=f"variables.{name}",
            hint=hint,
        )
    return context


def context_requested(args: argparse.Namespace) -> bool:
    """Whether any option of :func:`add_context_options` was given."""
    return bool(
        args.context
        or args.tools is not None
        or args.set
        or args.touched
        or args.model
        or args.from_dir is not None
        or _gathering_options(args)
    )


def _gathering_options(args: argparse.Namespace) -> list[str]:
    """The gathering options given besides ``--from-dir``."""
    given = (
        ("--home", args.home),
        ("--root", args.root),
        ("--provider", args.provider),
        ("--no-git", args.no_git),
        ("--follow-links", args.follow_links),
    )
    return [option for option, value in given if value]


def _set_path(data: dict[str, Any], path: list[str], value: Any) -> None:
    target = data
    for name in path[:-1]:
        child = target.setdefault(name, {})
        if not isinstance(child, dict):
            raise ContextError(f"--set {'.'.join(path)}: {name!r} is not a table")
        target = child
    target[path[-1]] = value
