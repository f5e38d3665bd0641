"""The ``catalog`` program: ``python -m catalog`` and the ``catalog`` script."""

from catalog.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
