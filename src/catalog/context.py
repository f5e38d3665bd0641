"""Deprecated path of the context's models, now in :mod:`catalog.schema.context`.

It works, with a warning, until the next release.
"""

from catalog import _moved_module

__getattr__ = _moved_module(__name__, "catalog.schema.context")
