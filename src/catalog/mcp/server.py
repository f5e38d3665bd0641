"""The MCP server of ``catalog mcp``: the prompts and resources of a
:class:`~catalog.mcp.library.PromptLibrary` through the official ``mcp`` SDK.

``prompts/list`` lists every catalog's agents; ``prompts/get`` gives one user
message holding the assembled text, with ``_meta`` naming the catalog, version,
agent, release (when a label chose the version), fingerprint and token count.
``resources/list`` gives the part bodies of each catalog's newest version and
``resources/templates/list`` the address of any version's. A bad request is an
MCP error carrying the project's message (its ``data`` holds the key and the
hint): invalid params (-32602) for a prompt, version, tool or value that does not
fit, resource not found (-32002) for a part, internal error (-32603) when the
prompt store cannot be read (its message, which
names the store, is logged, not sent). The SDK opens an OpenTelemetry span for every
request (when OpenTelemetry is installed); an assembly records its prompt on it.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import PurePath
from typing import Any, Final, TypeVar

import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from catalog import __version__
from catalog.errors import CatalogError, NotFoundError, SessionError
from catalog.mcp.library import RESOURCE_TEMPLATE, PromptLibrary

__all__ = ["RESOURCE_NOT_FOUND", "build_server", "serve_stdio"]

RESOURCE_NOT_FOUND: Final = -32002
"""The error code the protocol gives a resource that does not exist."""

_MIME: Final = "text/markdown"
_STORE_FAILED: Final = (
    "the prompt store cannot be read, so no release label can be followed; the "
    "server's log says why (give a version instead)"
)
_MAX_MESSAGE: Final = 4000
_log = logging.getLogger("catalog.mcp")
_T = TypeVar("_T")


def _mcp_error(exc: CatalogError, code: int = types.INVALID_PARAMS) -> MCPError:
    """``exc`` as an MCP error: its text as the message, its key and hint as data."""
    data = {name: value for name, value in (("key", exc.key), ("hint", exc.hint)) if value}
    text = str(exc)
    for error in (exc, *exc.others):
        if error.file:
            text = text.replace(error.file, _in_catalog(error.file))
    if len(text) > _MAX_MESSAGE:  # a long name repeated in an engine's message
        text = f"{text[:_MAX_MESSAGE]}..."
    return MCPError(code, text, data or None)


def _in_catalog(file: str) -> str:
    """Where ``file`` is within the catalogs (``NAME/VERSION/FILE``): the folders they
    are served from are the server's business, not the client's."""
    return "/".join(PurePath(file).parts[-3:])


async def _answer(work: Callable[[], _T], *, missing: int = types.INVALID_PARAMS) -> _T:
    """``work()`` run in a worker thread (loading reads files), its errors told as MCP
    errors: ``missing`` for what does not exist, internal for the store."""
    try:
        return await anyio.to_thread.run_sync(work)
    except SessionError as exc:
        # Its message names where the store is, which the client has no business knowing.
        _log.warning("the prompt store cannot be read: %s", exc.message)
        raise MCPError(types.INTERNAL_ERROR, _STORE_FAILED) from None
    except NotFoundError as exc:
        raise _mcp_error(exc, missing) from None
    except CatalogError as exc:
        raise _mcp_error(exc) from None


def build_server(library: PromptLibrary) -> Server[Any]:
    """The MCP server offering ``library``'s prompts and part bodies."""

    def listing() -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=entry.name,
                    description=entry.description,
                    arguments=[
                        types.PromptArgument(name=a.name, description=a.description, required=False)
                        for a in entry.arguments
                    ],
                    _meta={
                        "catalog": entry.catalog,
                        "agent": entry.agent,
                        "version": entry.version,
                    },
                )
                for entry in library.entries()
            ]
        )

    async def list_prompts(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return await _answer(listing)

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        resolved = await _answer(lambda: library.get(params.name, params.arguments))
        prompt = resolved.prompt
        return types.GetPromptResult(
            description=f"{prompt.catalog} {prompt.version}, agent {prompt.agent}",
            messages=[
                types.PromptMessage(
                    role="user", content=types.TextContent(type="text", text=prompt.text)
                )
            ],
            _meta=resolved.meta(),
        )

    def resources() -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=found.uri,
                    name=found.name,
                    description=found.description or None,
                    mimeType=_MIME,
                )
                for found in library.resources()
            ]
        )

    async def list_resources(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await _answer(resources)

    async def list_templates(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resourceTemplates=[
                types.ResourceTemplate(
                    uriTemplate=RESOURCE_TEMPLATE,
                    name="part",
                    description="the body of a part of any version of a catalog, as written",
                    mimeType=_MIME,
                )
            ]
        )

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = await _answer(lambda: library.read(uri), missing=RESOURCE_NOT_FOUND)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mimeType=_MIME, text=text)]
        )

    return Server(
        "catalog",
        version=__version__,
        instructions="Versioned system prompts: one prompt per catalog and agent.",
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def serve_stdio(server: Server[Any]) -> None:
    """Answer one client over standard input and output until it closes either."""
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    except* (BrokenPipeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        # The client closed its end: nothing is left to answer, nor anyone to tell.
        # Python's own flush of standard output at exit would fail too: point it
        # at nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
