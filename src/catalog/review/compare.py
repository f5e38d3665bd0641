"""Both sides of a change: every changed catalog version's prompts, assembled and compared.

For each catalog whose files differ between two revisions, each version that
may differ is loaded on both sides (a version added is compared with the
newest older version of the base; one removed, or of a catalog added or
removed, with nothing); so is a version whose own files did not change but whose
base did (an overlay's, see :mod:`catalog.review.overlays`), listed only when a
prompt differs. For each review context of its manifest
(``[[review.context]]``; without any, an empty context for every agent) the
prompt of each agent is assembled with the catalog's counter on both sides:
the system text and the tools array are diffed, the parts that came in or went
out are listed with why, and the cache economics are worked out for every
model the manifest names (``[review] models``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from importlib.resources.abc import Traversable
from typing import Literal

from catalog.changes.compute import fit_context, unified_diff
from catalog.engine.catalog import Catalog
from catalog.engine.prompt import AssembledPrompt
from catalog.errors import CatalogError, EvaluationError, ReviewError
from catalog.io.catalog_path import CatalogPath, CatalogSource, VersionRef
from catalog.review.economics import Cost, conversation_cost, split
from catalog.review.overlays import BaseChange, Bases, Files, own_changed, shared_changed
from catalog.review.prices import Prices
from catalog.review.revisions import Revision
from catalog.schema import validate
from catalog.schema.manifest import MAIN_AGENT, ReviewContextDecl, is_catalog_name
from catalog.text.visible import visible_line

__all__ = [
    "EMPTY_CONTEXT",
    "MAX_MODELS",
    "MAX_PROMPTS",
    "MAX_REVIEW_PROMPTS",
    "ModelCost",
    "PromptChange",
    "Review",
    "Settings",
    "Status",
    "VersionChange",
    "review",
]

Status = Literal["added", "removed", "changed", "unchanged"]
EMPTY_CONTEXT = "empty"
"""The name of the context review uses for a catalog that declares none."""
MAX_PROMPTS = 1_000
"""Most prompts (review contexts times agents) assembled for one version: a bound on
the work a manifest can ask of a review."""
MAX_MODELS = 20
"""Most models one version's prompts are priced on (``[review] models`` of both sides)."""
MAX_REVIEW_PROMPTS = 5_000
"""Most prompts assembled in one review, over every version: a change to more catalogs
lists the versions past it as left out (an error, so the check fails), unloaded."""
MAX_OVER_BUDGET = 10
"""Versions whose evaluation may fail (a spent evaluation budget, too many loop
iterations...) before the review stops loading more: each may cost a whole budget."""


@dataclass
class _Budget:
    """The prompts one review may still assemble."""

    left: int = field(default_factory=lambda: MAX_REVIEW_PROMPTS)
    over: int = 0

    def take(self, wanted: int) -> None:
        """Count ``wanted`` prompts, or refuse them when they are more than are left (or
        none is left)."""
        if self.over >= MAX_OVER_BUDGET:
            raise ReviewError(
                f"left out: {self.over} versions already failed in evaluation, each "
                "spending up to a whole evaluation budget",
                hint="fix those versions' expressions, then review again",
            )
        if wanted > self.left or not self.left:
            raise ReviewError(
                f"left out: the review assembles at most {MAX_REVIEW_PROMPTS} prompts, and "
                f"{MAX_REVIEW_PROMPTS - self.left} are assembled already",
                hint="review fewer catalogs at a time, naming their folders with --path",
            )
        self.left -= wanted


@dataclass(frozen=True, slots=True)
class Settings:
    """How a review counts and prices: the token counter (None: each catalog's own), the
    prices, the turns of a conversation and the cache lifetime; ``labels`` name the two
    sides in diffs (:func:`review` sets them)."""

    prices: Prices
    turns: int = 10
    ttl: str = "5m"
    counter: str | None = None
    labels: tuple[str, str] = ("before", "after")


@dataclass(frozen=True, slots=True)
class ModelCost:
    """One model's conversation cost before and after (None on a side without the
    prompt), or why it could not be worked out."""

    model: str
    old: Cost | None
    new: Cost | None
    problem: str = ""


