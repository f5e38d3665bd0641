"""Deprecated path of compiled parts and agent plans, now in :mod:`catalog.engine.assemble`.

It works, with a warning, until the next release.
"""

from catalog import _moved_module

__getattr__ = _moved_module(__name__, "catalog.engine.assemble")
