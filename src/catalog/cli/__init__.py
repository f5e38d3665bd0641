"""The ``catalog`` command line.

Each command lives in its own module exposing ``register(parser)`` (its
arguments, its description and its ``run``). This module builds the parser,
runs the command and turns every library error into a one-paragraph message
on stderr (never a traceback), with every control or invisible character it
quotes shown as ``<U+XXXX>``.

Only the module of the command being run is imported, so starting one
command does not pay for the others (``catalog assemble`` never loads the
diff renderers or the importer); the others appear in ``--help`` by their
one-line help alone. The global options ``--path``, ``--format`` and
``--color`` are accepted before the command name as well as after it.

Exit codes (docs/cli.md): 0 success; 1 problems found (``validate``, a
differing ``diff``, a failed ``verify``, ``stamp --check``, a ``grep`` that
matches nothing); 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from catalog import __version__
from catalog.cli._common import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    common_parser,
    resolve_globals,
)
from catalog.cli._formatters import HelpFormatter, RawHelpFormatter
from catalog.cli._report import wants_json, write_error
from catalog.errors import CatalogError, UsageError
from catalog.lang.shapes import did_you_mean, guess
from catalog.lang.visible import visible

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: dict[str, str] = {
    "list": "list catalogs and versions",
    "show": "describe one catalog version",
    "assemble": "assemble the prompt for an agent under a context",
    "gather": "show the context a catalog gathers from a folder, and where each file came from",
    "tokens": "per-part token table of an assembled prompt",
    "variables": "list a catalog's variables and template bindings",
    "diff": "compare two catalog versions (parts, conditions, order, tokens)",
    "review": "review the prompt changes between two git revisions: diffs, tokens, cache cost",
    "cost": "what a prompt costs per conversation on a model, with and without caching",
    "log": "every version where a part was added, changed, renamed or removed",
    "blame": "each line of a part with the version that introduced it",
    "grep": "which parts say a text, from which version to which",
    "lock": "write a lock file: exact version, part hashes, prompt fingerprints",
    "verify": "check the installed catalog against a lock file",
    "validate": "check catalogs: manifests, names, hashes, token estimates, cache order",
    "schema": "print the JSON Schema of a manifest or a context",
    "stamp": "rewrite the sha256 and tokens of every part in version folders",
    "init": "write a new catalog that validates and assembles at once",
    "import": "import prompt parts published elsewhere as a catalog",
    "port": "port an overlay to a new release of its base, reporting what needs a decision",
    "serve": "run the web UI and the HTTP API (needs the [serve] extra)",
    "release": "name releases in a prompt store, with a canary, a rollback and a history",
    "completion": "print a shell completion script (bash, zsh or fish)",
    "help": "print a documentation page shipped with the package, or list them",
}
"""Every command and its one-line help, in the order ``--help`` lists them."""

_EPILOG = """\
global options (before or after the command):
  --path DIR        a folder of catalogs; repeatable; searched before CATALOG_PATH,
                    installed packages and the bundled catalogs
  --format FORMAT   output format: text (default), json (every command), and
                    markdown or html for diff
  --color WHEN      auto (default), always or never

exit status:
  0  success (diff: identical)
  1  problems found (validate, stamp --check), catalogs differ (diff), the
     installed catalog does not match the lock (verify), no part matches (grep)
  2  bad usage or bad input (unknown command, catalog or version, malformed
     manifest, context or lock file, a typo in a condition...)

documentation (shipped with the package):
  catalog help          list the pages
  catalog help cli      every command and option, exit codes, completion
  catalog help format   the catalog format"""

_VALUED_GLOBALS = ("--path", "--format", "--color")
_OTHER_GLOBALS = ("-h", "--help", "--version")


class _ArgumentsError(UsageError):
    """The words of the command line do not parse: told like every error, after the
    usage of the parser that refused them (in text)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message, hint=f"see `{parser.prog} --help`")
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        # The innermost parser that ran is the one whose usage a stray word is told with.
        self.set_defaults(parser_=self)

    def error(self, message: str) -> NoReturn:
        raise _ArgumentsError(self, message)