@dataclass(frozen=True)
class PromptChange:
    """One agent's prompt under one review context, on both sides."""

    context: str
    agent: str
    status: Status
    old_tokens: int
    new_tokens: int
    old_tools_tokens: int
    new_tools_tokens: int
    system_diff: str
    tools_diff: str
    parts_in: tuple[tuple[str, str], ...]
    parts_out: tuple[tuple[str, str], ...]
    costs: tuple[ModelCost, ...]
    notes: tuple[str, ...] = ()

    @property
    def delta(self) -> int:
        """Tokens gained by the system text (lost, when negative)."""
        return self.new_tokens - self.old_tokens

    @property
    def tools_delta(self) -> int:
        """Tokens gained by the tools array."""
        return self.new_tools_tokens - self.old_tools_tokens


@dataclass(frozen=True)
class VersionChange:
    """A catalog version that changed, came or went: what it is compared with and how
    each reviewed prompt differs (``error`` when a side could not be loaded)."""

    root: str
    catalog: str
    status: Status
    catalog_status: Status
    old_version: str | None
    new_version: str | None
    prompts: tuple[PromptChange, ...] = ()
    error: str = ""
    through: BaseChange | None = None
    """Set when the version's own files did not change but its base's did."""

    @property
    def label(self) -> str:
        """``NAME OLD -> NEW``, ``NAME VERSION (new)`` or ``NAME VERSION (removed)`` (the
        name alone when its versions could not be listed)."""
        if self.old_version is None and self.new_version is None:
            return self.catalog
        if self.old_version is None:
            return f"{self.catalog} {self.new_version} (new)"
        if self.new_version is None:
            return f"{self.catalog} {self.old_version} (removed)"
        if self.old_version == self.new_version:
            return f"{self.catalog} {self.new_version}"
        return f"{self.catalog} {self.old_version} -> {self.new_version}"


@dataclass(frozen=True)
class Review:
    """What changed between two revisions: ``base`` and ``head`` name them."""

    base: str
    head: str
    versions: tuple[VersionChange, ...] = field(default=())
    priced: str = ""
    """How costs were worked out: turns, cache lifetime, the prices' date and source."""

    @property
    def changed(self) -> bool:
        """Whether any catalog changed."""
        return bool(self.versions)

    @property
    def errors(self) -> list[str]:
        """Every version that could not be reviewed, with why."""
        return [f"{v.label}: {v.error}" for v in self.versions if v.error]


def review(base: Revision, head: Revision, roots: Sequence[str], settings: Settings) -> Review:
    """Compare the catalogs under ``roots`` between ``base`` and ``head``."""
    settings = replace(settings, labels=(base.short, head.short))
    budget = _Budget()
    found: list[VersionChange] = []
    for root in roots:
        found.extend(_root(base, head, root, settings, budget))
    prices = settings.prices
    priced = (
        f"{settings.turns}-turn conversations, {settings.ttl} cache, prices of "
        f"{prices.taken or 'unknown date'} from {', '.join(prices.urls) or ', '.join(prices.files)}"
    )
    return Review(base.label, head.label, tuple(found), priced)


def _root(
    base: Revision, head: Revision, root: str, settings: Settings, budget: _Budget
) -> Iterable[VersionChange]:
    """The versions of the catalogs in folder ``root`` that changed, came or went, and
    those that changed only through their base (looked for only when a catalog of the
    folder changed: a base outside it is the same on both sides)."""
    paths = (_catalog_path(base, root), _catalog_path(head, root))
    old_names, new_names = _names(base.folder(root)), _names(head.folder(root))
    names = sorted(set(old_names) | set(new_names))
    every: dict[str, Files] = {}
    for name in names:
        folder = f"{root}/{name}".lstrip("/")
        every[name] = (base.files(folder), head.files(folder))
    changed = {name: files for name, files in every.items() if files[0] != files[1]}
    if not changed:
        return
    bases = Bases(paths, changed)
    for name in names:
        try:
            old_refs = paths[0].versions(name) if name in old_names else []
            new_refs = paths[1].versions(name) if name in new_names else []
        except CatalogError as exc:  # two folders of one version, say
            if name in changed:
                yield VersionChange(root, name, "changed", "changed", None, None, error=_said(exc))
            continue  # unchanged: it fails alike on both sides
        yield from _versions(
            root, name, (old_refs, new_refs), every[name], (settings, budget, bases)
        )


