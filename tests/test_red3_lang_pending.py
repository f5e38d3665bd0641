"""Holes found in the expression engine, left to the engineer rewriting it (src/catalog/lang
and src/catalog/engine are not edited here): each test fails today, and is marked so.

Both are about the promise of docs/expressions.md and hostile-inputs.md that a
catalog's conditions and bodies run "in time bounded by their size and a fixed
budget": today the budget is a count of units that charges a function call on a
short text one unit or two, and it is per part, so neither the time of one render
nor that of one assembly is bounded by a fixed amount.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import EvaluationBudgetError


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
        f'[[variable]]\nname = "v"\ntype = "str"\ndefault = """{variable}"""\n\n'
        + "\n".join(parts),
        encoding="utf-8",
    )
    return version


_CALLS = " ".join(
    ["{{ len(l) + len(l) + len(l) + len(l) + len(l) + len(l) + len(l) + len(l) }}"] * 50
)


@pytest.mark.xfail(
    strict=True,
    reason="lang: the budget charges a call on a one-character text one unit or two, so "
    "one body of 100,000 loop iterations x 400 calls runs 17 s on this machine before "
    "its 50,000,000 units are spent; a call (an expression node) should cost enough that "
    "a render at the budget takes about a second",
)
def test_one_render_stops_within_seconds(tmp_path: Path) -> None:
    """One part, 100,000 iterations (the loop limit) of 400 calls of ``len`` on a
    one-character line: the render must end (done or refused) within 5 seconds."""
    version = _catalog(
        tmp_path, ["{% for l in lines(v) %}" + _CALLS + "{% endfor %}"], "a\n" * 99_990
    )
    with pytest.raises(subprocess.TimeoutExpired):  # what happens today
        subprocess.run(
            [sys.executable, "-m", "catalog", "assemble", str(version)],
            capture_output=True,
            timeout=5,
            check=False,
        )
    pytest.fail("still running after 5 s")  # not reached when the budget holds


@pytest.mark.xfail(
    strict=True,
    reason="engine: the 50,000,000-unit budget is per condition and per body render, so "
    "an assembly's work grows with the number of parts times the budget: 100 parts of "
    "a 620 KB catalog, each just under its budget, took 7 minutes; one budget should "
    "bound one assembly (or its total be bounded apart from the part count)",
)
def test_one_assembly_spends_one_budget(tmp_path: Path) -> None:
    """Twenty parts, each spending about 30 million units (ten ``replace`` over a
    megabyte, fast in C): 600 million units in all, twelve budgets, must be refused
    with an EvaluationBudgetError."""
    body = "".join('{{ len(replace(v, "a", "bb")) }}' for _ in range(10))
    version = _catalog(tmp_path, [body] * 20, "a\n" * 500_000)
    cat = load_dir(version)
    with pytest.raises(EvaluationBudgetError):
        cat.assemble({})
