"""Deprecated path of an assembled prompt and its parts, now in :mod:`catalog.engine.prompt`.

It works, with a warning, until the next release.
"""

from catalog import _moved_module

__getattr__ = _moved_module(__name__, "catalog.engine.prompt")