def _catalog_path(revision: Revision, root: str) -> CatalogPath:
    """A catalog path whose first source is the revision's folder ``root`` (an overlay's
    base may also come from installed or bundled catalogs)."""
    found = CatalogPath(use_env=False)
    source = CatalogSource(f"{revision.label}:{root or '.'}", revision.folder(root))
    found.sources = (source, *found.sources)
    return found


def _names(folder: Traversable) -> list[str]:
    try:
        return [c.name for c in folder.iterdir() if is_catalog_name(c.name) and c.is_dir()]
    except (FileNotFoundError, NotADirectoryError):
        return []


def _versions(
    root: str,
    name: str,
    refs: tuple[list[VersionRef], list[VersionRef]],
    files: Files,
    how: tuple[Settings, _Budget, Bases],
) -> Iterable[VersionChange]:
    """The versions of catalog ``name`` that changed, came or went, or changed through
    their base."""
    settings, budget, bases = how
    old_refs, new_refs = refs
    catalog_status: Status = (
        "unchanged"
        if files[0] == files[1]
        else "added"
        if not old_refs
        else "removed"
        if not new_refs
        else "changed"
    )
    old_by = {str(ref.version): ref for ref in old_refs}
    new_by = {str(ref.version): ref for ref in new_refs}
    shared = shared_changed(files, [*old_by.values(), *new_by.values()])
    for version, new_ref in new_by.items():
        old_ref = old_by.get(version)
        if old_ref is None:
            older = [ref for ref in old_refs if ref.version < new_ref.version]
            yield _change(
                root,
                name,
                "added",
                catalog_status,
                (older[-1] if older else None, new_ref),
                settings,
                budget,
            )
            continue
        own = own_changed(files, old_ref, new_ref)
        through = None if shared or own else bases.change(old_ref, new_ref)
        if shared or own or through is not None:
            change = _change(
                root, name, "changed", catalog_status, (old_ref, new_ref), settings, budget
            )
            change = replace(change, through=through)
            # A version whose own files changed is listed even when no reviewed prompt did.
            if own or change.error or any(p.status != "unchanged" for p in change.prompts):
                yield change
    for version, old_ref in old_by.items():
        if version not in new_by:
            yield _change(root, name, "removed", catalog_status, (old_ref, None), settings, budget)


def _change(
    root: str,
    name: str,
    status: Status,
    catalog_status: Status,
    refs: tuple[VersionRef | None, VersionRef | None],
    settings: Settings,
    budget: _Budget,
) -> VersionChange:
    old_ref, new_ref = refs
    versions = (
        str(old_ref.version) if old_ref else None,
        str(new_ref.version) if new_ref else None,
    )
    try:
        budget.take(0)  # no version is loaded once the review's bound is reached
        old = old_ref.load() if old_ref else None
        new = new_ref.load() if new_ref else None
        prompts = tuple(_prompts(old, new, settings, budget))
    except CatalogError as exc:
        if isinstance(exc, EvaluationError):
            budget.over += 1
        return VersionChange(root, name, status, catalog_status, *versions, error=_said(exc))
    return VersionChange(root, name, status, catalog_status, *versions, prompts=prompts)


def _said(exc: CatalogError) -> str:
    """The error on one line: where and what, then the hint in brackets."""
    where = str(exc).split("\n", 1)[0]
    return f"{where} ({exc.hint})" if exc.hint else where


def _contexts(old: Catalog | None, new: Catalog | None) -> tuple[ReviewContextDecl, ...]:
    for side in (new, old):
        if side is not None and side.manifest.review.context:
            return side.manifest.review.context
    return (validate(ReviewContextDecl, {"name": EMPTY_CONTEXT}),)


