"""Per-conversation prompts: constructed once, reused every turn, rebuilt on compaction."""

from __future__ import annotations

from catalog.conversations.sessions import (
    PromptStore,
    Sessions,
    SQLiteStore,
    StoredPrompt,
)

__all__ = [
    "PromptStore",
    "SQLiteStore",
    "Sessions",
    "StoredPrompt",
]
