"""The ``catalog`` program: ``python -m catalog`` and the ``catalog`` script."""

import os


def main() -> int:
    """Run the command line as a program.

    pydantic looks for plugins among every installed distribution's entry points
    when it builds its first model, reading each ``entry_points.txt`` on
    ``sys.path``; ``python -m catalog`` puts the working directory there, and a
    folder nobody here wrote may hold a named pipe by that name that would block
    the command for ever. The program uses no pydantic plugin, so it turns their
    discovery off unless the caller's environment says otherwise (the catalog
    path reads entry points itself, safely).
    """
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from catalog.cli import main as run  # after the setting: importing builds models

    return run()


if __name__ == "__main__":
    raise SystemExit(main())
