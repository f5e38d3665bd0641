"""Sharing part records between the versions of an imported history.

A release changes a few parts of hundreds; writing every part's record into
every version's manifest made the manifests most of the store. Instead each
version's manifest names shared parts files (``[[parts_from]]``): a *base*
holding every record of some earlier version, then one *layer* per later
version that changed something, holding only the records it changed. A
version therefore adds one small parts file and a manifest of a few lines.

Loading a version reads its base and its layers, records that later layers
replaced included; when those stale records outnumber
:data:`STALE_RATIO` times the live ones, or the layers pass
:data:`MAX_LAYERS`, the next version starts a new base, so loading stays
proportional to the version's own size and the store to what changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from catalog.importers.writer import CatalogWriter

__all__ = ["MAX_LAYERS", "STALE_RATIO", "PartLayers"]

STALE_RATIO = 2.0
"""Replaced records a version may read, as a share of its live ones, before a new base."""
MAX_LAYERS = 64
"""Parts files a version may name before a new base."""


@dataclass
class _Layer:
    file: str
    sha256: str
    ids: frozenset[str]


class PartLayers:
    """The ``[[parts_from]]`` entries of successive versions written by ``writer``.

    Call :meth:`entries` once per version, oldest first, with each part's
    ``[[part]]`` table as TOML text: equal text means an unchanged record.
    """

    def __init__(self, writer: CatalogWriter) -> None:
        self._writer = writer
        self._layers: list[_Layer] = []
        self._live: dict[str, str] = {}  # id -> the table text the layers give it
        self._stored = 0  # records in the current base and layers

    def entries(self, tables: dict[str, str]) -> list[dict[str, Any]]:
        """The ``[[parts_from]]`` tables of a version whose parts are ``tables``
        (id -> ``[[part]]`` TOML, in manifest order); new parts files are written
        with the version."""
        changed = [pid for pid, table in tables.items() if self._live.get(pid) != table]
        stale = self._stored + len(changed) - len(tables)
        if (
            not self._layers
            or stale > STALE_RATIO * len(tables)
            or (changed and len(self._layers) >= MAX_LAYERS)
        ):
            self._layers, self._stored = [], 0
            changed = list(tables)
        if changed:
            text = "\n".join(tables[pid] for pid in changed)
            file, digest = self._writer.parts_file(text)
            self._layers.append(_Layer(file, digest, frozenset(changed)))
            self._stored += len(changed)
        self._live = dict(tables)
        entries: list[dict[str, Any]] = []
        for layer in self._layers:
            entry: dict[str, Any] = {"file": layer.file, "sha256": layer.sha256}
            gone = sorted(layer.ids - tables.keys())
            if gone:
                entry["omit"] = gone
            entries.append(entry)
        return entries
