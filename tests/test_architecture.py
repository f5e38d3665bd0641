"""The import graph is a tree of layers (docs/architecture.md): no cycles, nothing
imported from a layer above.

Every module of the package is parsed with :mod:`ast` and every import counts:
at the top of the file, inside a function, under ``if TYPE_CHECKING:``.
Importing ``catalog.a.b`` also runs the package ``catalog.a`` first, so that
counts as importing it too (except from inside it, and except the top-level
package, which Python always runs first).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"

# Bottom to top: a module may import from its own layer and the layers below.
# A name is a module or a package (then every module in it), the most
# specific name wins; "catalog" is the top-level package's own module only.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("catalog.errors", "catalog._digest"),
    ("catalog.records",),
    (
        "catalog.lang",
        "catalog.lang.values",
        "catalog.lang.shapes",
        "catalog.lang.brackets",
        "catalog.lang.timefmt",
        "catalog.lang.globs",
        "catalog.lang.visible",
    ),
    ("catalog.lang.functions",),
    ("catalog.lang.compiler",),
    ("catalog.lang.template",),
    ("catalog.lang.placeholders",),
    # The manifest package's own module only documents it and imports nothing.
    (
        "catalog.manifest",
        "catalog.manifest.positions",
        "catalog._textfile",
        "catalog.tokens",
    ),
    (
        "catalog.manifest.models",
        "catalog.manifest.sources",
        "catalog.context",
        "catalog.definitions",
    ),
    ("catalog.prompt",),
    ("catalog.assemble",),
    ("catalog.compiled",),
    (
        "catalog.loader",
        "catalog.validate",
        "catalog.diff",
        "catalog.gather",
        "catalog.conversations",
    ),
    ("catalog.catalog_path",),
    ("catalog.lock", "catalog.stamp", "catalog.importers"),
    ("catalog",),
    ("catalog.testing", "catalog.server"),
    ("catalog.cli", "catalog.__main__"),
)


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((SRC / "catalog").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _package_of(name: str) -> str:
    return name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]


def _resolve(name: str) -> str | None:
    """The module of the package that ``import name`` loads (None for other packages)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imported_names(name: str) -> Iterator[str]:
    """The dotted names module ``name`` imports, anywhere in its code."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = _package_of(name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield full if full in MODULES else base


def _imports(name: str) -> set[str]:
    """The modules of the package that loading ``name`` runs directly: what it imports,
    and the packages those live in (not the top-level package unless imported as
    such, not the packages ``name`` itself lives in)."""
    found: set[str] = set()
    for imported in _imported_names(name):
        target = _resolve(imported)
        if target == "catalog":
            if name != "catalog":
                found.add(target)
            continue
        while target is not None and target != "catalog":
            if target != name and not name.startswith(f"{target}."):
                found.add(target)
            target = _resolve(target.rpartition(".")[0])
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def _layer(name: str) -> int:
    """The index of the layer ``name`` belongs to (the most specific entry that names it)."""
    best, depth = -1, -1
    for index, layer in enumerate(LAYERS):
        for entry in layer:
            inside = name.startswith(f"{entry}.") and entry != "catalog"
            if (name == entry or inside) and entry.count(".") > depth:
                best, depth = index, entry.count(".")
    return best


def test_the_package_top_holds_at_most_15_modules_none_over_700_lines() -> None:
    top = sorted(name for name, path in MODULES.items() if path.parent == SRC / "catalog")
    assert len(top) <= 15, top
    long = {
        name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > 700
    }
    assert long == {}


def test_every_module_has_a_layer() -> None:
    assert [name for name in MODULES if _layer(name) < 0] == []


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = sorted(
        f"{name} (layer {_layer(name)}) imports {target} (layer {_layer(target)})"
        for name, targets in GRAPH.items()
        for target in targets
        if _layer(target) > _layer(name)
    )
    assert upward == []


def _cycle() -> list[str] | None:
    """One import cycle of the package, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(GRAPH[name]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        path.pop()
        state[name] = 2
        return None

    for name in sorted(GRAPH):
        if name not in state and (found := visit(name)) is not None:
            return found
    return None


def test_the_import_graph_has_no_cycle() -> None:
    assert _cycle() is None


@pytest.mark.parametrize(
    ("source", "imports"),
    [
        ("from catalog.assemble import assemble\n", {"catalog.assemble"}),
        ("def f():\n    from catalog.compiled import Catalog\n", {"catalog.compiled"}),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import catalog.loader\n",
            {"catalog.loader"},
        ),
        ("from catalog.diff.compute import diff\n", {"catalog.diff.compute", "catalog.diff"}),
    ],
)
def test_the_checks_see_imports_inside_functions_and_type_checking_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, imports: set[str]
) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    monkeypatch.setitem(MODULES, "catalog.probe", probe)
    assert _imports("catalog.probe") == imports


def test_a_cycle_or_an_upward_import_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GRAPH, "catalog.errors", {"catalog.compiled"})
    assert _cycle() is not None
    upward = [t for t in GRAPH["catalog.errors"] if _layer(t) > _layer("catalog.errors")]
    assert upward == ["catalog.compiled"]


def test_public_classes_take_no_private_named_constructor_arguments() -> None:
    """What a class keeps for itself (a prompt's chosen pieces, say) is not a
    constructor argument: a public constructor asks only for public things."""
    private = []
    for name in sorted(MODULES):
        if name.endswith("__main__"):
            continue  # running it runs the command line
        module = importlib.import_module(name)
        for exported in getattr(module, "__all__", ()):
            value = getattr(module, exported, None)
            if not inspect.isclass(value):
                continue
            try:
                parameters = inspect.signature(value).parameters
            except (TypeError, ValueError):  # a class whose signature Python cannot give
                continue
            private += [f"{name}.{exported}({p})" for p in parameters if p.startswith("_")]
    assert private == []
