"""Which texts an expression tests for membership in a collection, read from its tree.

``"Bash" in tools``, ``"read" not in tools``, ``contains(tools, "grep")``,
``intersect(tools, ["grep", "find"])`` and ``pick(guides, tools)`` (the keys
of a mapping looked up by the tools) all test texts against ``tools``: a
caller that wants to know every value a catalog reacts to (the tool names a
page offers as toggles, the names an assembly warns about) reads them here
instead of matching the source text. The other side may be a literal, a list
of literals, a name whose texts the caller knows (a variable's default list,
or its default mapping's keys) or a sum of those; the collection side a name
the caller names, an attribute path (``agent.tools``), an ``intersect`` with
one, or a choice between them (``a if c else tools``). Nothing is evaluated;
the walk is linear in the tree.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TypeGuard

from catalog.errors import ExpressionError
from catalog.lang.parsing import parse

__all__ = ["Tested", "tested_texts"]

# Functions whose two arguments are a collection and what is looked for in it.
_SEARCHES = frozenset({"contains", "intersect"})


@dataclass(frozen=True, slots=True)
class Tested:
    """What :func:`tested_texts` found: the ``texts`` tested against the collections,
    and whether the expression's value is itself one of them or a part of one
    (``intersect(tools, shells)``), so that a definition holding it is one too."""

    texts: frozenset[str]
    is_collection: bool


def tested_texts(
    source: str, collections: Collection[str], known: Mapping[str, tuple[str, ...]]
) -> Tested:
    """The texts ``source`` tests against any of ``collections`` (names or dotted paths
    such as ``agent.tools``); ``known`` gives the texts a name stands for. A source that
    does not parse tests nothing."""
    try:
        _, tree = parse(source)
    except ExpressionError:
        return Tested(frozenset(), False)
    walk = _Walk(collections, known)
    for node in ast.walk(tree):
        walk.visit(node)
    return Tested(frozenset(walk.found), walk.collection(tree.body))


class _Walk:
    """One expression's walk: the collection names and known texts, and what is found."""

    def __init__(self, collections: Collection[str], known: Mapping[str, tuple[str, ...]]):
        self.collections = collections
        self.known = known
        self.found: set[str] = set()

    def visit(self, node: ast.AST) -> None:
        """Record the texts ``node`` itself tests (its children are visited apart)."""
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.In | ast.NotIn) and self.collection(right):
                    self.found.update(self.texts(left))
                left = right
        elif _calls(node, *_SEARCHES):
            first, second = node.args
            if self.collection(first):
                self.found.update(self.texts(second))
            if _calls(node, "intersect") and self.collection(second):
                self.found.update(self.texts(first))
        elif _calls(node, "pick") and self.collection(node.args[1]):
            self.found.update(self.texts(node.args[0]))

    def collection(self, node: ast.expr) -> bool:
        """Whether ``node``'s value is one of the collections or a part of one."""
        if isinstance(node, ast.Name | ast.Attribute):
            return _dotted(node) in self.collections
        if isinstance(node, ast.IfExp):
            return self.collection(node.body) and self.collection(node.orelse)
        if _calls(node, "intersect"):
            return any(self.collection(arg) for arg in node.args)
        return False

    def texts(self, node: ast.expr) -> tuple[str, ...]:
        """The texts ``node`` stands for: a literal, a list of them, a known name, a sum."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return (node.value,)
        if isinstance(node, ast.List | ast.Tuple):
            return tuple(text for item in node.elts for text in self.texts(item))
        if isinstance(node, ast.Name):
            return self.known.get(node.id, ())
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.texts(node.left) + self.texts(node.right)
        return ()


def _calls(node: ast.AST, *functions: str) -> TypeGuard[ast.Call]:
    """Whether ``node`` calls one of ``functions`` with two arguments."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in functions
        and len(node.args) == 2
    )


def _dotted(node: ast.expr) -> str:
    """``agent.tools`` for that attribute path; empty for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""
