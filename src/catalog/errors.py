"""The one exception hierarchy of the package.

Every error the library raises on purpose is a :class:`CatalogError`. Each one
can name the file it is about, the line and column where there is one, the
dotted key path inside a manifest (``part[3].when``) and a hint saying what
to do. Subclasses also derive from the built-in exception that fits, so
callers that already catch ``ValueError`` or ``LookupError`` keep working.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Self, TypeVar

__all__ = [
    "OTHERS_SHOWN",
    "BadReferenceError",
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
    "Problem",
    "RecordError",
    "ReviewError",
    "SessionError",
    "SourceError",
    "StoreUnavailableError",
    "TemplateError",
    "UsageError",
    "format_key",
    "parse_key",
]


def format_key(path: Sequence[str | int]) -> str:
    """A key path as messages write it: ``("part", 3, "when")`` -> ``part[3].when``."""
    key = ""
    for item in path:
        key += f"[{item}]" if isinstance(item, int) else (f".{item}" if key else str(item))
    return key


def parse_key(key: str) -> tuple[str | int, ...]:
    """A key path as :func:`format_key` writes it, split again: ``("part", 3, "when")``."""
    parts: list[str | int] = []
    for name, index in re.findall(r"([A-Za-z_][\w-]*)|\[(\d+)\]", key):
        parts.append(int(index) if index else name)
    return tuple(parts)


class CatalogError(Exception):
    """Base of every error raised by the ``catalog`` package.

    ``others`` holds the further problems found in the same input (a manifest
    with four missing keys), each an error of its own placed like this one;
    the text of the error lists them after the first.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | Sequence[str | int] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.key = key if key is None or isinstance(key, str) else format_key(key) or None
        self.hint = hint
        self.others: tuple[CatalogError, ...] = ()
        self.omitted = 0  # further problems found but not worded, only counted

    def located(
        self,
        *,
        file: str | None = None,
        key: str | Sequence[str | int] | None = None,
        line: int | None = None,
        column: int | None = None,
        lines: Callable[[Sequence[str | int]], int | None] | None = None,
        columns: Callable[[Sequence[str | int], int], tuple[int, int] | None] | None = None,
        hint: str | None = None,
    ) -> Self:
        """A copy placed where the caller knows it happened: the one way an error
        moves outward to a file, a key path and a line.

        Inner code (the expression compiler, say) knows a column or a key
        relative to what it was given; each caller on the way out adds what it
        knows. An error that already names its ``file`` is placed: only a
        missing ``hint`` is filled in. Otherwise ``file`` is set, ``key`` (the
        path of what the caller handed down) goes in front of the error's own
        key (``part[3]`` + ``when`` gives ``part[3].when``), and an error
        without a line takes ``line``, or the line ``lines`` finds for its
        whole key path (a lookup of the file's key positions, asked only
        here), together with ``column`` when given. A column the error holds
        from inside a value (an expression's) becomes the file's line and
        column through ``columns``; placed in a file without it, the column is
        dropped rather than shown as if it were the file's. The further
        problems of :attr:`others` are placed the same way.
        """
        located = copy.copy(self)
        located.hint = self.hint or hint
        located.others = tuple(
            other.located(
                file=file, key=key, line=line, column=column, lines=lines, columns=columns
            )
            for other in self.others
        )
        if self.file is not None:
            return located
        located.file = file
        if key is not None:
            prefix = key if isinstance(key, str) else format_key(key)
            own = self.key or ""
            joined = prefix + ("." if own and not own.startswith("[") else "") + own
            located.key = joined or None
        if self.line is None:
            inner = self.column
            place = None
            if line is None and inner is not None and columns is not None and located.key:
                place = columns(parse_key(located.key), inner)
            if place is not None:
                located.line, located.column = place
                return located
            if line is None and lines is not None and located.key:
                line = lines(parse_key(located.key))
            located.line = line
            if column is not None or file is not None:
                located.column = column
        return located

    def headline(self) -> str:
        """``file:line:column: key: message``, as much of it as is known."""
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
        return f"{where}{key}{self.message}"

    @property
    def unlisted(self) -> int:
        """How many further problems the text does not list: the others past
        :data:`OTHERS_SHOWN`, and those found but never worded."""
        return max(0, len(self.others) - OTHERS_SHOWN) + self.omitted

    def __str__(self) -> str:
        lines = [self.headline()]
        lines += [f"  {other.headline()}" for other in self.others[:OTHERS_SHOWN]]
        if self.unlisted:
            lines.append(f"  (and {self.unlisted} more problems)")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