def _prompts(
    old: Catalog | None, new: Catalog | None, settings: Settings, budget: _Budget
) -> Iterable[PromptChange]:
    sides = [side for side in (new, old) if side is not None]
    every_agent = list(dict.fromkeys(a for side in sides for a in side.agents))
    every_agent.sort(key=lambda agent: agent != MAIN_AGENT)
    models = list(dict.fromkeys(m for side in sides for m in side.manifest.review.models))
    if len(models) > MAX_MODELS:
        raise ReviewError(
            f"[review] models names {len(models)} models, more than {MAX_MODELS}",
            hint="price the models that matter; `catalog cost` prices any other",
        )
    contexts = _contexts(old, new)
    wanted = sum(len(decl.agents or every_agent) for decl in contexts)
    if wanted > MAX_PROMPTS:
        raise ReviewError(
            f"the review contexts ask for {wanted} prompts, more than {MAX_PROMPTS}",
            hint="declare fewer [[review.context]] entries, or name their agents",
        )
    budget.take(wanted)
    for decl in contexts:
        for agent in decl.agents or every_agent:
            a = _assemble(old, decl, agent, settings.counter)
            b = _assemble(new, decl, agent, settings.counter)
            yield _prompt_change(decl.name, agent, a, b, models, settings)


def _assemble(
    catalog: Catalog | None, decl: ReviewContextDecl, agent: str, counter: str | None
) -> AssembledPrompt | None:
    if catalog is None or agent not in catalog.agents:
        return None
    context, _ = fit_context(catalog, decl.context)
    return catalog.assemble(context, agent=agent, counter=counter)


def _tools_text(prompt: AssembledPrompt | None) -> str:
    """The tools array as text a diff can show: each tool's name over its description."""
    if prompt is None:
        return ""
    return "".join(f"[tool {tool.name}]\n{tool.description}\n\n" for tool in prompt.tools)


def _why_out(new: AssembledPrompt | None, part: str) -> str:
    if new is None:
        return "the prompt is gone"
    left = next((e for e in new.excluded if e.id == part), None)
    return left.why if left is not None else "no longer in the catalog"


def _prompt_change(
    context: str,
    agent: str,
    old: AssembledPrompt | None,
    new: AssembledPrompt | None,
    models: list[str],
    settings: Settings,
) -> PromptChange:
    before, after = settings.labels
    labels = (
        f"{before}: {old.catalog} {old.version} ({agent})" if old else "/dev/null",
        f"{after}: {new.catalog} {new.version} ({agent})" if new else "/dev/null",
    )
    old_ids = {p.id: p for p in old.parts} if old else {}
    new_ids = {p.id: p for p in new.parts} if new else {}
    old_text, new_text = (old.text if old else ""), (new.text if new else "")
    old_tools, new_tools = _tools_text(old), _tools_text(new)
    status: Status = (
        "added"
        if old is None
        else "removed"
        if new is None
        else "unchanged"
        if (old_text, old_tools) == (new_text, new_tools)
        else "changed"
    )
    notes = [*(old.notes if old else ()), *(new.notes if new else ())]
    return PromptChange(
        context=context,
        agent=agent,
        status=status,
        old_tokens=old.tokens if old else 0,
        new_tokens=new.tokens if new else 0,
        old_tools_tokens=sum(t.tokens for t in old.tools) if old else 0,
        new_tools_tokens=sum(t.tokens for t in new.tools) if new else 0,
        system_diff=unified_diff(old_text, new_text, *labels),
        tools_diff=unified_diff(old_tools, new_tools, *(f"{label} tools" for label in labels)),
        parts_in=tuple(
            (part, visible_line(used.why)) for part, used in new_ids.items() if part not in old_ids
        ),
        parts_out=tuple(
            (part, visible_line(_why_out(new, part))) for part in old_ids if part not in new_ids
        ),
        costs=tuple(_model_cost(model, old, new, settings) for model in models),
        notes=tuple(dict.fromkeys(notes)),
    )


def _model_cost(
    model_id: str, old: AssembledPrompt | None, new: AssembledPrompt | None, settings: Settings
) -> ModelCost:
    try:
        model = settings.prices.model(model_id)
    except CatalogError as exc:
        return ModelCost(model_id, None, None, exc.message)

    def cost(prompt: AssembledPrompt | None) -> Cost | None:
        if prompt is None:
            return None
        return conversation_cost(split(prompt), model, turns=settings.turns, ttl=settings.ttl)

    return ModelCost(model_id, cost(old), cost(new))
