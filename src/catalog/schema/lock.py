"""The model of a lock file (``catalog lock``): a catalog version pinned to exact bytes.

:mod:`catalog.io.lockfile` writes, reads and verifies lock files.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from catalog.schema._base import Items, SchemaModel
from catalog.schema.manifest import MAIN_AGENT, CatalogName, VersionText

__all__ = ["LOCK_FORMAT", "Lock", "LockedCatalog", "LockedPrompt"]

LOCK_FORMAT: Literal[1] = 1
_SHA = r"^[0-9a-f]{64}$"


class LockedCatalog(SchemaModel):
    """The ``[catalog]`` table of a lock: which version, and its manifest's hash.

    The name follows the rule of every catalog name: a lock (a file, or posted
    to the server) names a catalog, never a folder to load."""

    name: CatalogName
    version: VersionText
    manifest_sha256: Annotated[str, Field(pattern=_SHA)]


class LockedPrompt(SchemaModel):
    """A ``[[prompt]]``: the fingerprint of the prompt assembled from one context."""

    context: str
    agent: str = MAIN_AGENT
    fingerprint: Annotated[str, Field(pattern=_SHA)]
    data: dict[str, Any] = Field(default_factory=dict)


class Lock(SchemaModel):
    """A whole lock file."""

    lock: Literal[1] = LOCK_FORMAT
    catalog: LockedCatalog
    parts: dict[str, Annotated[str, Field(pattern=_SHA)]]
    prompt: Items[LockedPrompt] = ()
