"""The tool names a catalog knows: every place a tool is named or tested.

One answer serves the assembly's note about an enabled tool no part reacts to
(most likely a typo), the web playground's tool toggles and the commands that
list a catalog's tools. A tool is known when it is the ``name`` of a ``tool``
part, in an agent's ``tools``, or a text tested against the enabled tools
(``tools``, ``agent.tools``) anywhere an expression is written: conditions,
``[definitions]`` (a definition holding part of the tools, such as
``intersect(tools, shell_tools)``, is searched as the tools are), ``[lines]``
entries and the tags of template bodies. A variable's default list counts
where it is tested against the tools (``intersect(tools, known_tools)``), and
so do the keys of a default mapping looked up by the tools (``pick(guides,
tools)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from catalog.lang.membership import tested_texts
from catalog.lang.template import tag_expressions
from catalog.schema.manifest import Manifest, PartDecl

__all__ = ["known_tools"]

# The names that hold enabled tools in every catalog.
_TOOLS = frozenset({"tools", "agent.tools"})


def known_tools(manifest: Manifest, parts: Iterable[tuple[PartDecl, str]]) -> frozenset[str]:
    """Every tool name the catalog of ``manifest`` knows, its ``parts`` given as
    (declaration, body) pairs; see the module docstring."""
    names: set[str] = set()
    expressions: list[str] = []
    for decl, body in parts:
        if decl.kind == "tool" and decl.name:
            names.add(decl.name)
        expressions.append(decl.when)
        if decl.template:
            expressions += tag_expressions(body)
    for agent in manifest.agent:
        names.update(agent.tools)
    for entries in manifest.lines.values():
        expressions += [text for entry in entries for text in (entry.when, entry.items) if text]
    known = _variable_texts(manifest)
    collections = _collections(manifest.definitions, known)
    expressions += manifest.definitions.values()
    for source in expressions:
        names.update(tested_texts(source, collections, known).texts)
    return frozenset(names)


def _variable_texts(manifest: Manifest) -> dict[str, tuple[str, ...]]:
    """The texts each variable's default stands for: itself, the texts of its list, or
    its mapping's keys."""
    found: dict[str, tuple[str, ...]] = {}
    for variable in manifest.variable:
        default = variable.effective_default()
        if isinstance(default, Mapping):
            values: tuple[object, ...] = tuple(default)
        else:
            values = default if isinstance(default, tuple) else (default,)
        found[variable.name] = tuple(value for value in values if isinstance(value, str))
    return found


def _collections(
    definitions: Mapping[str, str], known: Mapping[str, tuple[str, ...]]
) -> frozenset[str]:
    """The names holding enabled tools: ``tools``, ``agent.tools`` and the definitions
    whose value is part of them (a definition may build on another: one pass each)."""
    collections = set(_TOOLS)
    for _ in range(len(definitions)):
        more = {
            name
            for name, source in definitions.items()
            if name not in collections and tested_texts(source, collections, known).is_collection
        }
        if not more:
            break
        collections |= more
    return frozenset(collections)
