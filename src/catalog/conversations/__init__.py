"""Per-conversation prompts: constructed once, reused every turn, rebuilt on compaction.

:class:`Sessions` does it for one catalog and agent on a :class:`PromptStore`:
:class:`SQLiteStore` (embedded) or ``PostgresStore`` (a fleet's shared
database; :mod:`catalog.conversations.postgres`, needs psycopg). A store URL
opens either (:func:`open_store`). :class:`UserTemplate` keeps the template of a
catalog that takes one from its users. :class:`Releases` names releases
(``production``) that choose the version of each new conversation, with a
canary, a rollback and their history, in the same store.
"""

from __future__ import annotations

from catalog.conversations.base import (
    Canary,
    PromptStore,
    Release,
    ReleaseStore,
    ReleaseTarget,
    StoredPrompt,
)
from catalog.conversations.connect import default_store_url, open_store
from catalog.conversations.releases import Releases
from catalog.conversations.sessions import Sessions
from catalog.conversations.sqlite import SQLiteStore
from catalog.conversations.templates import UserTemplate, accepts_template, variable_catalog

__all__ = [
    "Canary",
    "PromptStore",
    "Release",
    "ReleaseStore",
    "ReleaseTarget",
    "Releases",
    "SQLiteStore",
    "Sessions",
    "StoredPrompt",
    "UserTemplate",
    "accepts_template",
    "default_store_url",
    "open_store",
    "variable_catalog",
]
