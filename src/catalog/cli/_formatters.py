"""argparse's help formatters, told the terminal's width.

Left to find the width itself, every formatter argparse makes (one for each
option added, to check it) imports :mod:`shutil`, and with it ``bz2``,
``lzma`` and ``zlib``: a few milliseconds of every command's start spent on
a width that only help and usage text use.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["HelpFormatter", "RawHelpFormatter"]


def _columns() -> int:
    """The terminal's width found as :func:`shutil.get_terminal_size` finds it:
    ``$COLUMNS`` first, then the terminal of standard output, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter (descriptions re-wrapped), as wide as the terminal."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        # argparse keeps two columns free at the right edge.
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class RawHelpFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """The formatter that keeps a description's and an epilog's own line breaks."""
