"""What to tell a user whose words do not parse: an option matched against the
command's own, an option put before the command that belongs after it (loaded
only then: the hints read the command's parser)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from catalog.cli._completion import options
from catalog.cli._parser import VALUED_GLOBALS, ArgumentsError, build_parser
from catalog.cli._registry import COMMANDS
from catalog.errors import UsageError
from catalog.text.suggest import guess

__all__ = ["misplaced", "unrecognized"]


def unrecognized(parser: argparse.ArgumentParser, extras: Sequence[str]) -> ArgumentsError:
    """The error for words ``parser`` (a command's) does not take: an option is matched
    against the command's own, so ``--explian`` is answered with ``--explain``."""
    error = ArgumentsError(parser, f"unrecognized arguments: {' '.join(extras)}")
    stray = next((word.partition("=")[0] for word in extras if word.startswith("--")), None)
    if stray is not None:
        flags = [flag for action in options(parser) for flag in action.option_strings]
        close = guess(stray, flags)
        if close:
            error.hint = f"{close} {error.hint}"
    return error


def misplaced(option: str, argv: Sequence[str]) -> UsageError:
    """The error for ``option`` given before the command: one of the command's own goes
    after its name; anything else is most likely a misspelt global option."""
    command = next((word for word in argv if word in COMMANDS), None)
    own = command is not None and any(
        option in action.option_strings
        for action in options(build_parser(command).get_default("commands")[command])
    )
    close = guess(option, VALUED_GLOBALS, n=1)
    return UsageError(
        f"{option!r} is not an option before the command: only --path, --format and --color are",
        hint=close
        if close and not own
        else f"put it after the command's name: catalog {command or 'COMMAND'} ... {option}",
    )
