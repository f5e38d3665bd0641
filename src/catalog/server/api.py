"""The library's read operations as JSON: catalogs, versions, show, assemble (with the
explain table and tokens), tokens, diff and verifying a posted lock. Nothing here
writes; the OpenAPI description is at ``/openapi.json``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import Field

from catalog.changes import (
    diff,
)
from catalog.conversations.base import (
    check_prompt_size,
)
from catalog.engine.prompt import (
    AssembledPrompt,
)
from catalog.io.lockfile import (
    parse_lock,
    verify,
    verify_report,
)
from catalog.schema.context import Context
from catalog.schema.manifest import (
    MAIN_AGENT,
)
from catalog.server.bodies import Ref, RequestBody
from catalog.server.deps import State
from catalog.server.errors import public, public_hint
from catalog.server.library import describe

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["catalogs"])


class AssembleBody(RequestBody):
    """A catalog, an agent and a context to assemble."""

    catalog: Ref
    agent: str = MAIN_AGENT
    context: Context = Field(default_factory=Context)
    counter: str | None = Field(default=None, description="a token counter; default: the catalog's")


class VerifyBody(RequestBody):
    """The text of a lock file written by ``catalog lock``."""

    lock: str


@router.get("/catalogs")
def list_catalogs(state: State) -> dict[str, Any]:
    """Every catalog name with its versions (oldest first), and ``problem``: null, or
    what keeps this catalog's versions from being listed (the others are listed)."""
    entries = []
    for entry in state.library.catalogs():
        problem = None
        if entry.problem is not None:
            message, hint = entry.problem.message, entry.problem.hint
            problem = {"message": public(message, state), "hint": public_hint(hint, state)}
        entries.append({"name": entry.name, "versions": list(entry.versions), "problem": problem})
    return {"catalogs": entries}


@router.get("/catalogs/{name}")
def list_versions(name: str, state: State) -> dict[str, Any]:
    """Each version of a catalog: summary, number of parts and the sum of their token
    estimates (the token history)."""
    return {"name": name, "versions": state.library.versions(name)}


@router.get("/catalogs/{name}/{version}")
def show(name: str, version: str, state: State) -> dict[str, Any]:
    """A version: settings, variables, agents, tools and every part in order."""
    return describe(state.library.load(f"{name}@=={version}"))


def _assembled(body: AssembleBody, state: State) -> AssembledPrompt:
    """The prompt ``body`` asks for, refused before anything counts its tokens when it is
    longer than a store would keep (:data:`~catalog.conversations.base.MAX_PROMPT_CHARS`)."""
    catalog = state.library.load(body.catalog)
    prompt = catalog.assemble(body.context, agent=body.agent, counter=body.counter)
    check_prompt_size(prompt.text)
    return prompt


@router.post("/assemble")
def assemble(body: AssembleBody, state: State) -> dict[str, Any]:
    """The assembled prompt (text, fingerprint, tokens, parts in and out with why, tools)
    and its explain table as text."""
    prompt = _assembled(body, state)
    return prompt.to_dict() | {"explain": prompt.explain()}


@router.post("/tokens")
def tokens(body: AssembleBody, state: State) -> dict[str, Any]:
    """Where the assembled prompt's tokens go: per part, separators, tools, dropped."""
    return _assembled(body, state).token_report()


@router.get("/diff")
def diff_versions(
    state: State,
    old: Annotated[str, Query(min_length=1, max_length=200, description="NAME[@SPEC]")],
    new: Annotated[str, Query(min_length=1, max_length=200, description="NAME[@SPEC]")],
) -> dict[str, Any]:
    """The structured diff of two versions (the JSON form of ``catalog diff``)."""
    result = diff(state.library.load(old), state.library.load(new))
    return result.to_dict()


@router.post("/verify")
def verify_lock(body: VerifyBody, state: State) -> dict[str, Any]:
    """Whether the installed catalog matches a posted lock, with every difference."""
    read = parse_lock(body.lock, "the posted lock")
    catalog, problems = verify(read, state.library.catalog_path)
    return verify_report(read, catalog, problems)
