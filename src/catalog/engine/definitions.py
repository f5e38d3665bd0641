"""Named values of a manifest: ``[definitions]`` and ``[lines]``, compiled once.

A definition is an expression written once and used by name in conditions,
bodies and later definitions::

    [definitions]
    shells = "intersect(tools, shell_tools)"
    now = 'strftime(env.datetime, "%A, %B %-d, %Y", env.tzname)'

A ``[[lines.NAME]]`` list builds a list of lines from entries that each have
their own condition, keeping their order and dropping blank lines and
repeats (the first occurrence stays)::

    [[lines.guideline_lines]]
    when = '"edit" in tools'
    text = "Use edit for precise changes."

    [[lines.guideline_lines]]
    items = 'guidelines + flatten(pluck(pick(tool_info, tools), "guidelines"))'

Both are checked when the catalog loads, like conditions: their names may
not shadow a context name, a variable or a reserved word, and each
expression is compiled against the names known at that point. The
definitions come first, in file order (each may use the ones before it),
then the lines lists (which may use every definition). A definition's shape
is its expression's, so ``first(x).name`` is checked too; a lines list is a
list of texts.

Every assembly evaluates them once, in that order, before any condition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from catalog.errors import CatalogError, EvaluationError, ManifestError
from catalog.lang.compiler import Expression, compile_expression
from catalog.lang.shapes import SCALAR, SequenceShape, Shape
from catalog.lang.values import Scope, iterate, render_value
from catalog.schema.manifest import Manifest

__all__ = [
    "RESERVED_NAMES",
    "Definition",
    "Locate",
    "compile_definitions",
    "compile_manifest_expression",
    "define",
]

RESERVED_NAMES: Final = frozenset({"true", "false", "none", "loop", "part", "agent", "bindings"})
"""Names a definition or a lines list may not take: literals and names the engine binds."""

Locate = Callable[[CatalogError], CatalogError]
"""Places an error of the manifest in its file, at its line: the reader of the file hands
it in, so an error found while assembling names the line too (the engine reads no file)."""


@dataclass(frozen=True, eq=False, slots=True)
class Definition:
    """One named value: its name, its result's shape, how to compute it from a scope,
    and the names of the scope it reads."""

    name: str
    shape: Shape
    evaluate: Callable[[Scope], Any]
    names: frozenset[str] = frozenset()


def compile_manifest_expression(source: str, names: Mapping[str, Shape], key: str) -> Expression:
    """Compile an expression of the manifest; an error names ``key``, its key path."""
    try:
        return compile_expression(source, names)
    except CatalogError as exc:
        raise exc.located(key=key) from None


def compile_definitions(
    manifest: Manifest, names: dict[str, Shape], locate: Locate
) -> tuple[Definition, ...]:
    """Check and compile ``[definitions]`` then ``[lines]``, adding each name to ``names``;
    ``locate`` places what goes wrong when they are evaluated."""
    compiled: list[Definition] = []
    for name, source in manifest.definitions.items():
        key = f"definitions.{name}"
        _check_free(name, names, key)
        expression = compile_manifest_expression(source, names, key)
        names[name] = expression.shape
        run = _located(expression, key, locate)
        compiled.append(Definition(name, expression.shape, run, expression.names))
    for name, entries in manifest.lines.items():
        key = f"lines.{name}"
        _check_free(name, names, key)
        steps = []
        read: set[str] = set()
        for index, entry in enumerate(entries):
            at = f"{key}[{index}]"
            when = None
            if entry.when.strip() != "true":
                condition = compile_manifest_expression(entry.when, names, f"{at}.when")
                when = _located(condition, f"{at}.when", locate)
                read |= condition.names
            items = None
            if entry.items is not None:
                given = compile_manifest_expression(entry.items, names, f"{at}.items")
                items = _located(given, f"{at}.items", locate, lines=True)
                read |= given.names
            steps.append(_Line(when, entry.text, items))
        shape = SequenceShape(SCALAR)
        names[name] = shape
        compiled.append(Definition(name, shape, _lines(tuple(steps)), frozenset(read)))
    return tuple(compiled)


def define(definitions: tuple[Definition, ...], scope: MutableMapping[str, Any]) -> None:
    """Evaluate ``definitions`` in order into ``scope`` (each sees those before it)."""
    for definition in definitions:
        scope[definition.name] = definition.evaluate(scope)


def _check_free(name: str, names: Mapping[str, Shape], key: str) -> None:
    if name in names or name in RESERVED_NAMES:
        what = "a reserved name" if name in RESERVED_NAMES else "a context name or a variable"
        raise ManifestError(
            f"{name!r} is already {what}", key=key, hint="give the definition another name"
        )


def _located(
    expression: Expression, key: str, locate: Locate, *, lines: bool = False
) -> Callable[[Scope], Any]:
    """``expression``'s closure (its value as lines, with ``lines``); an evaluation
    error names ``key`` and is placed in the manifest by ``locate``."""
    evaluate = expression.evaluate

    def run(scope: Scope) -> Any:
        try:
            return _as_lines(evaluate(scope)) if lines else evaluate(scope)
        except CatalogError as exc:
            raise locate(exc.located(key=key)) from None

    return run


@dataclass(frozen=True, slots=True)
class _Line:
    """One ``[[define.NAME]]`` entry compiled: its condition (None when always), and
    its fixed ``text`` or the closure giving its ``items``."""

    when: Callable[[Scope], Any] | None
    text: str | None
    items: Callable[[Scope], Any] | None


def _lines(steps: tuple[_Line, ...]) -> Callable[[Scope], tuple[str, ...]]:
    """The closure building one lines list: conditions, order, stripping and no repeats."""

    def run(scope: Scope) -> tuple[str, ...]:
        seen: set[str] = set()
        out: list[str] = []
        for step in steps:
            if step.when is not None and not step.when(scope):
                continue
            for value in (step.text,) if step.items is None else step.items(scope):
                line = render_value(value).strip()
                if line and line not in seen:
                    seen.add(line)
                    out.append(line)
        return tuple(out)

    return run


def _as_lines(value: object) -> tuple[object, ...] | list[object]:
    """What an ``items`` expression gave, as lines: one text, or the items of a list."""
    if isinstance(value, str):
        return (value,)
    try:
        return list(iterate(value))
    except TypeError as exc:
        raise EvaluationError(f"`items` must give a text or a list of texts: {exc}") from None
