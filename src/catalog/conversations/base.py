"""What every prompt store shares: the stored record, the store protocol and bounded retries.

A store keeps two things: the prompt of each conversation (constructed once,
replaced at each rebuild with an exact revision) and the user templates of the
catalogs that accept one (one text per catalog name). Every write is one
atomic transaction, so processes and servers sharing a store lose nothing.
Every store refuses the same texts alike (:func:`check_texts`): SQLite would keep a
NUL character that PostgreSQL refuses, and neither encodes a lone surrogate.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import (
    dataclass,
)
from typing import (
    Final,
    Protocol,
    TypeVar,
    runtime_checkable,
)

from catalog.errors import (
    ContextError,
    StoreUnavailableError,
    UsageError,
)
from catalog.schema.text import text_problem

__all__ = [
    "COLUMNS",
    "MAX_PROMPT_CHARS",
    "RETRY_SECONDS",
    "PromptStore",
    "StoredPrompt",
    "check_prompt",
    "check_prompt_size",
    "check_texts",
    "schema",
    "with_retries",
]

RETRY_SECONDS = 30.0
"""How long a store retries an operation that finds the database busy before giving up."""

MAX_PROMPT_CHARS: Final = 2_000_000
"""The longest prompt a store keeps (characters, about half a million tokens): a
context that makes a longer one is refused rather than written to every store and
memory that holds it."""

_T = TypeVar("_T")

COLUMNS = "conversation_id, text, catalog, version, agent, fingerprint, revision, created"
"""The columns of the prompts table, in :class:`StoredPrompt`'s field order."""


def schema(prompts: str, templates: str, real: str) -> tuple[str, str]:
    """``CREATE TABLE IF NOT EXISTS`` statements for the two tables every SQL store keeps,
    named ``prompts`` and ``templates``, with ``real`` the database's floating-point type."""
    return (
        f"""CREATE TABLE IF NOT EXISTS {prompts} (
    conversation_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    catalog TEXT NOT NULL,
    version TEXT NOT NULL,
    agent TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    revision INTEGER NOT NULL,
    created {real} NOT NULL
)""",
        f"""CREATE TABLE IF NOT EXISTS {templates} (
    catalog TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    updated {real} NOT NULL
)""",
    )


@dataclass(frozen=True, slots=True)
class StoredPrompt:
    """The persisted prompt of one conversation.

    ``revision`` is 0 when constructed and grows by exactly one at every
    rebuild; ``created`` is the time (seconds since the epoch) it was last written.
    """

    conversation_id: str
    text: str
    catalog: str
    version: str
    agent: str
    fingerprint: str
    revision: int = 0
    created: float = 0.0


def check_texts(**texts: str) -> None:
    """Refuse any of ``texts`` (a field name and its text each) that some store could not
    keep: a NUL character or a lone surrogate (:class:`~catalog.errors.UsageError`
    naming the field), so every store answers the same."""
    for name, text in texts.items():
        problem = text_problem(text, nul=True)
        if problem is not None:
            raise UsageError(problem.message, key=name, hint=problem.hint)


def check_prompt_size(text: str) -> None:
    """Refuse a prompt longer than :data:`MAX_PROMPT_CHARS` (a
    :class:`~catalog.errors.ContextError`: the context made it)."""
    if len(text) > MAX_PROMPT_CHARS:
        raise ContextError(
            f"the assembled prompt has {len(text)} characters; at most {MAX_PROMPT_CHARS} are kept",
            hint="send a smaller context: the files and variables it carries make the prompt",
        )


def check_prompt(prompt: StoredPrompt) -> StoredPrompt:
    """``prompt``, when every store can keep it (see :func:`check_texts` and
    :func:`check_prompt_size`)."""
    check_prompt_size(prompt.text)
    check_texts(
        conversation_id=prompt.conversation_id,
        text=prompt.text,
        catalog=prompt.catalog,
        version=prompt.version,
        agent=prompt.agent,
    )
    return prompt


@runtime_checkable
class PromptStore(Protocol):
    """Where :class:`~catalog.conversations.Sessions` keeps prompts and user templates.

    Implement it to plug in another shared store; each method must be atomic.
    """

    location: str
    """Where the store is (a file, a URL without its password), for messages."""

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The stored prompt of a conversation, or None."""

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        """Store ``prompt`` unless its conversation has one; return what is stored."""

    def replace(self, prompt: StoredPrompt) -> StoredPrompt:
        """Store ``prompt`` as the conversation's next revision and return what is stored.

        The revision written is the stored one plus one (0 when there is none),
        whatever ``prompt.revision`` says. When the stored prompt belongs to
        another catalog name or agent, nothing is written and it is returned.
        """

    def get_template(self, catalog: str) -> str | None:
        """The user template stored for catalog ``catalog``, or None."""

    def set_template(self, catalog: str, text: str) -> None:
        """Store ``text`` as catalog ``catalog``'s user template."""

    def close(self) -> None:
        """Release connections; closing twice does nothing."""


def with_retries(
    operation: Callable[[], _T],
    *,
    retryable: Callable[[Exception], bool],
    location: str,
    seconds: float = RETRY_SECONDS,
) -> _T:
    """Run ``operation``, again after a short growing pause while it fails with an error
    ``retryable`` accepts, for at most ``seconds``; then :class:`StoreUnavailableError`.

    Each run must be a whole transaction that did nothing when it failed.
    """
    deadline = time.monotonic() + seconds
    pause = 0.002
    while True:
        try:
            return operation()
        except Exception as exc:
            if not retryable(exc):
                raise
            if time.monotonic() + pause > deadline:
                how = (
                    f"stayed busy or unreachable for {seconds:g}s"
                    if seconds > 0
                    else "is busy or unreachable"
                )
                reason = " ".join(str(exc).split())  # drivers write several lines
                raise StoreUnavailableError(
                    f"the prompt store {how}: {reason}",
                    file=location,
                    hint="retry later; check that the database is up and not locked "
                    "by a long transaction",
                ) from None
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 2, 0.1)
