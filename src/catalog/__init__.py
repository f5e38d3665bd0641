"""prompt-catalog: an LLM agent's system prompt as versioned, checked data.

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
from catalog.compiled import AgentInfo, Catalog, CompiledPart
from catalog.context import (
    Command,
    Context,
    Environment,
    McpServer,
    OutputStyle,
    ProjectFile,
    Skill,
    load_context,
)
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
    SourceError,
    TemplateError,
)
from catalog.loader import load_dir
from catalog.store import Store

__all__ = [
    "AgentInfo",
    "AssembledPrompt",
    "BudgetError",
    "Catalog",
    "CatalogError",
    "Command",
    "CompiledPart",
    "Context",
    "ContextError",
    "Environment",
    "EvaluationError",
    "ExcludedPart",
    "ExpressionError",
    "ImporterError",
    "LockError",
    "ManifestError",
    "McpServer",
    "NotFoundError",
    "OutputStyle",
    "ProjectFile",
    "Reminder",
    "Skill",
    "SourceError",
    "Store",
    "TemplateError",
    "ToolDescription",
    "UsedPart",
    "__version__",
    "load",
    "load_context",
    "load_dir",
]

__version__ = "0.1.0"


def load(name: str, spec: str | None = None, *, paths: Iterable[str | Path] = ()) -> Catalog:
    """Load the newest version of catalog ``name`` satisfying the PEP 440 ``spec``.

    ``spec`` is e.g. ``"==1.1.0"``, ``"~=1.1"``, ``">=1,<2"`` or a bare
    version; ``None`` means the newest. ``paths`` adds catalog folders to the
    bundled catalogs, the entry-point catalogs and ``CATALOG_PATH``.
    """
    return Store(paths).load(name, spec)
