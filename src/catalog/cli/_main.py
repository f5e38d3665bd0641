"""Run one ``catalog`` command line: parse it, run the command, and turn every library
error into a one-paragraph message on stderr (never a traceback)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from catalog.cli._options import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, resolve_globals
from catalog.cli._parser import ArgumentsError, build_parser, command_word, misplaced_option
from catalog.cli._registry import COMMANDS, extra_needed
from catalog.cli._report import wants_json, write_error
from catalog.errors import CatalogError, UsageError
from catalog.text.visible import visible

__all__ = ["TRACEBACK_ENV", "main"]

TRACEBACK_ENV = "CATALOG_TRACEBACK"
"""Set to 1 to let an unforeseen failure end in Python's traceback (for a bug report)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (words that do not parse exit
    with status 2, as argparse does, and ``--help`` and ``--version`` with 0)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["__complete"]:  # what the completion scripts ask, not a command
        from catalog.cli._completion import complete

        return complete(args_list[1:])
    as_json = wants_json(args_list)
    command = command_word(args_list)
    try:
        misplaced = misplaced_option(args_list)
        if misplaced is not None:
            from catalog.cli._usage import misplaced as misplaced_error

            raise misplaced_error(misplaced, args_list)
        if command is not None and command not in COMMANDS:
            from catalog.text.suggest import did_you_mean

            raise UsageError(
                f"{command!r} is not a command",
                hint=did_you_mean(command, COMMANDS, what="commands"),
            )
        parser = build_parser(command, load=command is not None)
        args, extras = parser.parse_known_args(args_list)
        if extras:
            from catalog.cli._usage import unrecognized

            raise unrecognized(args.parser_, extras)
        resolve_globals(args)
        with extra_needed(args.command):
            status: int = args.func(args)
    except ArgumentsError as exc:
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
