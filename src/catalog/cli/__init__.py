"""The ``catalog`` command line.

Each command is one entry of :data:`COMMANDS` (its one-line help and the extra it
needs) and one module ``catalog.cli._<name>`` exposing ``register(parser)`` (its
arguments, its description and its ``run``); only the module of the command being
run is imported, and ``catalog --help`` imports none. Every library error becomes a
one-paragraph message on stderr, never a traceback.

Exit codes (docs/cli.md): 0 success; 1 problems found (``validate``, a
differing ``diff``, a failed ``verify``, ``stamp --check``, a ``grep`` that
matches nothing); 2 bad usage or bad input, or a command whose extra is not
installed; 3 a failure no reader foresaw (a bug).
"""

from __future__ import annotations

from catalog.cli._main import main
from catalog.cli._parser import build_parser
from catalog.cli._registry import COMMANDS

__all__ = ["COMMANDS", "build_parser", "main"]
