"""The base of the server's request bodies: the library's own models.

A body is a :class:`~catalog.schema.SchemaModel` (strict, unknown keys refused)
whose fields are the library's models (a context is a
:class:`~catalog.schema.context.Context`), so the OpenAPI description shows
their schemas and a client's mistakes are worded as a TOML writer's are (see
:mod:`catalog.server.errors`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from catalog.schema import SchemaModel

__all__ = ["Ref", "RequestBody"]

Ref = Annotated[str, Field(min_length=1, max_length=200, description="NAME[@SPEC]")]
"""A catalog named as a request names it: ``NAME`` or ``NAME@SPEC``."""


class RequestBody(SchemaModel):
    """Base of a route's JSON body."""

    # Built at once: FastAPI hands a body's model to pydantic inside an Annotated alias,
    # which pydantic warns about for a model whose build was deferred.
    model_config = ConfigDict(defer_build=False)
