"""The ``catalog`` program: ``python -m catalog`` and the ``catalog`` script."""

import gc


def main() -> int:
    """Run the command line as a program, with a collector tuned for one command
    (see :func:`catalog.cli.run`, which it calls).

    The collector's youngest generation is collected after 100,000 new objects
    rather than 700 (2,000 from Python 3.13): importing the command line, then
    loading and compiling a catalog, make tens of thousands of objects that
    live until the command ends, and collecting every few hundred walked them
    again and again to free nothing (a twentieth of ``catalog assemble``).
    Cyclic garbage is still collected, in larger batches.
    """
    gc.set_threshold(100_000, *gc.get_threshold()[1:])  # the older generations as they are
    from catalog.cli import run  # after the threshold: importing makes objects too

    return run()


if __name__ == "__main__":
    raise SystemExit(main())
