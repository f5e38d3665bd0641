"""Checks beyond what loading enforces: warnings a catalog author should see.

Loading already refuses anything that would give a wrong prompt (bad keys,
unknown names, tampered bodies). Validation adds what is legal but probably
a mistake: a token estimate that no longer matches its body, a ``turn``
part ordered before ``static`` parts (it breaks the cache prefix every turn),
and hidden characters in a body (controls, zero-width and bidi characters, tag
characters: a model reads them, a reviewer does not see them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from catalog.engine.catalog import (
    Catalog,
)
from catalog.engine.plan import (
    CompiledPart,
)
from catalog.errors import (
    CatalogError,
)
from catalog.io.manifests import stamp_command
from catalog.io.positions import (
    key_lines,
)
from catalog.text.visible import (
    hidden_runs,
)
from catalog.tokens import get_counter, offline_encodings

__all__ = ["Problem", "check_catalog", "error_problems"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding of ``catalog validate``: the file, the line where known, and what is wrong."""

    severity: Literal["error", "warning"]
    where: str
    message: str
    line: int | None = None
    column: int | None = None
    hint: str | None = None

    @property
    def location(self) -> str:
        """``file:line`` or ``file:line:column`` (or the file alone when no line is known)."""
        if self.line is None:
            return self.where
        return f"{self.where}:{self.line}" + (f":{self.column}" if self.column else "")

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message}"


def error_problems(error: CatalogError, where: str) -> list[Problem]:
    """Every problem of ``error`` (its own, then its :attr:`~CatalogError.others`) as a
    finding at its file, line and column (``where`` when it names no file); the hint,
    said once for all of them, goes with the last."""
    every = [error, *error.others]
    return [
        Problem(
            "error",
            each.file or where,
            f"{each.key}: {each.message}" if each.key else each.message,
            each.line,
            each.column,
            error.hint if number == len(every) - 1 else None,
        )
        for number, each in enumerate(every)
    ]


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
                    f"(run `{stamp_command(Path(manifest_file).parent)}`)",
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
        problems.extend(_hidden(part))
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


# At most this many runs of hidden characters are reported per part, each naming
# at most _CODES_SHOWN code points: enough to find them, bounded on any body.
_RUNS_SHOWN = 20
_CODES_SHOWN = 8
_TAGS = range(0xE0020, 0xE007F)  # tag characters that mirror printable ASCII


def _hidden(part: CompiledPart) -> list[Problem]:
    """A warning at ``file:line:column`` for each run of hidden characters in the
    part's body (see :mod:`catalog.text.visible`); a byte order mark opening the body
    is not one (it is how some editors start a file)."""
    body = part.body
    skip = 1 if body.startswith("\ufeff") else 0
    runs = hidden_runs(body[skip:])
    problems = []
    line, seen = 1, 0
    for found, run in runs[:_RUNS_SHOWN]:
        offset = found + skip
        line += body.count("\n", seen, offset)
        column = offset - body.rfind("\n", 0, offset)
        seen = offset
        codes = " ".join(f"U+{ord(char):04X}" for char in run[:_CODES_SHOWN])
        if len(run) > _CODES_SHOWN:
            codes += f" ... ({len(run)} in all)"
        spelt = "".join(chr(ord(char) - 0xE0000) for char in run if ord(char) in _TAGS)
        spelling = f", tag characters spelling {spelt!r}" if spelt else ""
        problems.append(
            Problem(
                "warning",
                part.path,
                f"part {part.id!r}: hidden characters {codes}{spelling}: a model reads them, "
                "a reviewer does not see them; remove them, or write what they mean as "
                "visible text",
                line,
                column,
            )
        )
    if len(runs) > _RUNS_SHOWN:
        problems.append(
            Problem(
                "warning",
                part.path,
                f"part {part.id!r}: {len(runs) - _RUNS_SHOWN} more runs of hidden characters",
            )
        )
    return problems
