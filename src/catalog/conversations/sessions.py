"""Per-conversation prompts: resolved once, persisted, reused, rebuilt on compaction.

Some agents resolve their system prompt once when a conversation starts and
send the same bytes on every turn: the prompt cache stays warm, and a
template edited mid-conversation cannot change what an ongoing conversation
sees. :class:`Sessions` does that for any catalog::

    with catalog.Sessions(cat, "prompts.sqlite") as sessions:   # or SQLiteStore(), in memory
        first = sessions.construct("conv-1", context)          # resolved and persisted
        sessions.get("conv-1")                                 # the same prompt, every turn
        text = sessions.rebuild("conv-1", context, append="Summarise the conversation so far.")

* :meth:`Sessions.construct` assembles and persists the prompt of a new
  conversation; for a conversation that has one already it returns the stored
  prompt unchanged (the first writer wins, also across processes), so a changed
  template or context only affects conversations constructed after the change.
* :meth:`Sessions.rebuild` re-resolves (after a compaction, say), persists the
  new prompt *without* the ``append`` text, and returns it *with* it: the
  compaction instructions are for that one request.
* A context without a ``session`` gets ``session.id`` = the conversation id,
  so bodies can name the conversation and know a session is attached.
* A conversation belongs to the catalog name and agent it was constructed
  for: in a store that several catalogs or agents share, ``construct``,
  ``get`` and ``rebuild`` of another catalog or agent raise a
  :class:`~catalog.errors.SessionError` rather than hand out (or overwrite)
  another prompt. Another *version* of the same catalog is the same catalog:
  it gets the prompt as stored (a changed template affects only
  conversations constructed after the change), and ``rebuild`` re-resolves
  it with the new version.

Storage goes through the :class:`~catalog.conversations.PromptStore` protocol:
:class:`~catalog.conversations.SQLiteStore` (a file one machine's processes
share, or memory) and :class:`~catalog.conversations.PostgresStore` (a
database a fleet of servers shares). Every write is one atomic transaction:
the first constructor wins and revisions are exact under any number of
concurrent processes. Both stores and :class:`Sessions` are context managers:
leaving the ``with`` block closes the connection.

For a catalog that takes a user template (see
:mod:`catalog.conversations.templates`), the template saved in the store goes
into the context of each conversation constructed or rebuilt, unless the
context sets the variable itself.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from catalog.conversations.base import PromptStore, StoredPrompt
from catalog.conversations.connect import open_store
from catalog.conversations.templates import TEMPLATE_VARIABLE, accepts_template
from catalog.engine.catalog import Catalog
from catalog.engine.telemetry import record_release
from catalog.errors import SessionError
from catalog.schema.context import Context, SessionInfo, coerce_context
from catalog.schema.manifest import MAIN_AGENT

__all__ = ["Sessions", "owned"]


def owned(
    stored: StoredPrompt, catalog: str, agent: str, *, asked: str, location: str
) -> StoredPrompt:
    """``stored``, if it was constructed for catalog name ``catalog`` (any version) and
    ``agent``; else a :class:`SessionError` naming what is stored and what was
    ``asked`` (``catalog demo 2.0.0``), in the store at ``location``."""
    if (stored.catalog, stored.agent) == (catalog, agent):
        return stored
    raise SessionError(
        f"conversation {stored.conversation_id!r} was constructed for catalog "
        f"{stored.catalog} {stored.version}, agent {stored.agent!r}, not for {asked}, "
        f"agent {agent!r}",
        file=location,
        hint=f"use catalog {stored.catalog} and agent {stored.agent!r} for this "
        "conversation, or give each catalog and agent's conversations an id of its own: "
        "everything that uses the store shares its conversation ids",
    )


class Sessions:
    """Per-conversation prompts of one catalog (and agent); see the module docstring.

    ``store`` is a :class:`~catalog.conversations.PromptStore`, or a path or URL
    (``sqlite:///FILE``, ``postgresql://...``) to open one, or nothing (in memory);
    a store these sessions open is closed by :meth:`close` (or leaving a
    ``with`` block). A store passed in stays open: it belongs to the caller,
    and other ``Sessions`` may share it. ``release``: the label of the release
    that chose this version, recorded with every prompt these sessions store
    (:class:`~catalog.conversations.Releases` gives it; None when the catalog was
    named).
    """

    def __init__(
        self,
        catalog: Catalog,
        store: PromptStore | str | Path | None = None,
        *,
        agent: str = MAIN_AGENT,
        release: str | None = None,
    ) -> None:
        catalog.agent_info(agent)  # an unknown agent fails here, not at the first construct
        self.catalog = catalog
        self.agent = agent
        self.release = release
        self._owned: PromptStore | None = None
        if store is None or isinstance(store, str | Path):
            store = self._owned = open_store(":memory:" if store is None else store)
        self.store: PromptStore = store

    def close(self) -> None:
        """Close the store these sessions opened (none passed in); closing again does nothing."""
        if self._owned is not None:
            self._owned.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resolve(
        self, conversation_id: str, context: Context | Mapping[str, Any] | None
    ) -> StoredPrompt:
        if not conversation_id:
            raise SessionError("a conversation id must not be empty")
        ctx = coerce_context(context)
        if ctx.session is None:
            ctx = ctx.model_copy(update={"session": SessionInfo(id=conversation_id)})
        if accepts_template(self.catalog) and TEMPLATE_VARIABLE not in ctx.variables:
            saved = self.store.get_template(self.catalog.name)
            if saved is not None:
                variables = {**ctx.variables, TEMPLATE_VARIABLE: saved}
                ctx = ctx.model_copy(update={"variables": variables})
        prompt = self.catalog.assemble(ctx, agent=self.agent)
        if self.release is not None:
            record_release(self.release)  # beside the prompt the assembly recorded
        return StoredPrompt(
            conversation_id=conversation_id,
            text=prompt.text,
            catalog=prompt.catalog,
            version=prompt.version,
            agent=prompt.agent,
            fingerprint=prompt.fingerprint,
            revision=0,
            created=time.time(),
            release=self.release,
        )

    def _owned_by_us(self, stored: StoredPrompt) -> StoredPrompt:
        """``stored``, if it was constructed for this catalog (any version) and agent."""
        asked = f"catalog {self.catalog.name} {self.catalog.manifest.catalog.version}"
        return owned(
            stored, self.catalog.name, self.agent, asked=asked, location=self.store.location
        )

    def construct(
        self, conversation_id: str, context: Context | Mapping[str, Any] | None = None
    ) -> StoredPrompt:
        """Resolve and persist the prompt of a new conversation; an existing one is kept
        (refused when it was constructed for another catalog or agent)."""
        return self.construct_new(conversation_id, context)[0]

    def construct_new(
        self, conversation_id: str, context: Context | Mapping[str, Any] | None = None
    ) -> tuple[StoredPrompt, bool]:
        """:meth:`construct`, also telling whether this call stored the prompt (False
        when the conversation had one, from any writer)."""
        stored = self.store.get(conversation_id)
        new = False
        if stored is None:
            fresh = self._resolve(conversation_id, context)
            stored = self.store.add(fresh)
            new = stored == fresh  # what another writer stored differs at least in time
        return self._owned_by_us(stored), new

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The persisted prompt of a conversation, or None when it was never constructed;
        one constructed for another catalog or agent is refused (:class:`SessionError`)."""
        stored = self.store.get(conversation_id)
        return None if stored is None else self._owned_by_us(stored)

    def reconstruct(
        self, conversation_id: str, context: Context | Mapping[str, Any] | None = None
    ) -> StoredPrompt:
        """Re-resolve and persist the prompt as the conversation's next revision (0 for a
        conversation never constructed); return what is stored. Atomic: concurrent
        rebuilds each get their own revision."""
        self.get(conversation_id)  # another catalog's conversation fails before assembling
        return self._owned_by_us(self.store.replace(self._resolve(conversation_id, context)))

    def appended(self, text: str, append: str | None) -> str:
        """``text`` with ``append`` (stripped) joined by the catalog's separator."""
        extra = (append or "").strip()
        if not extra:
            return text
        return f"{text}{self.catalog.separator}{extra}" if text else extra

    def rebuild(
        self,
        conversation_id: str,
        context: Context | Mapping[str, Any] | None = None,
        *,
        append: str | None = None,
    ) -> str:
        """Re-resolve and persist the prompt (:meth:`reconstruct`); return it with
        ``append`` added for this request.

        The stored prompt never holds ``append`` (compaction instructions are
        for one request); it is joined with the catalog's separator.
        """
        return self.appended(self.reconstruct(conversation_id, context).text, append)
