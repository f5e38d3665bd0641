"""Checks beyond what loading enforces: warnings a catalog author should see.

Loading already refuses anything that would give a wrong prompt (bad keys,
unknown names, tampered bodies). Validation adds what is legal but probably
a mistake: a token estimate that no longer matches its body, and a ``turn``
part ordered before ``static`` parts (it breaks the cache prefix every turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from catalog.engine.catalog import Catalog
from catalog.errors import CatalogError
from catalog.io.positions import key_lines
from catalog.tokens import get_counter, offline_encodings

__all__ = ["Problem", "check_catalog"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding of ``catalog validate``: the file, the line where known, and what is wrong."""

    severity: Literal["error", "warning"]
    where: str
    message: str
    line: int | None = None

    @property
    def location(self) -> str:
        """``file:line`` (or the file alone when no line is known)."""
        return self.where if self.line is None else f"{self.where}:{self.line}"

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message}"


def check_catalog(catalog: Catalog, *, count_tokens: bool = True) -> list[Problem]:
    """Warnings for a loaded catalog (errors would have stopped the load)."""
    problems: list[Problem] = []
    manifest_file = catalog.manifest_file
    line_of = key_lines(catalog.manifest_text)
    index = {decl.id: number for number, decl in enumerate(catalog.manifest.part)}

    def warn(message: str, *key: str | int) -> None:
        """Add a warning about the manifest key path ``key`` (its line when found)."""
        problems.append(Problem("warning", manifest_file, message, line_of(key)))

    tokenizer = catalog.manifest.catalog.tokenizer
    try:
        counter = get_counter(tokenizer) if count_tokens else None
    except CatalogError:
        counter = None
        warn(
            f"token estimates not checked: tokenizer {tokenizer!r} is not available "
            f"offline (available: {', '.join(offline_encodings())}, or 'chars' for length / 4)",
            "catalog",
            "tokenizer",
        )
    if counter is not None:
        for part in catalog.parts:
            actual = counter(part.body)
            if actual != part.decl.tokens:
                warn(
                    f"part {part.id!r}: token estimate {part.decl.tokens} is stale, "
                    f"the body has {actual} {counter.name} tokens "
                    "(run `catalog stamp` on the folder)",
                    "part",
                    index[part.id],
                    "tokens",
                )
    # A turn part before static parts, once per part, naming every agent it hits.
    early: dict[str, tuple[list[str], dict[str, None]]] = {}
    for agent in catalog.agents:
        parts = [p for p in catalog.parts if p.decl.for_agent(agent)]
        parts = [p for p in parts if p.decl.kind in ("system", "agent")]
        for position, part in enumerate(parts):
            if part.decl.stability != "turn":
                continue
            later = [p.id for p in parts[position + 1 :] if p.decl.stability == "static"]
            if later:
                agents, static = early.setdefault(part.id, ([], {}))
                agents.append(agent)
                static.update(dict.fromkeys(later))
    for part in catalog.parts:
        if part.id in early:
            agents, static = early[part.id]
            warn(
                f"part {part.id!r} (stability turn, order {part.decl.order}) comes before "
                f"static part(s) {', '.join(static)} for agent(s) {', '.join(agents)}: the "
                "cache prefix breaks every turn; give it a higher order",
                "part",
                index[part.id],
                "order",
            )
    return problems
