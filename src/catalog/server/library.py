"""What the server reads from the catalog path: catalogs by name (never a folder a client
names), compiled once and kept, each catalog's history (for the part pages and the
search), and the summaries the pages and the JSON API show.

Where a catalog comes from is told as a kind of place (:func:`source_kind`:
``bundled``, ``entry point``, ``path``), never as a folder of the server.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalog.cache import BoundedCache
from catalog.changes.history import CatalogHistory, open_history
from catalog.conversations.templates import accepts_template
from catalog.engine.catalog import Catalog
from catalog.engine.prompt import share_of
from catalog.errors import CatalogError, NotFoundError
from catalog.io.catalog_path import CatalogPath, check_name, parse_ref
from catalog.schema.manifest import PartDecl

__all__ = ["CatalogEntry", "Library", "describe", "source_kind"]

# Compiled catalogs kept in memory; an imported history has hundreds of versions.
_KEEP = 32
# Catalog histories kept in memory, each with the bodies its answers read.
_HISTORIES = 8
# Versions whose manifest figures (summary, parts, tokens) are kept, for the lists.
_ROWS = 4096


def source_kind(label: str) -> str:
    """The kind of place a catalog source label names, as any client may be told:
    ``bundled``, ``entry point`` or ``path`` (a ``--path`` or ``CATALOG_PATH`` folder,
    whose location is the server's alone)."""
    if label == "bundled":
        return "bundled"
    return "entry point" if label.startswith("entry point ") else "path"


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """A catalog name with its versions (oldest first), or the problem that keeps them
    from being listed (two folders of one version, say)."""

    name: str
    versions: tuple[str, ...]
    problem: CatalogError | None = None


def _reference(parts: Iterable[PartDecl]) -> int | None:
    """The sum of the parts' ``reference_tokens``; None when no part has one."""
    figures = [part.reference_tokens for part in parts if part.reference_tokens is not None]
    return sum(figures) if figures else None


class Library:
    """Catalogs for the server: the bundled ones, entry points, ``CATALOG_PATH`` and
    ``paths``. Versions found are compiled on first use and kept (the newest
    :data:`_KEEP`); safe to share between threads."""

    def __init__(self, paths: Iterable[str | Path] = ()) -> None:
        self.catalog_path = CatalogPath(paths)
        self._kept: BoundedCache[str, Catalog] = BoundedCache(_KEEP)
        self._rows: BoundedCache[str, dict[str, Any]] = BoundedCache(_ROWS)
        self._histories: BoundedCache[str, tuple[tuple[str, ...], CatalogHistory]] = BoundedCache(
            _HISTORIES
        )
        self._opening = threading.Lock()  # one history built at a time: it is CPU work

    def load(self, ref: str) -> Catalog:
        """The catalog ``NAME[@SPEC]`` names (PEP 440 specifier, or a bare version)."""
        name, spec = parse_ref(ref.strip())
        found = self.catalog_path.find(name, spec)
        key = f"{found.label} {found.source}"
        catalog = self._kept.get(key)
        if catalog is None:
            catalog = found.load()
            self._kept.put(key, catalog)
        return catalog

    def history(self, name: str) -> CatalogHistory:
        """The history of catalog ``name`` (log, blame, grep), opened once and kept (the
        :data:`_HISTORIES` used last) while its versions stay the same: a version added
        or removed opens it again, which reads the index from the history cache when the
        manifests are unchanged (see :mod:`catalog.changes.history.cache`)."""
        versions = tuple(
            f"{ref.label} {ref.source}" for ref in self.catalog_path.versions(check_name(name))
        )
        kept = self._histories.get(name)
        if kept is not None and kept[0] == versions:
            return kept[1]
        with self._opening:
            kept = self._histories.get(name)  # another request may have opened it meanwhile
            if kept is not None and kept[0] == versions:
                return kept[1]
            history = open_history(name, catalog_path=self.catalog_path)
            self._histories.put(name, (versions, history))
        return history

    def names(self) -> list[str]:
        """Every catalog name, sorted."""
        return self.catalog_path.names()

    def catalogs(self) -> list[CatalogEntry]:
        """Every catalog with its versions, by name; a catalog whose versions cannot be
        listed carries its problem, and the others are listed all the same."""
        entries = []
        for name in self.names():
            try:
                versions = tuple(str(ref.version) for ref in self.catalog_path.versions(name))
            except CatalogError as exc:
                entries.append(CatalogEntry(name, (), exc))
            else:
                entries.append(CatalogEntry(name, versions))
        return entries

    def versions(self, name: str) -> list[dict[str, Any]]:
        """Each version of ``name``, oldest first: version, summary, parts, the sum of the
        parts' token estimates and of their ``reference_tokens`` (None without any), read
        from the manifests once, nothing compiled."""
        check_name(name)
        rows = []
        for ref in self.catalog_path.versions(name):
            key = f"{ref.label} {ref.source}"
            row = self._rows.get(key)
            if row is None:  # reading a large manifest costs; each is read once
                manifest = ref.manifest()
                row = {
                    "version": str(ref.version),
                    "summary": manifest.catalog.summary,
                    "parts": len(manifest.part),
                    "tokens": sum(part.tokens for part in manifest.part),
                    "counter": manifest.catalog.tokenizer,
                    "reference_tokens": _reference(manifest.part),
                    "reference_counter": manifest.catalog.reference_counter,
                    "source": source_kind(ref.source),
                }
                self._rows.put(key, row)
            rows.append(row)
        if not rows:
            self.catalog_path.find(name)  # raises the "no catalog named" error with its hint
        return rows

    def template_catalog(self, ref: str | None) -> Catalog:
        """The catalog whose user template the ``/system-prompt`` routes edit: ``ref``,
        else the first catalog (by name) that takes a user template."""
        if ref is not None:
            return self.load(ref)
        for name in self.names():
            catalog = self.load(name)
            if accepts_template(catalog):
                return catalog
        raise NotFoundError(
            "no installed catalog takes a user template",
            hint="start the server with --template-catalog NAME, naming a catalog that "
            "declares [[binding]]s and a str variable 'template'",
        )


def describe(catalog: Catalog) -> dict[str, Any]:
    """A version as the JSON API and the pages show it: settings, variables, agents,
    tools and every part in order with its manifest fields."""
    manifest = catalog.manifest
    total = sum(part.decl.tokens for part in catalog.parts)
    return {
        "name": catalog.name,
        "version": str(catalog.version),
        "summary": catalog.summary,
        "source": source_kind(catalog.source),
        "tokenizer": manifest.catalog.tokenizer,
        "agents": list(catalog.agents),
        "tools": sorted(catalog.tool_names),
        "variables": [
            {
                "name": var.name,
                "type": var.type,
                "default": var.effective_default(),
                "description": var.description,
            }
            for var in manifest.variable
        ],
        "takes_template": accepts_template(catalog),
        "parts": [
            {
                "id": decl.id,
                "name": decl.name,
                "kind": decl.kind,
                "order": decl.order,
                "stability": decl.stability,
                "when": decl.when,
                "agents": list(decl.agents),
                "slot": decl.slot,
                "tokens": decl.tokens,
                "share": share_of(decl.tokens, total),
                "description": decl.description,
            }
            for decl in (part.decl for part in catalog.parts)
        ],
    }
