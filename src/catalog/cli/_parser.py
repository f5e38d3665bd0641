"""The argument parser of ``catalog``: the top level, and the one command being run.

Only the module of the command being run is imported, so starting one command
does not pay for the others (``catalog assemble`` never loads the diff renderers
or the importer), and ``catalog --help`` imports none: the commands appear there
by their one-line help from :mod:`catalog.cli._registry`. The global options
``--path``, ``--format`` and ``--color`` are accepted before the command name as
well as after it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from catalog import __version__
from catalog.cli._formatters import HelpFormatter, RawHelpFormatter
from catalog.cli._options import common_parser
from catalog.cli._registry import COMMANDS, MissingExtraError, register
from catalog.errors import UsageError

__all__ = [
    "VALUED_GLOBALS",
    "ArgumentsError",
    "build_parser",
    "command_word",
    "misplaced_option",
]

_EPILOG = """\
global options (before or after the command):
  --path DIR        a folder of catalogs; repeatable; searched before CATALOG_PATH,
                    installed packages and the bundled catalogs
  --format FORMAT   output format: text (default), json (every command), and
                    markdown or html for diff
  --color WHEN      auto (default), always or never

exit status:
  0  success (diff: identical; review: no catalog changed)
  1  problems found (validate, stamp --check), catalogs differ (diff), the
     installed catalog does not match the lock (verify), no part matches (grep),
     prompts changed (review; with --fail-on: a bound is broken)
  2  bad usage or bad input (unknown command, catalog or version, malformed
     manifest, context or lock file, a typo in a condition...)

documentation (shipped with the package):
  catalog help          list the pages
  catalog help cli      every command and option, exit codes, completion
  catalog help format   the catalog format"""

VALUED_GLOBALS = ("--path", "--format", "--color")
"""The global options that take a value."""
_OTHER_GLOBALS = ("-h", "--help", "--version")


class ArgumentsError(UsageError):
    """The words of the command line do not parse: told like every error, after the
    usage of the parser that refused them (in text)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message, hint=f"see `{parser.prog} --help`")
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    """A parser whose errors are :class:`ArgumentsError`, and whose options go anywhere
    among a command's words, even before an optional positional (``catalog log NAME
    --path DIR PART``), where argparse alone would leave ``PART`` unrecognized."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        # The innermost parser that ran is the one whose usage a stray word is told with.
        self.set_defaults(parser_=self)
        self._intermixing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # argparse's intermixed parsing reads an option-like word after "--" as an option
        # (`catalog review -- --prices=/x HEAD`): after "--" every word is a positional.
        if self._intermixing or (args is not None and "--" in args) or not self._intermixable():
            return super().parse_known_args(args, namespace)
        self._intermixing = True  # argparse's intermixed parsing calls this method again
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def _intermixable(self) -> bool:
        """Whether argparse can parse this parser's words intermixed: a command's own
        parser, without sub-commands, positionals that take the rest of the line, or
        positionals in a group of exclusive arguments."""
        positionals = self._get_positional_actions()
        grouped = {id(a) for group in self._mutually_exclusive_groups for a in group._group_actions}
        return bool(positionals) and all(
            action.nargs not in (argparse.PARSER, argparse.REMAINDER) and id(action) not in grouped
            for action in positionals
        )

    def error(self, message: str) -> NoReturn:
        raise ArgumentsError(self, message)


def build_parser(only: str | None = None, *, load: bool = True) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, the parser of that one command.

    ``build_parser()`` loads every command (for documentation, completion and
    tests); the namespace's ``commands`` maps each name to its parser. With
    ``load=False`` (``catalog --help``), the commands are listed and none is
    imported. A command whose extra is missing keeps an empty parser
    when every command is loaded, and fails saying what to install when it is
    the one being run.
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
    for name, command in COMMANDS.items():
        if only is not None and name != only:
            continue  # a parser costs its building: only the command being run gets one
        sub = subparsers.add_parser(
            name, parents=[parent], help=command.help, description=command.help
        )
        if not load:
            continue
        try:
            register(name, sub)
        except MissingExtraError:
            if only is not None:
                raise
    parser.set_defaults(commands=subparsers.choices)
    return parser


def command_word(argv: Sequence[str]) -> str | None:
    """The first word of ``argv`` that is neither a global option nor its value."""
    words: Iterator[str] = iter(argv)
    for word in words:
        if word == "--":
            return next(words, None)
        if word in VALUED_GLOBALS:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def misplaced_option(argv: Sequence[str]) -> str | None:
    """The first option before the command's name that is not a global option: it is
    one of a command's (``catalog --agent explore assemble ...``) and goes after it."""
    words: Iterator[str] = iter(argv)
    for word in words:
        if word == "--" or not word.startswith("-") or word == "-":
            return None
        name = word.partition("=")[0]
        if name in VALUED_GLOBALS and "=" not in word:
            next(words, None)
        elif name not in (*VALUED_GLOBALS, *_OTHER_GLOBALS):
            return name
    return None
