"""What the server reads from the catalog path: catalogs by name (never a folder a client
names), compiled once and kept, and the summaries the pages and the JSON API show."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from catalog.conversations.templates import accepts_template
from catalog.engine.catalog import Catalog
from catalog.engine.prompt import share_of
from catalog.errors import NotFoundError
from catalog.io.catalog_path import CatalogPath, parse_ref
from catalog.schema.manifest import PartDecl

__all__ = ["Library", "describe", "tool_names"]

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*", re.IGNORECASE)
# Compiled catalogs kept in memory; an imported history has hundreds of versions.
_KEEP = 32
# A tool named in a condition: "Bash" in tools.
_TOOL_IN_CONDITION = re.compile(r"""["']([^"'\n]{1,64})["']\s+in\s+tools\b""")


def tool_names(catalog: Catalog) -> list[str]:
    """Every tool name the catalog reacts to: tool parts' names, sub-agents' tools and
    names tested with ``"X" in tools`` in conditions; sorted."""
    names: set[str] = set()
    for part in catalog.parts:
        decl = part.decl
        if decl.kind == "tool" and decl.name:
            names.add(decl.name)
        names.update(_TOOL_IN_CONDITION.findall(decl.when))
    for agent in catalog.manifest.agent:
        names.update(agent.tools)
    return sorted(names)


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
        self._kept: OrderedDict[str, Catalog] = OrderedDict()
        self._rows: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def load(self, ref: str) -> Catalog:
        """The catalog ``NAME[@SPEC]`` names (PEP 440 specifier, or a bare version)."""
        name, spec = parse_ref(ref.strip())
        if not _NAME.fullmatch(name):
            raise NotFoundError(
                f"{name!r} is not a catalog name", hint="write NAME or NAME@SPEC, e.g. pi@1.0.0"
            )
        found = self.catalog_path.find(name, spec)
        key = f"{found.label} {found.source}"
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        catalog = found.load()
        with self._lock:
            self._kept[key] = catalog
            while len(self._kept) > _KEEP:
                self._kept.popitem(last=False)
        return catalog

    def names(self) -> list[str]:
        """Every catalog name, sorted."""
        return self.catalog_path.names()

    def versions(self, name: str) -> list[dict[str, Any]]:
        """Each version of ``name``, oldest first: version, summary, parts, the sum of the
        parts' token estimates and of their ``reference_tokens`` (None without any), read
        from the manifests once, nothing compiled."""
        if not _NAME.fullmatch(name):
            raise NotFoundError(f"{name!r} is not a catalog name")
        rows = []
        for ref in self.catalog_path.versions(name):
            key = f"{ref.label} {ref.source}"
            row = self._rows.get(key)
            if row is None:  # reading a large manifest costs; each is read once
                manifest = ref.manifest()
                row = self._rows[key] = {
                    "version": str(ref.version),
                    "summary": manifest.catalog.summary,
                    "parts": len(manifest.part),
                    "tokens": sum(part.tokens for part in manifest.part),
                    "reference_tokens": _reference(manifest.part),
                    "source": ref.source,
                }
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
        "source": catalog.source,
        "tokenizer": manifest.catalog.tokenizer,
        "agents": list(catalog.agents),
        "tools": tool_names(catalog),
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
