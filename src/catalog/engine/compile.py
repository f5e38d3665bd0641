"""Compiling a validated manifest and its part bodies into a :class:`Catalog`.

:func:`compile_catalog` checks every name used in a condition or a body
against the context schema and the catalog's declared variables, compiles
each condition and body once, and prepares the assembly of every agent. It
reads no file: the loader hands it the manifest, the bodies and a way to place
an error in the manifest's file.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from packaging.version import Version

from catalog.engine.catalog import Catalog
from catalog.engine.definitions import Locate, compile_definitions
from catalog.engine.groups import Alternative, check_groups
from catalog.engine.plan import AgentInfo, CatalogRules, CompiledPart, PartInfo, plan_agents
from catalog.engine.tools import known_tools
from catalog.errors import CatalogError, ManifestError
from catalog.lang.compiler import Expression, ExpressionCache, compile_expression
from catalog.lang.placeholders import bind_placeholders
from catalog.lang.shapes import ANY, SCALAR, MappingShape, SequenceShape, Shape, shape_of
from catalog.lang.template import compile_template
from catalog.schema.context import CONTROL_FIELDS, Context
from catalog.schema.manifest import BindingDecl, Manifest, PartDecl
from catalog.schema.sources import placeholders

__all__ = ["body_sha256", "compile_catalog"]


_PART_SHAPE = shape_of(PartInfo)


def _variable_shape(type_name: str) -> Shape:
    if type_name == "map":
        return MappingShape(ANY)
    return SequenceShape(ANY) if type_name == "list" else SCALAR


@functools.cache
def _context_names() -> dict[str, Shape]:
    """The names every condition and body may read, with their shapes (worked out once)."""
    names = {
        name: shape_of(info.annotation)
        for name, info in Context.model_fields.items()
        if name not in CONTROL_FIELDS
    }
    names["agent"] = shape_of(AgentInfo)
    return names


def body_sha256(text: str) -> str:
    """The sha256 a manifest records for a body: UTF-8 bytes with LF line endings."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def compile_catalog(
    manifest: Manifest,
    bodies: Mapping[str, str],
    *,
    manifest_text: str,
    manifest_file: str,
    locate: Locate,
    body_files: Mapping[str, str],
    location: str,
    source: str = "path",
    missing: Collection[str] = (),
) -> Catalog:
    """Check names and compile every condition and body of ``manifest``.

    ``bodies`` maps part ids to their text (LF line endings); ``body_files``
    maps part ids to the file names used in errors; ``missing`` names the
    parts whose body file does not exist (see :class:`CompiledPart`). A
    problem in the manifest names its key path and line there; one in a body
    names the body file and its line. The caller places a manifest's problem in its
    file (it read it); ``locate`` does so for what goes wrong while assembling.
    """
    names, defaults = _declared_names(manifest)
    _check_sources(manifest)
    definitions = compile_definitions(manifest, names, locate)
    bindings = _compile_bindings(manifest, names)
    if bindings:
        names["bindings"] = MappingShape(ANY)
    part_names = {**names, "part": _PART_SHAPE}
    for kind, kind_defaults in manifest.defaults.items():
        if kind_defaults.when is not None:
            _compile_condition(kind_defaults.when, part_names, {}, ("defaults", kind, "when"))
    conditions: dict[str, Expression] = {}
    bound = _compile_placeholders(manifest, names)
    sources = _Sources(bodies, body_files, missing, ExpressionCache())
    parts = [
        _compile_part(
            index,
            manifest.with_defaults(written),
            written,
            sources,
            part_names,
            conditions,
            bound,
        )
        for index, written in enumerate(manifest.part)
    ]
    parts.sort(key=lambda p: (p.decl.order, p.decl.id))
    if any(part.decl.group is not None for part in parts):
        check_groups(_alternatives(manifest, parts))
    rules = CatalogRules(
        name=manifest.catalog.name,
        version=str(Version(manifest.catalog.version)),
        tokenizer=manifest.catalog.tokenizer,
        separator=manifest.catalog.separator,
        token_budget=manifest.catalog.token_budget,
        locate=locate,
        slots=tuple(sorted({p.decl.slot for p in parts if p.decl.slot})),
        defaults=defaults,
        types={var.name: var.type for var in manifest.variable},
        bindings=bindings,
        definitions=definitions,
        tool_names=known_tools(manifest, [(part.decl, part.body) for part in parts]),
        names=part_names,
    )
    agents = [AgentInfo.from_decl(None), *(AgentInfo.from_decl(a) for a in manifest.agent)]
    return Catalog(
        manifest=manifest,
        parts=tuple(parts),
        rules=rules,
        plans=plan_agents(rules, agents, parts),
        location=location,
        source=source,
        manifest_file=manifest_file,
        manifest_text=manifest_text,
    )


