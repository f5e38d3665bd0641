"""Filling a :class:`~catalog.schema.context.Context` from the filesystem and the runtime.

* :mod:`catalog.gathering.gatherer`: :func:`gather`, which reads what a catalog's
  ``[sources]`` name into a context, and what is read in which order;
* :mod:`catalog.gathering.provenance`: the record of every file read or skipped, and why;
* :mod:`catalog.gathering.safe`: the limits on what is read (size, reach, links, YAML).
"""

from catalog.gathering._files import SourceWarning
from catalog.gathering._runtime import Clock
from catalog.gathering.gatherer import GatherOptions, gather, gather_with_provenance
from catalog.gathering.provenance import GatheredFile, Gathering

__all__ = [
    "Clock",
    "GatherOptions",
    "GatheredFile",
    "Gathering",
    "SourceWarning",
    "gather",
    "gather_with_provenance",
]
