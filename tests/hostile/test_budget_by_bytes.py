"""The evaluation budget charges an operation by what it reads: comparing, searching,
sorting or hashing long texts and lists spends their length, not one step, so a loop
over such an operation stops within the budget with the error naming the part.

Every figure is counted in budget units (``spent()``), never in time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import EvaluationBudgetError
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY
from catalog.lang.values import one_budget, spent

_LONG = 200_000  # characters of each compared text
_NAMES = {"a": ANY, "b": ANY, "xs": ANY, "ys": ANY}


def _spent(source: str, scope: Mapping[str, object]) -> int:
    """The budget units one evaluation of ``source`` against ``scope`` spends."""
    expression = compile_expression(source, _NAMES)

    def run() -> int:
        expression(scope)
        return spent()

    return one_budget(run)


def _catalog(folder: Path, parts: dict[str, tuple[str, str]]) -> Path:
    """A stamped catalog (``chars`` counter) with str variables ``a``, ``b`` and a list
    ``xs``; ``parts`` maps an id to its kind and body."""
    version = folder / "burn" / "1.0.0"
    version.mkdir(parents=True)
    declared = []
    for order, (part_id, (kind, body)) in enumerate(parts.items()):
        (version / f"{part_id}.md").write_text(body, encoding="utf-8")
        digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
        declared.append(
            f'[[part]]\nid = "{part_id}"\nkind = "{kind}"\nfile = "{part_id}.md"\n'
            f'order = {order}\ntokens = {len(body)}\nsha256 = "{digest}"\n'
        )
    variables = "".join(
        f'[[variable]]\nname = "{name}"\ntype = "{kind}"\ndefault = {default}\n\n'
        for name, kind, default in (("a", "str", '""'), ("b", "str", '""'), ("xs", "list", "[]"))
    )
    (version / "catalog.toml").write_text(
        '[catalog]\nname = "burn"\nversion = "1.0.0"\nsummary = "x"\ntokenizer = "chars"\n\n'
        + variables
        + "\n".join(declared),
        encoding="utf-8",
    )
    return version


@pytest.mark.parametrize(
    ("source", "least"),
    [
        ("a == b", _LONG),
        ("a != b", _LONG),
        ("a < b", _LONG),
        ("a >= b", _LONG),
        ("a in [b]", _LONG),
        ("a not in [b, b]", 2 * _LONG),
        ("b in a", 2 * _LONG),
        ("contains(a, b)", 2 * _LONG),
        ("xs == ys", _LONG),
        ("[a] == [b]", _LONG),
        ("sorted([a, b])", 2 * _LONG),
        ("max([a, b])", 2 * _LONG),
        ("unique([a, b])", 2 * _LONG),
        ("intersect([a], [b])", 2 * _LONG),
    ],
)
def test_an_operation_spends_what_it_reads(source: str, least: int) -> None:
    # Two equal long texts (and lists of them): comparing reads them whole.
    text = "x" * _LONG
    scope = {"a": text, "b": "x" * _LONG, "xs": [text], "ys": ["x" * _LONG]}
    assert _spent(source, scope) >= least


@pytest.mark.parametrize("source", ["a == b", "a < b", "a in [b]", "xs == ys", "b in a"])
def test_short_operands_cost_next_to_nothing(source: str) -> None:
    scope = {"a": "linux", "b": "darwin", "xs": ["a"], "ys": ["b"]}
    assert _spent(source, scope) < 100


def test_a_nested_list_costs_what_it_holds() -> None:
    # One item on the outside, 10,000 texts inside: the comparison reads them all.
    inner = [f"item {n}" for n in range(10_000)]
    scope = {"xs": [[inner]], "ys": [[list(inner)]]}
    assert _spent("xs == ys", scope) >= 16 * 10_000


@pytest.mark.parametrize(
    "test",
    ["a == b", "a != b + 'y'", "a < b", "a in [b]", "b in a", "[a] == [b]", "sorted([a, b])"],
)
def test_a_loop_of_long_comparisons_stops_naming_the_part(tmp_path: Path, test: str) -> None:
    # 1,000 iterations each reading 200,000 characters twice: 400 million units, eight
    # times the budget; each iteration used to cost a few dozen units.
    body = "{% for x in xs %}{% if " + test + " %}=={% endif %}{% endfor %}"
    cat = load_dir(_catalog(tmp_path, {"fine": ("system", "ok"), "burn": ("system", body)}))
    small = {"variables": {"a": "x", "b": "x", "xs": ["1"] * 3}}
    assert cat.assemble(small).text.startswith("ok")
    text = "x" * _LONG
    burning = {"variables": {"a": text, "b": "x" * _LONG, "xs": ["1"] * 1000}}
    with pytest.raises(EvaluationBudgetError, match="part 'burn'"):
        cat.assemble(burning)


def test_reminders_stop_too(tmp_path: Path) -> None:
    body = "{% for x in xs %}{% if a == b %}=={% endif %}{% endfor %}"
    cat = load_dir(_catalog(tmp_path, {"late": ("reminder", body)}))
    text = "x" * _LONG
    with pytest.raises(EvaluationBudgetError, match="part 'late'"):
        cat.reminders({"variables": {"a": text, "b": "x" * _LONG, "xs": ["1"] * 1000}})
