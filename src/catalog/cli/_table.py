"""Text tables whose columns fit what they hold.

A column is as wide as its longest cell, so a long part id (imported
catalogs have ids of 90 characters) pushes the columns after it over instead
of running into them; the last column is not padded.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["aligned"]


def aligned(rows: Sequence[Sequence[str]], *, right: Collection[int] = ()) -> list[str]:
    """Each row's cells joined by two spaces, padded to their column's width (numbers
    in the columns ``right`` names are aligned on the right)."""
    if not rows:
        return []
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if column in right else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines
