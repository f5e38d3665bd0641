"""The base of every schema model, and the field types they share.

A schema model is a frozen pydantic model: unknown keys are refused
(``extra="forbid"``) and values are not converted from one type to another
(``strict``: ``"5"`` is not an integer, ``"yes"`` is not true, an integer is
taken for a float). A list in a file is a tuple in the model
(:data:`Items`). :func:`validate` is how the package builds one from what a
file or a client gave: every problem at once, worded by
:mod:`catalog.schema._problems`, in a :class:`~catalog.errors.RecordError`
that the reader of the file places at its line. Building a model from
keywords in Python raises pydantic's own ``ValidationError``, as any
pydantic model does.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.json_schema import (
    DEFAULT_REF_TEMPLATE,
    GenerateJsonSchema,
    JsonSchemaMode,
    JsonSchemaValue,
)
from pydantic_core import core_schema

from catalog.errors import RecordError
from catalog.schema._keys import keys_at
from catalog.schema._problems import MAX_WORDED, problems

__all__ = ["Items", "SchemaModel", "sorted_table", "validate"]

_T = TypeVar("_T")
_M = TypeVar("_M", bound=BaseModel)


def _in_order(value: Any) -> Any:
    """A set given from Python code for a list, sorted: the same prompt every run (by
    ``repr`` when its items do not compare, texts and numbers mixed say)."""
    if not isinstance(value, set | frozenset):
        return value
    try:
        return sorted(value)
    except TypeError:
        return sorted(value, key=repr)


Items = Annotated[tuple[_T, ...], Field(strict=False), BeforeValidator(_in_order)]
"""A list of a file (an array of JSON), held as a tuple; a tuple or a set is taken too."""


def sorted_table(value: Mapping[str, Any]) -> dict[str, Any]:
    """A table as a plain dict sorted by key: dumps are the same whatever order a caller used."""
    return dict(sorted(value.items()))


class _EditorSchema(GenerateJsonSchema):
    """JSON Schema for editors: a property is named by its key, without a title of its own,
    and a model is described by the first paragraph of its docstring (the rest is for
    the package's maintainers)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        found = super().model_schema(schema)
        description = found.get("description")
        if isinstance(description, str):
            found["description"] = " ".join(description.split("\n\n")[0].split())
        return found


class SchemaModel(BaseModel):
    """Base of the models of files and requests: frozen, strict, no unknown keys."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        frozen=True,
        defer_build=True,
        validate_by_alias=True,
        validate_by_name=False,
    )

    @classmethod
    def model_json_schema(  # type: ignore[override]
        cls,
        by_alias: bool = True,
        ref_template: str = DEFAULT_REF_TEMPLATE,
        schema_generator: type[GenerateJsonSchema] = _EditorSchema,
        mode: JsonSchemaMode = "validation",
        **options: Any,
    ) -> dict[str, Any]:
        """The JSON Schema (draft 2020-12) of the model's input, for editors."""
        return super().model_json_schema(by_alias, ref_template, schema_generator, mode, **options)


def validate(model: type[_M], data: Any) -> _M:
    """``data`` (a mapping, or already an instance) checked and built into ``model``;
    every problem at once in a :class:`~catalog.errors.RecordError`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        omitted = max(0, len(errors) - MAX_WORDED)
        allowed = functools.partial(keys_at, model)
        raise RecordError(problems(errors, data, allowed), omitted=omitted) from None