def _alternatives(manifest: Manifest, parts: Sequence[CompiledPart]) -> list[Alternative]:
    """The parts of a group, in prompt order, as :func:`check_groups` sees them."""
    index = {decl.id: i for i, decl in enumerate(manifest.part)}
    return [
        Alternative(part.decl, index[part.id], _always(part.condition))
        for part in parts
        if part.decl.group is not None
    ]


def _always(condition: Expression) -> bool:
    """Whether ``condition`` holds whatever the context (it reads nothing and is true)."""
    if condition.names:
        return False
    try:
        return bool(condition({}))
    except CatalogError:
        return False


def _declared_names(manifest: Manifest) -> tuple[dict[str, Shape], dict[str, Any]]:
    """The names conditions and bodies may use (the context, ``agent``, the catalog's
    variables; ``bindings`` is added when it has [[binding]]s) and the variables' defaults."""
    names = dict(_context_names())
    defaults: dict[str, Any] = {}
    taken = set(names) | set(CONTROL_FIELDS)
    if manifest.binding:
        taken.add("bindings")
    for index, var in enumerate(manifest.variable):
        if var.name in taken:
            what = "a context name"
            if var.name == "bindings":
                what = "the name [[binding]]s are read by"
            raise ManifestError(
                f"variable {var.name!r} shadows {what}",
                key=("variable", index, "name"),
                hint="rename the variable",
            )
        names[var.name] = _variable_shape(var.type)
        defaults[var.name] = var.effective_default()
    return names, defaults


@dataclass(frozen=True, eq=False, slots=True)
class _Sources:
    """The part bodies as loaded: text, file name for errors, and which are missing;
    and the expressions their templates share, each compiled once."""

    bodies: Mapping[str, str]
    files: Mapping[str, str]
    missing: Collection[str]
    expressions: ExpressionCache


def _compile_condition(
    source: str,
    names: Mapping[str, Shape],
    done: dict[str, Expression],
    key: tuple[str | int, ...],
) -> Expression:
    """The condition written at ``key``, compiled once per distinct source (``done``
    holds those compiled so far: most parts share a few conditions) and checked
    not to be always false."""
    condition = done.get(source)
    if condition is not None:
        return condition
    try:
        condition = compile_expression(source, names, condition=True)
        if not condition.names and not condition({}):  # a constant: its value is known now
            raise ManifestError(
                f"condition {source!r} is always false, so the part can never be selected",
                hint="remove the part or fix its condition",
            )
    except CatalogError as exc:
        raise exc.located(key=key) from None
    done[source] = condition
    return condition


@dataclass(frozen=True, slots=True)
class _Placeholders:
    """The ``[placeholders]`` table compiled: texts as they are (``values``), and each
    expression with the root names it reads and its closure (``expressions``)."""

    values: dict[str, str]
    expressions: dict[str, tuple[frozenset[str], Callable[[Any], Any]]]


def _compile_placeholders(manifest: Manifest, names: Mapping[str, Shape]) -> _Placeholders:
    """The ``[placeholders]`` table: texts as they are, expressions compiled once."""
    values: dict[str, str] = {}
    expressions: dict[str, tuple[frozenset[str], Callable[[Any], Any]]] = {}
    for name, decl in manifest.placeholders.items():
        if decl.value is not None:
            values[name] = decl.value
        else:
            key = ("placeholders", name, "expr")
            try:
                compiled = compile_expression(str(decl.expr), names)
            except CatalogError as exc:
                raise exc.located(key=key) from None
            expressions[name] = (compiled.names, compiled.evaluate)
    return _Placeholders(values, expressions)


