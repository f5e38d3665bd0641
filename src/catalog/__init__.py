"""agent-prompt-catalog: an LLM agent's system prompt as versioned, checked data.

>>> import catalog
>>> cat = catalog.load("coding-agent", "~=1.0")
>>> prompt = cat.assemble({"tools": ["Bash", "Read"]})
>>> prompt.text, prompt.fingerprint, prompt.parts, prompt.excluded   # doctest: +SKIP

The names of :data:`__all__` are the public API. Importing this package
loads none of them: each is imported from its module when first used
(PEP 562), so ``import catalog`` costs a few milliseconds and a program
pays for the compiler or the stores only when it uses them (it never
imports pydantic). Everything else is imported from its own module: the
context's sub-records from :mod:`catalog.context`, the error subclasses from
:mod:`catalog.errors`, the parts of an assembled prompt from
:mod:`catalog.prompt`.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
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
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from catalog.catalog_path import CatalogPath, load_dir
    from catalog.compiled import Catalog
    from catalog.context import Context, load_context
    from catalog.conversations import PromptStore, Sessions, SQLiteStore, StoredPrompt
    from catalog.diff.compute import CatalogDiff, diff
    from catalog.gather import SourceWarning, gather
    from catalog.prompt import AssembledPrompt

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
    "diff",
    "gather",
    "load",
    "load_context",
    "load_dir",
]

__version__ = "0.1.0"

_LAZY = {
    "AssembledPrompt": "catalog.prompt",
    "Catalog": "catalog.compiled",
    "CatalogDiff": "catalog.diff.compute",
    "CatalogPath": "catalog.catalog_path",
    "Context": "catalog.context",
    "load_context": "catalog.context",
    "PromptStore": "catalog.conversations",
    "SQLiteStore": "catalog.conversations",
    "Sessions": "catalog.conversations",
    "StoredPrompt": "catalog.conversations",
    "SourceWarning": "catalog.gather",
    "load_dir": "catalog.catalog_path",
}
"""Public names and the module each is imported from on first use."""

_MOVED = {
    **dict.fromkeys(("AgentInfo", "CompiledPart"), "catalog.assemble"),
    **dict.fromkeys(("ExcludedPart", "Reminder", "ToolDescription", "UsedPart"), "catalog.prompt"),
    **dict.fromkeys(
        (
            "Command",
            "Environment",
            "Identity",
            "McpServer",
            "OutputStyle",
            "ProjectFile",
            "SessionInfo",
            "Skill",
            "ToolInfo",
            "UserProfile",
        ),
        "catalog.context",
    ),
    **dict.fromkeys(
        (
            "EvaluationError",
            "ExpressionError",
            "ImporterError",
            "SourceError",
            "StoreUnavailableError",
            "TemplateError",
        ),
        "catalog.errors",
    ),
}
"""Names this package exported before its API was narrowed, and where they live."""


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (and keep it)."""
    module = _LAZY.get(name)
    if module is None:
        module = _MOVED.get(name)
        if module is None:
            raise AttributeError(f"module 'catalog' has no attribute {name!r}")
        warnings.warn(
            f"catalog.{name} is deprecated: import it from {module}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(module), name)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"diff", "gather"})


class _Package(types.ModuleType):
    """This package's module type: ``catalog.diff`` and ``catalog.gather`` stay functions.

    Each name is also a subpackage (``catalog.diff.compute``,
    ``catalog.gather``). Python binds a subpackage to its parent's attribute
    when it is first imported, which would replace the function; these
    properties keep the function, whoever imports the subpackage first.
    """

    @property
    def diff(self) -> Callable[..., CatalogDiff]:
        """:func:`catalog.diff.compute.diff`."""
        from catalog.diff.compute import diff

        return diff

    @diff.setter
    def diff(self, subpackage: object) -> None:
        """The import system binding the subpackage: reach it through ``sys.modules``."""

    @property
    def gather(self) -> Callable[..., Context]:
        """:func:`catalog.gather.gather`."""
        from catalog.gather import gather

        return gather

    @gather.setter
    def gather(self, subpackage: object) -> None:
        """The import system binding the subpackage: reach it through ``sys.modules``."""


sys.modules[__name__].__class__ = _Package


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
    from catalog.catalog_path import CatalogPath

    store = CatalogPath(paths)
    if lock is not None:
        from catalog.lock import load_locked

        return load_locked(name, spec, lock, store)
    return store.load(name, spec)
