"""The keys a table of a document may hold, read from the models that describe it.

An unknown key is most often a misspelt one (``ordre`` for ``order``, ``toolz``
for ``tools``): to name the key meant, a message needs the keys allowed where it
stands. :func:`keys_at` follows a key path of the input through the model's
field types (models, lists, tables of values, unions, optional values) to the
models a table there may be, and gives their keys as written in files.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence, Set
from typing import Any

from pydantic import BaseModel

__all__ = ["keys_at"]

_SEQUENCES = frozenset({list, tuple, set, frozenset, Sequence, Set})
_MAPPINGS = frozenset({dict, Mapping})
_UNIONS = frozenset({typing.Union, types.UnionType})


def keys_at(model: type[BaseModel], path: Sequence[str | int]) -> tuple[str, ...]:
    """The keys the table at ``path`` of a document of ``model`` may hold (by their
    names in files: a field's alias when it has one); empty when no model tells."""
    kinds: list[Any] = [model]
    for element in path:
        kinds = [inner for kind in kinds for inner in _inside(kind, element)]
    keys: dict[str, None] = {}
    for model_there in (found for kind in kinds for found in _models(kind)):
        keys.update(dict.fromkeys(f.alias or n for n, f in model_there.model_fields.items()))
    return tuple(keys)


def _models(kind: Any) -> list[type[BaseModel]]:
    """The models a value of ``kind`` may be (one, or the members of a union)."""
    origin = typing.get_origin(kind)
    if origin is typing.Annotated:
        return _models(typing.get_args(kind)[0])
    if origin in _UNIONS:
        return [found for member in typing.get_args(kind) for found in _models(member)]
    return [kind] if isinstance(kind, type) and issubclass(kind, BaseModel) else []


def _inside(kind: Any, element: str | int) -> list[Any]:
    """The types a value of ``kind`` may hold at ``element`` (a key or a position)."""
    origin = typing.get_origin(kind)
    if origin is typing.Annotated:
        return _inside(typing.get_args(kind)[0], element)
    if origin in _UNIONS:
        return [inner for member in typing.get_args(kind) for inner in _inside(member, element)]
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        if not isinstance(element, str):
            return []
        fields = kind.model_fields.items()
        return [field.annotation for name, field in fields if element in (name, field.alias)]
    arguments = typing.get_args(kind)
    if origin in _SEQUENCES and isinstance(element, int) and arguments:
        return [arguments[0]]
    if origin in _MAPPINGS and isinstance(element, str) and len(arguments) == 2:
        return [arguments[1]]
    return []
