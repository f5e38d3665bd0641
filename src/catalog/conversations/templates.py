"""User templates: a system prompt the user writes, kept globally in a prompt store.

Some catalogs let their users write the whole system prompt as a bracket
template (``[system:date]``, ``[if file:AGENTS.md] ... [endif]``). A catalog
*accepts a user template* when it declares ``[[binding]]``s (the names a
template may use) and a ``str`` variable named ``template`` (whose default is
the built-in template). :class:`UserTemplate` gives such a catalog the three
operations of an editor: read the template (the stored one, else the default),
save one, and list the variables with dynamic types (``file:``) marked.

:class:`~catalog.conversations.Sessions` puts the stored template into the
context of each conversation it *constructs* (unless the context sets the
variable itself), so a saved template affects only conversations constructed
(or rebuilt) after it.
"""

from __future__ import annotations

from typing import Any, Final

from catalog.conversations.base import PromptStore
from catalog.engine.catalog import Catalog
from catalog.errors import SessionError, UsageError

__all__ = [
    "MAX_TEMPLATE_CHARS",
    "TEMPLATE_VARIABLE",
    "UserTemplate",
    "accepts_template",
    "variable_catalog",
]

TEMPLATE_VARIABLE: Final = "template"
"""The variable holding a user template, in a catalog that accepts one."""

MAX_TEMPLATE_CHARS: Final = 100_000
"""The longest user template :meth:`UserTemplate.put` stores (characters)."""


def accepts_template(catalog: Catalog) -> bool:
    """Whether ``catalog`` takes a user template (see the module docstring)."""
    return bool(catalog.bindings) and catalog.variable_types.get(TEMPLATE_VARIABLE) == "str"


class UserTemplate:
    """The user template of one catalog in one store: get, put and the variable catalog."""

    def __init__(self, catalog: Catalog, store: PromptStore) -> None:
        if not accepts_template(catalog):
            raise UsageError(
                f"catalog {catalog.name} {catalog.version} takes no user template",
                hint=f"a catalog takes one when it declares [[binding]]s and a str variable "
                f"{TEMPLATE_VARIABLE!r}",
            )
        self.catalog = catalog
        self.store = store

    @property
    def default(self) -> str:
        """The catalog's built-in template, used until one is saved."""
        return str(self.catalog.variables[TEMPLATE_VARIABLE])

    def get(self) -> str:
        """The saved template, else the built-in default."""
        stored = self.store.get_template(self.catalog.name)
        return self.default if stored is None else stored

    def put(self, text: str) -> str:
        """Save ``text`` as the template (for conversations constructed from now on)."""
        if len(text) > MAX_TEMPLATE_CHARS:
            raise SessionError(
                f"the template has {len(text)} characters; at most {MAX_TEMPLATE_CHARS} are kept",
                hint="shorten the template, or move long texts into files it references "
                "with [file:PATH]",
            )
        self.store.set_template(self.catalog.name, text)
        return text

    def variables(self) -> list[dict[str, Any]]:
        """The variables a template may use; see :func:`variable_catalog`."""
        return variable_catalog(self.catalog)


def variable_catalog(catalog: Catalog) -> list[dict[str, Any]]:
    """One entry per ``[[binding]]``: ``type``, ``name``, ``description`` and ``dynamic``
    (true for a type such as ``file:`` whose names are free, e.g. paths; its ``name`` is empty)."""
    entries = []
    for decl in catalog.bindings:
        type_, _, name = decl.name.partition(":")
        entries.append(
            {
                "type": type_,
                "name": name,
                "description": decl.description,
                "dynamic": not name,
            }
        )
    return entries
