"""dispatch's three template routes and the per-conversation prompt routes.

``GET/PUT /system-prompt`` and ``GET /system-prompt/variables`` are exactly
dispatch's: ``{"template": ...}`` and ``{"variables": [...]}``; when the store
is unavailable, GET answers the default template at once and PUT 503. A
conversation is constructed once (the first writer wins, later PUTs get the
persisted prompt), for a catalog or for a release (which chooses the version),
read every turn and rebuilt on compaction; with a token, its prompt is read
with the token too (it may hold the client's files).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field, model_validator

from catalog.conversations.base import StoredPrompt, check_label
from catalog.conversations.sessions import Sessions
from catalog.conversations.templates import MAX_TEMPLATE_CHARS, UserTemplate, variable_catalog
from catalog.errors import NotFoundError, StoreUnavailableError
from catalog.schema.context import Context
from catalog.schema.manifest import (
    MAIN_AGENT,
)
from catalog.server.bodies import Ref, RequestBody
from catalog.server.deps import (
    Reader,
    State,
    Writer,
)
from catalog.server.releases import releases_of
from catalog.server.state import ServerState

__all__ = ["router"]

router = APIRouter()

ConversationId = Annotated[str, Path(min_length=1, max_length=256)]


class TemplateBody(BaseModel):
    """dispatch's SetSystemPromptTemplateRequest and SystemPromptTemplateResponse."""

    template: Annotated[str, Field(max_length=MAX_TEMPLATE_CHARS)]


class Variable(BaseModel):
    """dispatch's SystemPromptVariable: ``[type:name]``; ``dynamic`` types take any name."""

    type: str
    name: str
    description: str
    dynamic: bool


class VariablesBody(BaseModel):
    """dispatch's SystemPromptVariablesResponse."""

    variables: list[Variable]


class ConstructBody(RequestBody):
    """What a conversation's first turn sends: a catalog (``NAME[@SPEC]``) or a release
    (which chooses the version), one of the two."""

    catalog: Ref | None = None
    release: Annotated[
        str | None, Field(min_length=1, max_length=100, description="a release label")
    ] = None
    agent: str = MAIN_AGENT
    context: Context = Field(default_factory=Context)

    @model_validator(mode="after")
    def _one_source(self) -> ConstructBody:
        if (self.catalog is None) == (self.release is None):
            raise ValueError("give either catalog (NAME[@SPEC]) or release (a label)")
        return self


class RebuildBody(RequestBody):
    """What a compaction turn sends; ``catalog`` (``NAME[@SPEC]``) defaults to the
    version the conversation's release chooses now, for a conversation constructed
    for a release, else to the version it was last resolved with."""

    context: Context = Field(default_factory=Context)
    append: str | None = None
    catalog: Ref | None = None


class ConversationPrompt(BaseModel):
    """A conversation's prompt; after a rebuild, ``text`` holds the appended text too
    (the stored prompt, which ``fingerprint`` identifies, does not). ``release`` is the
    label of the release that chose the version, or null."""

    conversation_id: str
    text: str
    fingerprint: str
    revision: int
    catalog: str
    version: str
    agent: str
    release: str | None


def _answer(stored: StoredPrompt, text: str | None = None) -> ConversationPrompt:
    return ConversationPrompt(
        conversation_id=stored.conversation_id,
        text=stored.text if text is None else text,
        fingerprint=stored.fingerprint,
        revision=stored.revision,
        catalog=stored.catalog,
        version=stored.version,
        agent=stored.agent,
        release=stored.release,
    )


def _template(state: ServerState, *, wait: bool = True) -> UserTemplate:
    catalog = state.library.template_catalog(state.settings.template_catalog)
    return UserTemplate(catalog, state.store(wait=wait))


@router.get("/system-prompt", tags=["dispatch"])
def get_template(state: State) -> TemplateBody:
    """The user template: the one saved, else the built-in default (also, at once, when
    the store is unavailable)."""
    try:
        return TemplateBody(template=_template(state, wait=False).get())
    except StoreUnavailableError as exc:
        state.store_failed(exc)
        catalog = state.library.template_catalog(state.settings.template_catalog)
        return TemplateBody(template=str(catalog.variables["template"]))


@router.put("/system-prompt", tags=["dispatch"], dependencies=[Writer])
def put_template(body: TemplateBody, state: State) -> TemplateBody:
    """Save the user template for every conversation constructed from now on (503 when
    the store is unavailable)."""
    return TemplateBody(template=_template(state).put(body.template))


@router.get("/system-prompt/variables", tags=["dispatch"])
def get_variables(state: State) -> VariablesBody:
    """The variables a template may use; ``file:`` is ``dynamic`` (any path is a name)."""
    catalog = state.library.template_catalog(state.settings.template_catalog)
    return VariablesBody(variables=[Variable(**entry) for entry in variable_catalog(catalog)])


@router.put("/conversations/{conversation_id}", tags=["conversations"], dependencies=[Writer])
def construct(
    conversation_id: ConversationId, body: ConstructBody, state: State
) -> ConversationPrompt:
    """Construct the conversation's prompt once, with the catalog named or the version
    the release chooses; a conversation that has one keeps it (the first writer wins)
    and gets it back. 409 when the release's version cannot be loaded here."""
    if body.release is not None:
        label = check_label(body.release, key="body.release")
        stored, new = releases_of(state).construct(
            label, conversation_id, body.context, agent=body.agent
        )
    else:
        catalog = state.library.load(str(body.catalog))
        sessions = Sessions(catalog, state.store(), agent=body.agent)
        stored, new = sessions.construct_new(conversation_id, body.context)
    if new:
        state.metrics.constructed(stored)
    return _answer(stored)


@router.get("/conversations/{conversation_id}", tags=["conversations"], dependencies=[Reader])
def get_conversation(conversation_id: ConversationId, state: State) -> ConversationPrompt:
    """The persisted prompt (404 when the conversation was never constructed)."""
    stored = state.store().get(conversation_id)
    if stored is None:
        raise NotFoundError(
            f"conversation {conversation_id!r} has no prompt",
            hint="construct it first: PUT /conversations/{id}",
        )
    return _answer(stored)


@router.post(
    "/conversations/{conversation_id}/rebuild", tags=["conversations"], dependencies=[Writer]
)
def rebuild(conversation_id: ConversationId, body: RebuildBody, state: State) -> ConversationPrompt:
    """Re-resolve on compaction: persist the new prompt (next revision) without
    ``append`` and return it with ``append`` added. A conversation of a release is
    rebuilt with the version the release chooses now (unless the body names a
    catalog, which takes it out of the release)."""
    store = state.store()
    stored = store.get(conversation_id)
    if body.catalog is None and stored is not None and stored.release is not None:
        sessions = releases_of(state).sessions(conversation_id)
    else:
        if body.catalog is not None:
            ref = body.catalog
        elif stored is not None:
            ref = f"{stored.catalog}@=={stored.version}"
        else:
            raise NotFoundError(
                f"conversation {conversation_id!r} has no prompt to rebuild",
                hint="construct it first (PUT /conversations/{id}), or name the catalog in "
                "the body",
            )
        agent = stored.agent if stored is not None else MAIN_AGENT
        sessions = Sessions(state.library.load(ref), store, agent=agent)
    fresh = sessions.reconstruct(conversation_id, body.context)
    state.metrics.rebuilt(fresh)
    return _answer(fresh, sessions.appended(fresh.text, body.append))