_NO_PLACEHOLDERS = _Placeholders({}, {})


def _compile_part(
    index: int,
    decl: PartDecl,
    written: PartDecl,
    sources: _Sources,
    names: Mapping[str, Shape],
    conditions: dict[str, Expression],
    bound: _Placeholders = _NO_PLACEHOLDERS,
) -> CompiledPart:
    """``part[index]`` (``written``, with its kind's defaults applied in ``decl``): its
    condition, its body template, and ``part`` bound for both when they read it."""
    key: tuple[str | int, ...] = ("part", index, "when")
    if "when" not in written.model_fields_set and decl.when != written.when:
        key = ("defaults", decl.kind, "when")
    condition = _compile_condition(decl.when, names, conditions, key)
    body, path = sources.bodies[decl.id], sources.files[decl.id]
    template = None
    if decl.template:
        try:
            template = compile_template(body, names, sources.expressions)
        except CatalogError as exc:
            raise exc.located(file=path, key=f"part {decl.id!r}") from None
    elif bound.values or bound.expressions:
        template = bind_placeholders(body, bound.values, bound.expressions, decl.placeholder_syntax)
    in_condition = "part" in condition.names
    in_template = template is not None and "part" in template.names
    if in_condition or in_template:
        info = PartInfo.of(decl)
        if in_condition:
            condition = replace(condition, evaluate=_with_part(condition.evaluate, info))
        if template is not None and in_template:
            template = replace(template, render=_with_part(template.render, info))
    return CompiledPart(decl, body, path, condition, template, decl.id in sources.missing)


def _with_part(run: Callable[[Any], Any], info: PartInfo) -> Callable[[Any], Any]:
    """``run`` with ``part`` bound to ``info`` on top of the scope it is given."""

    def bound(scope: Mapping[str, Any]) -> Any:
        # A copy of the scope with ``part``: a ChainMap looks each name up in Python
        # code, several times slower than a dict for the few names an expression reads.
        return run({**scope, "part": info})

    return bound


def _compile_bindings(
    manifest: Manifest, names: Mapping[str, Shape]
) -> tuple[tuple[BindingDecl, Expression | None], ...]:
    compiled: list[tuple[BindingDecl, Expression | None]] = []
    for index, decl in enumerate(manifest.binding):
        expression = None
        if decl.value is not None:
            try:
                expression = compile_expression(decl.value, names)
            except CatalogError as exc:
                raise exc.located(key=("binding", index, "value")) from None
        compiled.append((decl, expression))
    return tuple(compiled)


def _check_sources(manifest: Manifest) -> None:
    """Every ``[[sources.text]]`` target must name a slot or a ``str`` variable of the
    catalog, and every ``{VARIABLE}`` in a source path one ``str`` or ``list`` variable."""
    slots = {p.slot for p in manifest.part if p.slot}
    types = {v.name: v.type for v in manifest.variable}
    for key, path in manifest.sources.paths():
        used = placeholders(path)
        problem = None
        if len(used) > 1:
            problem = "holds more than one {VARIABLE}", "use one placeholder per name"
        elif used and types.get(used[0]) not in ("str", "list"):
            problem = (
                f"{{{used[0]}}} is not a declared variable of type str or list",
                'declare it with [[variable]] and type = "list" (or "str")',
            )
        if problem is not None:
            raise ManifestError(f"{path!r} {problem[0]}", key=key, hint=problem[1])
    for index, source in enumerate(manifest.sources.text):
        kind, _, name = source.target.partition(":")
        problem = None
        if kind == "slot" and name not in slots:
            problem = f"no part has slot {name!r}", f"slots: {', '.join(sorted(slots)) or 'none'}"
        elif kind == "variable" and types.get(name) != "str":
            problem = (
                f"{name!r} is not a declared variable of type str",
                'declare it with [[variable]] and type = "str"',
            )
        if problem is not None:
            raise ManifestError(
                f"target {source.target!r}: {problem[0]}",
                key=("sources", "text", index, "target"),
                hint=problem[1],
            )