def _module_of(command: str) -> str:
    return f"catalog.cli._{command}"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, the parser of that one command.

    ``build_parser()`` loads every command (for documentation, completion
    and tests); the namespace's ``commands`` maps each name to its parser.
    """
    parser = _Parser(
        prog="catalog",
        description="Assemble, inspect and check versioned prompt catalogs.",
        epilog=_EPILOG,
        formatter_class=RawHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    common_parser(parser, prefix="global_", help_=argparse.SUPPRESS)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    parent = _Parser(add_help=False)
    common_parser(parent)
    for name, help_ in COMMANDS.items():
        if only is not None and name != only:
            continue  # a parser costs its building: only the command being run gets one
        command = subparsers.add_parser(name, parents=[parent], help=help_, description=help_)
        importlib.import_module(_module_of(name)).register(command)
    parser.set_defaults(commands=subparsers.choices)
    return parser


def _unrecognized(parser: argparse.ArgumentParser, extras: Sequence[str]) -> _ArgumentsError:
    """The error for words ``parser`` (a command's) does not take: an option is matched
    against the command's own, so ``--explian`` is answered with ``--explain``."""
    from catalog.cli._completion import options

    error = _ArgumentsError(parser, f"unrecognized arguments: {' '.join(extras)}")
    stray = next((word.partition("=")[0] for word in extras if word.startswith("--")), None)
    if stray is not None:
        flags = [flag for action in options(parser) for flag in action.option_strings]
        close = guess(stray, flags)
        if close:
            error.hint = f"{close} {error.hint}"
    return error


def _misplaced_option(argv: Sequence[str]) -> str | None:
    """The first option before the command's name that is not a global option: it is
    one of a command's (``catalog --agent explore assemble ...``) and goes after it."""
    words: Iterator[str] = iter(argv)
    for word in words:
        if word == "--" or not word.startswith("-") or word == "-":
            return None
        name = word.partition("=")[0]
        if name in _VALUED_GLOBALS and "=" not in word:
            next(words, None)
        elif name not in (*_VALUED_GLOBALS, *_OTHER_GLOBALS):
            return name
    return None


def _misplaced(option: str, argv: Sequence[str]) -> UsageError:
    """The error for ``option`` given before the command: one of the command's own goes
    after its name; anything else is most likely a misspelt global option."""
    from catalog.cli._completion import options

    command = next((word for word in argv if word in COMMANDS), None)
    own = command is not None and any(
        option in action.option_strings
        for action in options(build_parser(command).get_default("commands")[command])
    )
    close = guess(option, _VALUED_GLOBALS, n=1)
    return UsageError(
        f"{option!r} is not an option before the command: only --path, --format and --color are",
        hint=close
        if close and not own
        else f"put it after the command's name: catalog {command or 'COMMAND'} ... {option}",
    )


def _command_word(argv: Sequence[str]) -> str | None:
    """The first word of ``argv`` that is neither a global option nor its value."""
    words: Iterator[str] = iter(argv)
    for word in words:
        if word == "--":
            return next(words, None)
        if word in _VALUED_GLOBALS:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (words that do not parse exit
    with status 2, as argparse does, and ``--help`` and ``--version`` with 0)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["__complete"]:  # what the completion scripts ask, not a command
        from catalog.cli._completion import complete

        return complete(args_list[1:])
    as_json = wants_json(args_list)
    command = _command_word(args_list)
    try:
        misplaced = _misplaced_option(args_list)
        if misplaced is not None:
            raise _misplaced(misplaced, args_list)
        if command is not None and command not in COMMANDS:
            raise UsageError(
                f"{command!r} is not a command",
                hint=did_you_mean(command, COMMANDS, what="commands"),
            )
        parser = build_parser(command)
        args, extras = parser.parse_known_args(args_list)
        if extras:
            raise _unrecognized(args.parser_, extras)
        resolve_globals(args)
        status: int = args.func(args)
    except _ArgumentsError as exc:
        if not as_json:
            exc.parser.print_usage(sys.stderr)
            sys.stderr.write(f"{exc.parser.prog}: error: {visible(str(exc))}\n")
        else:
            write_error(exc, as_json=True)
        raise SystemExit(EXIT_USAGE) from None  # as argparse itself exits
    except CatalogError as exc:
        # Messages quote file names and input: hidden characters are shown, not sent.
        write_error(exc, as_json=as_json)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``catalog ... | head``): not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except (RecursionError, MemoryError) as exc:
        # Last resort: every reader refuses such input with its own error first.
        what = "nested too deeply" if isinstance(exc, RecursionError) else "too large"
        error = CatalogError(
            f"the input is {what} to process ({type(exc).__name__})",
            hint="look for a deeply nested or huge file among those given",
        )
        write_error(error, as_json=as_json)
        return EXIT_USAGE
    except Exception as exc:
        return _internal_error(exc, as_json=as_json)
    return status


TRACEBACK_ENV = "CATALOG_TRACEBACK"
"""Set to 1 to let an unforeseen failure end in Python's traceback (for a bug report)."""


def _internal_error(exc: Exception, *, as_json: bool) -> int:
    """Report an exception no reader foresaw as one message (exit status 3), so that no
    input, however hostile, shows a user a traceback; ``CATALOG_TRACEBACK=1`` re-raises.

    Every hole found this way is also fixed where it is (a NUL character in a path
    used to reach the system calls' ``ValueError``): this is the last resort."""
    if os.environ.get(TRACEBACK_ENV) == "1":
        raise exc
    error = CatalogError(
        f"internal error, the command failed unexpectedly: {type(exc).__name__}: {exc}",
        hint=f"this is a bug in catalog: please report it with the command and its input "
        f"(run again with {TRACEBACK_ENV}=1 for the traceback)",
    )
    write_error(error, as_json=as_json)
    return EXIT_INTERNAL
