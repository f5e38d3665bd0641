"""agent-prompt-catalog: an LLM agent's system prompt as versioned, checked data.

>>> import catalog
>>> cat = catalog.load("coding-agent", "~=1.0")
>>> prompt = cat.assemble({"tools": ["Bash", "Read"]})
>>> prompt.text, prompt.fingerprint, prompt.parts, prompt.excluded   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from catalog.assemble import (
    AssembledPrompt,
    ExcludedPart,
    Reminder,
    ToolDescription,
    UsedPart,
)
from catalog.catalog_path import CatalogPath, load_dir
from catalog.compiled import AgentInfo, Catalog, CompiledPart
from catalog.context import (
    Command,
    Context,
    Environment,
    Identity,
    McpServer,
    OutputStyle,
    ProjectFile,
    SessionInfo,
    Skill,
    ToolInfo,
    UserProfile,
    load_context,
)
from catalog.conversations import PromptStore, Sessions, SQLiteStore, StoredPrompt
from catalog.diff.compute import CatalogDiff, diff
from catalog.errors import (
    BudgetError,
    CatalogError,
    ContextError,
    EvaluationError,
    ExpressionError,
    ImporterError,
    LockError,
    ManifestError,
    NotFoundError,
    SessionError,
    SourceError,
    StoreUnavailableError,
    TemplateError,
    UsageError,
)
from catalog.gather import SourceWarning, gather

__all__ = [
    "AgentInfo",
    "AssembledPrompt",
    "BudgetError",
    "Catalog",
    "CatalogDiff",
    "CatalogError",
    "CatalogPath",
    "Command",
    "CompiledPart",
    "Context",
    "ContextError",
    "Environment",
    "EvaluationError",
    "ExcludedPart",
    "ExpressionError",
    "Identity",
    "ImporterError",
    "LockError",
    "ManifestError",
    "McpServer",
    "NotFoundError",
    "OutputStyle",
    "ProjectFile",
    "PromptStore",
    "Reminder",
    "SQLiteStore",
    "SessionError",
    "SessionInfo",
    "Sessions",
    "Skill",
    "SourceError",
    "SourceWarning",
    "StoreUnavailableError",
    "StoredPrompt",
    "TemplateError",
    "ToolDescription",
    "ToolInfo",
    "UsageError",
    "UsedPart",
    "UserProfile",
    "__version__",
    "diff",
    "gather",
    "load",
    "load_context",
    "load_dir",
]

__version__ = "0.1.0"


def load(
    name: str,
    spec: str | None = None,
    *,
    paths: Iterable[str | Path] = (),
    lock: str | Path | None = None,
) -> Catalog:
    """Load the newest version of catalog ``name`` satisfying the PEP 440 ``spec``.

    ``spec`` is e.g. ``"==1.1.0"``, ``"~=1.1"``, ``">=1,<2"`` or a bare
    version; ``None`` means the newest. ``paths`` adds catalog folders to the
    bundled catalogs, the entry-point catalogs and ``CATALOG_PATH``. With
    ``lock`` (a file written by ``catalog lock``) the locked version is loaded
    and any difference from the lock raises :class:`LockError`.
    """
    store = CatalogPath(paths)
    if lock is not None:
        from catalog.lock import load_locked

        return load_locked(name, spec, lock, store)
    return store.load(name, spec)
