"""``python -m catalog``: the same as the ``catalog`` command."""

from catalog.cli import main

raise SystemExit(main())
