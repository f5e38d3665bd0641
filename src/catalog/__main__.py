"""``python -m catalog``: the same as the ``catalog`` command."""

from catalog.cli import run

raise SystemExit(run())
