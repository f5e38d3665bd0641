"""The evaluation budget bounds what an assembly evaluates: a loop spends it by the
nodes its body evaluates, one assembly spends one budget whatever its number of parts,
and a remembered body spends what rendering it spent."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import EvaluationBudgetError
from catalog.lang.shapes import ANY
from catalog.lang.template import compile_template
from catalog.lang.values import ITEM_COST, MAX_EVALUATION_COST, NODE_COST


def _catalog(folder: Path, bodies: list[str], variable: str) -> Path:
    """A stamped catalog version (``chars`` counter) with a str variable ``v`` holding
    ``variable`` and one part per body."""
    version = folder / "burn" / "1.0.0"
    version.mkdir(parents=True)
    parts = []
    for index, body in enumerate(bodies):
        (version / f"p{index}.md").write_text(body, encoding="utf-8")
        digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
        parts.append(
            f'[[part]]\nid = "p{index}"\nfile = "p{index}.md"\norder = {index}\n'
            f'tokens = {len(body) // 4}\nsha256 = "{digest}"\n'
        )
    (version / "catalog.toml").write_text(
        '[catalog]\nname = "burn"\nversion = "1.0.0"\nsummary = "x"\ntokenizer = "chars"\n\n'
        '[[variable]]\nname = "v"\ntype = "str"\ndefault = ""\n\n' + "\n".join(parts),
        encoding="utf-8",
    )
    return version


_CALLS = "{{ len(l) + len(l) + len(l) + len(l) + len(l) + len(l) + len(l) + len(l) }}" * 50


def test_a_loop_spends_the_budget_by_the_nodes_its_body_evaluates(tmp_path: Path) -> None:
    # 100,000 iterations of 400 calls on a one-character text: each call builds
    # nothing, but the iterations together would evaluate 40 million calls.
    version = _catalog(tmp_path, ["{% for l in lines(v) %}" + _CALLS + "{% endfor %}"], "")
    cat = load_dir(version)
    assert cat.assemble({"variables": {"v": "a\n" * 10}}).text == ("8" * 50) * 10
    with pytest.raises(EvaluationBudgetError, match="part 'p0'"):
        cat.assemble({"variables": {"v": "a\n" * 99_990}})


def test_an_iteration_costs_its_item_and_the_nodes_of_its_body() -> None:
    # 'x' is one node and 'len(x) + 1' four: an iteration of the heavy body costs
    # ITEM_COST + 81 * NODE_COST, and a little more for its calls and what it writes.
    body = "{{ x }}" + "{{ len(x) + 1 }}" * 20
    light = compile_template("{% for x in xs %}{{ x }}{% endfor %}", {"xs": ANY})
    heavy = compile_template("{% for x in xs %}" + body + "{% endfor %}", {"xs": ANY})
    fits = MAX_EVALUATION_COST // (ITEM_COST + 81 * NODE_COST)
    assert fits < 100_000  # the loop limit is not what stops it
    items = ["a"] * (fits // 2)
    assert heavy.render({"xs": items}) == ("a" + "2" * 20) * len(items)
    with pytest.raises(EvaluationBudgetError):
        heavy.render({"xs": ["a"] * fits})
    assert light.render({"xs": ["a"] * fits}) == "a" * fits


def test_one_assembly_spends_one_budget(tmp_path: Path) -> None:
    # Twenty parts, each spending about 30 million units (ten replace() over a
    # megabyte): each alone fits its budget, the assembly does not.
    body = "".join('{{ len(replace(v, "a", "bb")) }}' for _ in range(10))
    version = _catalog(tmp_path, [body] * 20, "")
    cat = load_dir(version)
    alone = _catalog(tmp_path / "alone", [body], "")
    blob = "a\n" * 500_000
    assert load_dir(alone).assemble({"variables": {"v": blob}}).text == "1500000" * 10
    with pytest.raises(EvaluationBudgetError):
        cat.assemble({"variables": {"v": blob}})


def test_a_remembered_body_spends_what_rendering_it_spent(tmp_path: Path) -> None:
    # Each part spends about 30 million units (a hundred replace() over 100,000
    # characters): the second runs out. The first's result is remembered from the
    # third assembly on (kept the second time its values are met): the assembly must
    # still run out, at the same place.
    body = '{{ len(replace(v, "a", "bb")) }}' * 100
    cat = load_dir(_catalog(tmp_path, [body, body], ""))
    context = {"variables": {"v": "a\n" * 50_000}}
    messages = []
    for _ in range(4):
        with pytest.raises(EvaluationBudgetError) as caught:
            cat.assemble(context)
        messages.append(str(caught.value))
    assert len(set(messages)) == 1
    assert "part 'p1'" in messages[0]
