"""agent-prompt-catalog: an LLM agent's system prompt as versioned, checked data.

>>> import catalog
>>> cat = catalog.load("coding-agent", "~=1.0")
>>> prompt = cat.assemble({"tools": ["Bash", "Read"]})
>>> prompt.text, prompt.fingerprint, prompt.parts, prompt.excluded   # doctest: +SKIP

The names of :data:`__all__` are the public API. Importing this package
loads none of them: each is imported from its module when first used
(PEP 562), so ``import catalog`` costs a few milliseconds and a program
pays for the compiler or the stores only when it uses them. Everything
else is imported from its own module: the context's models from
:mod:`catalog.schema.context`, the error subclasses from
:mod:`catalog.errors`, the parts of an assembled prompt from
:mod:`catalog.engine.prompt`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from catalog.errors import (
    BudgetError,
    CatalogError,
    ContextError,
    LockError,
    ManifestError,
    NotFoundError,
    SessionError,
    UsageError,
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from catalog.cache import clear_caches
    from catalog.changes.compute import CatalogDiff, diff
    from catalog.conversations import PromptStore, Sessions, SQLiteStore, StoredPrompt
    from catalog.engine.catalog import Catalog
    from catalog.engine.prompt import AssembledPrompt
    from catalog.gathering import SourceWarning, gather
    from catalog.io.catalog_path import CatalogPath, load_dir
    from catalog.io.contexts import load_context
    from catalog.schema.context import Context

__all__ = [
    "AssembledPrompt",
    "BudgetError",
    "Catalog",
    "CatalogDiff",
    "CatalogError",
    "CatalogPath",
    "Context",
    "ContextError",
    "LockError",
    "ManifestError",
    "NotFoundError",
    "PromptStore",
    "SQLiteStore",
    "SessionError",
    "Sessions",
    "SourceWarning",
    "StoredPrompt",
    "UsageError",
    "__version__",
    "clear_caches",
    "diff",
    "gather",
    "load",
    "load_context",
    "load_dir",
]

__version__ = "0.1.0"

_LAZY = {
    "AssembledPrompt": "catalog.engine.prompt",
    "Catalog": "catalog.engine.catalog",
    "CatalogDiff": "catalog.changes.compute",
    "diff": "catalog.changes.compute",
    "gather": "catalog.gathering",
    "CatalogPath": "catalog.io.catalog_path",
    "Context": "catalog.schema.context",
    "load_context": "catalog.io.contexts",
    "PromptStore": "catalog.conversations",
    "SQLiteStore": "catalog.conversations",
    "Sessions": "catalog.conversations",
    "StoredPrompt": "catalog.conversations",
    "SourceWarning": "catalog.gathering",
    "load_dir": "catalog.io.catalog_path",
    "clear_caches": "catalog.cache",
}
"""Public names and the module each is imported from on first use."""


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (and keep it)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'catalog' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def load(
    name: str,
    spec: str | None = None,
    *,
    paths: Iterable[str | Path] = (),
    lock: str | Path | None = None,
) -> Catalog:
    """Load the newest version of catalog ``name`` satisfying the PEP 440 ``spec``.

    ``spec`` is e.g. ``"==1.1.0"``, ``"~=1.1"``, ``">=1,<2"`` or a bare
    version; ``None`` means the newest. ``paths`` adds catalog folders, searched
    before ``CATALOG_PATH``, the entry-point catalogs and the bundled ones. With
    ``lock`` (a file written by ``catalog lock``) the locked version is loaded
    and any difference from the lock raises :class:`LockError`.
    """
    from catalog.io.catalog_path import CatalogPath

    catalog_path = CatalogPath(paths)
    if lock is not None:
        from catalog.io.lockfile import load_locked

        return load_locked(name, spec, lock, catalog_path)
    return catalog_path.load(name, spec)
