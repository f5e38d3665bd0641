"""The models of every file and request format: manifests and their ``[sources]``,
contexts and lock files.

Each is a frozen, strict pydantic model (:class:`~catalog.schema._base.SchemaModel`):
unknown keys are refused, values are not converted from one type to another,
and every problem is reported at once, at its key path, in the words of
someone writing the file (:class:`~catalog.errors.RecordError`). Nothing here
reads a file: :mod:`catalog.io` reads them and places each problem at its line.
:func:`problems` words pydantic's errors where something else ran the validation (the
server's request bodies, validated by FastAPI), so a client reads the same words;
:func:`keys_at` gives it the keys a model allows where an unknown key stands.
"""

from catalog.schema._base import Items, SchemaModel, validate
from catalog.schema._keys import keys_at
from catalog.schema._problems import problems

__all__ = ["Items", "SchemaModel", "keys_at", "problems", "validate"]
