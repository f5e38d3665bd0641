"""The one exception hierarchy of the package.

Every error the library raises on purpose is a :class:`CatalogError`. Each one
can name the file it is about, the line and column where there is one, the
dotted key path inside a manifest (``part[3].when``) and a hint saying what
to do. Subclasses also derive from the built-in exception that fits, so
callers that already catch ``ValueError`` or ``LookupError`` keep working.
"""

from __future__ import annotations

import copy
from typing import Self

__all__ = [
    "BudgetError",
    "CatalogError",
    "ContextError",
    "EvaluationBudgetError",
    "EvaluationError",
    "ExpressionError",
    "ImporterError",
    "LockError",
    "ManifestError",
    "NotFoundError",
    "SessionError",
    "SourceError",
    "StoreUnavailableError",
    "TemplateError",
    "UsageError",
]


class CatalogError(Exception):
    """Base of every error raised by the ``catalog`` package."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.hint = hint

    def located(
        self,
        *,
        file: str | None = None,
        line: int | None = None,
        key: str | None = None,
        hint: str | None = None,
    ) -> Self:
        """Return a copy with the location fields filled in where still empty.

        Inner code (the expression compiler, say) knows the column; the code
        that called it knows the file, the line and the key path.
        """
        located = copy.copy(self)
        located.file = self.file or file
        located.line = self.line if self.line is not None else line
        located.key = self.key or key
        located.hint = self.hint or hint
        return located

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        elif self.column is not None:
            where = f"column {self.column}: "
        key = f"{self.key}: " if self.key else ""
        text = f"{where}{key}{self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class ManifestError(CatalogError, ValueError):
    """A catalog manifest or one of its part files is malformed or tampered."""


class ExpressionError(CatalogError, ValueError):
    """A condition or placeholder expression is malformed, unsafe or names an unknown variable."""


class TemplateError(ExpressionError):
    """A part body's template syntax is malformed (unclosed block, stray tag...)."""


class EvaluationError(CatalogError, RuntimeError):
    """A well-formed expression failed on the values of a given context."""


class EvaluationBudgetError(EvaluationError):
    """An expression or a body render did more work than its fixed budget allows;
    ``expression`` is the source of the expression that spent it, when known."""

    expression: str | None = None


class NotFoundError(CatalogError, LookupError):
    """No catalog of that name, or no version satisfying the requested specifier."""


class ContextError(CatalogError, ValueError):
    """An assembly context (file, ``--set`` value, Python mapping) is invalid."""


class BudgetError(CatalogError, ValueError):
    """The required parts alone exceed the token budget."""


class UsageError(CatalogError, ValueError):
    """A call got an argument it cannot use: a token counter that is unknown or needs the
    network, more cache breakpoints than a request may carry."""


class ImporterError(CatalogError, ValueError):
    """Importing failed: the source is not in the expected format, git failed, or the
    output folder already holds a different version of the same name."""


class LockError(CatalogError, ValueError):
    """A lock file is malformed, or the installed catalog does not match it."""


class SourceError(CatalogError, OSError):
    """Gathering context from the filesystem or the runtime failed."""


class SessionError(CatalogError, OSError):
    """A per-conversation prompt store cannot be opened, read or written, or holds the
    conversation asked for under another catalog or agent."""


class StoreUnavailableError(SessionError):
    """A prompt store cannot be reached or stayed busy past its retry bound: the
    operation did nothing and may be retried (a server answers 503)."""