OTHERS_SHOWN = 20
"""How many further problems an error's text lists (:attr:`CatalogError.others` holds all)."""


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


_E = TypeVar("_E", bound=CatalogError)


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a record's input: where (a key path), what kind, in what words.

    ``kind`` is one of ``extra``, ``missing``, ``type``, ``list``, ``table``,
    ``choice``, ``pattern``, ``bounds``, ``length`` and ``value`` (a check
    refused it; ``error`` is the exception it raised).
    """

    loc: tuple[str | int, ...]
    kind: str
    message: str
    error: Exception | None = None


class RecordError(CatalogError, ValueError):
    """Input does not fit a record (a manifest table, a context, a lock): every problem,
    the first one in the message and the others in :attr:`~CatalogError.others`.

    Readers of files turn it into the error of what they read (:class:`ManifestError`,
    :class:`ContextError`, :class:`LockError`) with the file and line.
    """

    def __init__(self, problems: Sequence[Problem], *, omitted: int = 0) -> None:
        first, *rest = problems
        super().__init__(first.message, key=first.loc or None)
        self.problems = tuple(problems)
        self.others = tuple(CatalogError(p.message, key=p.loc or None) for p in rest)
        self.omitted = omitted

    def as_error(self, error_cls: type[_E], hint: str) -> _E:
        """This error as the error of what was read (:class:`ManifestError`, say): the
        same problems at the same key paths, and ``hint``. The reader then places it in
        its file with :meth:`~CatalogError.located`, as every error is placed."""
        error = error_cls(self.message, key=self.key, hint=hint)
        error.others = tuple(error_cls(p.message, key=p.key) for p in self.others)
        error.omitted = self.omitted
        return error


class BudgetError(CatalogError, ValueError):
    """The required parts alone exceed the token budget."""


class UsageError(CatalogError, ValueError):
    """A call got an argument it cannot use: a token counter that is unknown or needs the
    network, more cache breakpoints than a request may carry."""


class BadReferenceError(NotFoundError, UsageError):
    """A ``NAME@SPEC`` that can name no catalog, refused before any folder is looked at:
    a name outside the naming rule, an empty or malformed version specifier. A
    :class:`NotFoundError` (nothing is found by it) that is a :class:`UsageError` too
    (it is written wrong): a server answers it with 400, not 404."""


class ImporterError(CatalogError, ValueError):
    """Importing failed: the source is not in the expected format, git failed, or the
    output folder already holds a different version of the same name."""


class LockError(CatalogError, ValueError):
    """A lock file is malformed, or the installed catalog does not match it."""


class ReviewError(CatalogError, ValueError):
    """A review or a cost cannot be worked out: a revision that names no commit, a
    prices file that is malformed, a model the prices do not list, a bound that does not
    parse, a comment the code host refused."""


class SourceError(CatalogError, OSError):
    """Gathering context from the filesystem or the runtime failed."""


class SessionError(CatalogError, OSError):
    """A per-conversation prompt store cannot be opened, read or written, or holds the
    conversation asked for under another catalog or agent."""


class StoreUnavailableError(SessionError):
    """A prompt store cannot be reached or stayed busy past its retry bound: the
    operation did nothing and may be retried (a server answers 503)."""
