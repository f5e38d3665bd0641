"""Checks beyond what loading enforces: warnings a catalog author should see.

Loading already refuses anything that would give a wrong prompt (bad keys,
unknown names, tampered bodies). Validation adds what is legal but probably
a mistake: a token estimate that no longer matches its body, and a ``turn``
part ordered before ``static`` parts (it breaks the cache prefix every turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from catalog.compiled import Catalog
from catalog.tokens import TiktokenCounter, offline_encodings

__all__ = ["Problem", "check_catalog"]


@dataclass(frozen=True)
class Problem:
    """One finding of ``catalog validate``."""

    severity: Literal["error", "warning"]
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.severity}: {self.message}"


def check_catalog(catalog: Catalog, *, count_tokens: bool = True) -> list[Problem]:
    """Warnings for a loaded catalog (errors would have stopped the load)."""
    problems: list[Problem] = []
    manifest_file = f"{catalog.location}/catalog.toml"
    tokenizer = catalog.manifest.catalog.tokenizer
    if count_tokens and tokenizer not in offline_encodings():
        problems.append(
            Problem(
                "warning",
                manifest_file,
                f"token estimates not checked: tokenizer {tokenizer!r} is not available "
                f"offline (available: {', '.join(offline_encodings())})",
            )
        )
    elif count_tokens:
        counter = TiktokenCounter(tokenizer)
        for part in catalog.parts:
            actual = counter(part.body)
            if actual != part.decl.tokens:
                problems.append(
                    Problem(
                        "warning",
                        manifest_file,
                        f"part {part.id!r}: token estimate {part.decl.tokens} is stale, "
                        f"the body has {actual} {counter.name} tokens "
                        "(run `catalog stamp` on the folder)",
                    )
                )
    for agent in catalog.agents:
        parts = [p for p in catalog.parts if p.decl.for_agent(agent)]
        parts = [p for p in parts if p.decl.kind in ("system", "agent")]
        for index, part in enumerate(parts):
            if part.decl.stability != "turn":
                continue
            later = [p.id for p in parts[index + 1 :] if p.decl.stability == "static"]
            if later:
                problems.append(
                    Problem(
                        "warning",
                        manifest_file,
                        f"part {part.id!r} (stability turn, order {part.decl.order}) comes before "
                        f"static part(s) {', '.join(later)} for agent {agent}: the cache prefix "
                        "breaks every turn; give it a higher order",
                    )
                )
    return problems
