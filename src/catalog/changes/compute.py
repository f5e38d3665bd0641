"""Compute the differences between two compiled catalogs and the prompts they assemble."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from catalog.changes.classify import (
    ASSEMBLY_KEYS,
    PART_KEYS,
    ChangeClass,
    find_renames,
    moved_parts,
    text_class,
)
from catalog.schema.context import Context, coerce_context
from catalog.schema.manifest import MAIN_AGENT, AgentDecl, Manifest, PartDecl, VariableDecl
from catalog.tokens import TokenCounter, get_counter

if TYPE_CHECKING:
    from catalog.engine.catalog import Catalog

__all__ = [
    "JSON_SCHEMA_VERSION",
    "CatalogDiff",
    "ChangeClass",
    "FieldChange",
    "ItemDiff",
    "PartDiff",
    "PromptDiff",
    "Status",
    "diff",
    "fit_context",
    "human_name",
    "lines",
    "unified_diff",
]


# Bumped when a key of the JSON form changes meaning or disappears.
# 2: "upstream" became "reference"; parts have "change" and "old_id"; status "renamed".
JSON_SCHEMA_VERSION = 2

Status = Literal["added", "removed", "changed", "renamed", "unchanged"]

_CATALOG_KEYS = (
    "name", "summary", "tokenizer", "separator", "token_budget", "base", "reference_counter"
)  # fmt: skip
# Manifest tables compared as a whole (their JSON form), reported with the settings.
_MANIFEST_TABLES = ("sources", "binding")
# Manifest tables of named entries, compared entry by entry (``definitions.now``).
_NAMED_TABLES = ("definitions", "lines", "defaults")


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One manifest key whose value differs."""

    key: str
    old: Any
    new: Any


@dataclass(frozen=True, slots=True)
class ItemDiff:
    """A variable or sub-agent added, removed or changed."""

    name: str
    status: Status
    fields: tuple[FieldChange, ...] = ()


@dataclass(frozen=True)
class PartDiff:
    """How one part differs between the two versions: matched by id, or renamed.

    ``change`` says what kind of change it is (:data:`ChangeClass`); for a
    rename, ``old_id`` is the id it had and ``similarity`` how alike the two
    bodies are (1.0: the same). Token counts and the unified diff are
    computed when first read, so a report counts only what it shows.
    """

    id: str
    name: str
    status: Status
    kind: str
    old_order: int | None
    new_order: int | None
    fields: tuple[FieldChange, ...]
    moved: bool
    text_changed: bool
    old_body: str | None
    new_body: str | None
    change: ChangeClass | None = None
    old_id: str | None = None
    old_name: str | None = None
    similarity: float | None = None
    old_reference_tokens: int | None = None
    new_reference_tokens: int | None = None
    labels: tuple[str, str] = ("a", "b")
    count: Callable[[str], int] = field(default=len, repr=False, compare=False)
    # The manifests' own ``tokens`` where they are in the counter's unit, else None.
    stamps: tuple[int | None, int | None] = field(default=(None, None), repr=False)

    @cached_property
    def old_tokens(self) -> int:
        """Tokens of the old body (0 when added)."""
        return _tokens(self.old_body, self.stamps[0], self.count)

    @cached_property
    def new_tokens(self) -> int:
        """Tokens of the new body (0 when removed)."""
        return _tokens(self.new_body, self.stamps[1], self.count)

    @cached_property
    def unified(self) -> str:
        """A unified diff of the two bodies (empty when the text is the same)."""
        return unified_diff(
            self.old_body or "",
            self.new_body or "",
            f"{self.labels[0]}/{self.old_id or self.id}",
            f"{self.labels[1]}/{self.id}",
        )

    @property
    def token_delta(self) -> int:
        """Tokens added (positive) or removed (negative) by this part's change."""
        return self.new_tokens - self.old_tokens

    @property
    def reference_delta(self) -> int | None:
        """The delta in ``reference_tokens``; None when a side present has no figure."""
        old = 0 if self.status == "added" else self.old_reference_tokens
        new = 0 if self.status == "removed" else self.new_reference_tokens
        return None if old is None or new is None else new - old

    def field(self, key: str) -> FieldChange | None:
        """The change of manifest key ``key``, if it changed."""
        return next((f for f in self.fields if f.key == key), None)


def _tokens(body: str | None, stamp: int | None, count: Callable[[str], int]) -> int:
    if body is None:
        return 0
    return stamp if stamp is not None else count(body)


@dataclass(frozen=True, slots=True)
class PromptDiff:
    """The two prompts assembled under one context for one agent."""

    agent: str
    old_text: str
    new_text: str
    old_tokens: int
    new_tokens: int
    old_fingerprint: str
    new_fingerprint: str
    unified: str
    parts_added: tuple[str, ...]
    parts_removed: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def identical(self) -> bool:
        """Whether the two prompts are byte for byte the same."""
        return self.old_fingerprint == self.new_fingerprint

    @property
    def token_delta(self) -> int:
        """Tokens the new prompt has more (or fewer) than the old one."""
        return self.new_tokens - self.old_tokens


@dataclass(frozen=True, slots=True)
class CatalogDiff:
    """Everything that differs between catalog versions ``old`` and ``new``."""

    old_name: str
    old_version: str
    new_name: str
    new_version: str
    counter: str
    settings: tuple[FieldChange, ...]
    variables: tuple[ItemDiff, ...]
    agents: tuple[ItemDiff, ...]
    parts: tuple[PartDiff, ...]
    prompt: PromptDiff | None = None
    reference_counter: str | None = None

    @property
    def old_label(self) -> str:
        """``name@version`` of the old catalog."""
        return f"{self.old_name}@{self.old_version}"

    @property
    def new_label(self) -> str:
        """``name@version`` of the new catalog."""
        return f"{self.new_name}@{self.new_version}"

    @property
    def changes(self) -> tuple[PartDiff, ...]:
        """The parts that are not unchanged."""
        return tuple(p for p in self.parts if p.status != "unchanged")

    @property
    def old_tokens(self) -> int:
        """Tokens of all the old version's part bodies, as written."""
        return sum(p.old_tokens for p in self.parts)

    @property
    def new_tokens(self) -> int:
        """Tokens of all the new version's part bodies, as written."""
        return sum(p.new_tokens for p in self.parts)

    @property
    def token_delta(self) -> int:
        """``new_tokens - old_tokens``."""
        return self.new_tokens - self.old_tokens

    @property
    def has_reference(self) -> bool:
        """Whether any part, on either side, carries ``reference_tokens``."""
        return any(
            p.old_reference_tokens is not None or p.new_reference_tokens is not None
            for p in self.parts
        )

    @property
    def old_reference_tokens(self) -> int:
        """The sum of the old parts' reference figures (parts without one not counted)."""
        return sum(p.old_reference_tokens or 0 for p in self.parts)

    @property
    def new_reference_tokens(self) -> int:
        """The sum of the new parts' reference figures (parts without one not counted)."""
        return sum(p.new_reference_tokens or 0 for p in self.parts)

    @property
    def reference_token_delta(self) -> int:
        """``new_reference_tokens - old_reference_tokens``."""
        return self.new_reference_tokens - self.old_reference_tokens

    @property
    def reference_uncounted(self) -> int:
        """How many parts lack a reference figure on a side where they exist."""
        return sum(
            (p.status != "added" and p.old_reference_tokens is None)
            or (p.status != "removed" and p.new_reference_tokens is None)
            for p in self.parts
        )

    def by_change(self, change: ChangeClass) -> tuple[PartDiff, ...]:
        """The changed or renamed parts of one :data:`ChangeClass`."""
        return tuple(p for p in self.changes if p.change == change and p.status != "added")

    @property
    def identical(self) -> bool:
        """No difference in content (the version numbers may differ)."""
        same_prompt = self.prompt is None or self.prompt.identical
        return not (self.settings or self.variables or self.agents or self.changes) and same_prompt

    def count(self, status: Status) -> int:
        """How many parts have ``status``."""
        return sum(p.status == status for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; its keys are documented in the README and stay stable."""
        return {
            "schema": JSON_SCHEMA_VERSION,
            "old": {"name": self.old_name, "version": self.old_version, "tokens": self.old_tokens},
            "new": {"name": self.new_name, "version": self.new_version, "tokens": self.new_tokens},
            "identical": self.identical,
            "counter": self.counter,
            "token_delta": self.token_delta,
            "reference": _reference_json(self),
            "summary": {
                status: self.count(status) for status in ("added", "removed", "changed", "renamed")
            }
            | {"moved": sum(p.moved for p in self.parts)}
            | {
                f"only_{change}": len(self.by_change(change))
                for change in ("whitespace", "placeholders", "metadata")
            },
            "settings": [_field_json(f) for f in self.settings],
            "variables": [_item_json(i) for i in self.variables],
            "agents": [_item_json(i) for i in self.agents],
            "parts": [_part_json(p) for p in self.changes],
            "prompt": None if self.prompt is None else _prompt_json(self.prompt),
        }


def human_name(decl: PartDecl) -> str:
    """What people call a part: ``meta["name"]``, else its description, else its id."""
    name = decl.meta.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return decl.description.strip() or decl.id


def diff(
    old: Catalog,
    new: Catalog,
    *,
    context: Context | Mapping[str, Any] | None = None,
    agent: str | None = None,
    counter: str | TokenCounter | Callable[[str], int] | None = None,
) -> CatalogDiff:
    """Compare catalog ``old`` with ``new`` (loaded catalogs: ``NAME@SPEC`` is resolved by
    the caller, with :func:`catalog.load` or :meth:`catalog.CatalogPath.load_ref`).

    With ``context`` or ``agent``, both versions are also assembled (for
    ``agent``, default ``main``) and the prompts compared; variables and
    slot overrides a version does not declare are left out for that version
    and listed in :attr:`PromptDiff.notes`.
    """
    old_cat, new_cat = old, new
    count = get_counter(counter, tokenizer=new_cat.manifest.catalog.tokenizer)
    prompt = None
    if context is not None or agent is not None:
        prompt = _prompt_diff(old_cat, new_cat, coerce_context(context), agent or MAIN_AGENT, count)
    return CatalogDiff(
        old_name=old_cat.name,
        old_version=str(old_cat.version),
        new_name=new_cat.name,
        new_version=str(new_cat.version),
        counter=count.name,
        settings=_settings(old_cat.manifest, new_cat.manifest),
        variables=_items(old_cat.manifest.variable, new_cat.manifest.variable),
        agents=_items(old_cat.manifest.agent, new_cat.manifest.agent),
        parts=_part_diffs(old_cat, new_cat, count),
        prompt=prompt,
        reference_counter=new_cat.manifest.catalog.reference_counter
        or old_cat.manifest.catalog.reference_counter,
    )


def _label(catalog: Catalog) -> str:
    return f"{catalog.name}@{catalog.version}"


def _settings(old: Manifest, new: Manifest) -> tuple[FieldChange, ...]:
    """Changed ``[catalog]`` keys, then changed tables (sources, bindings), then each
    changed definition, lines list and kind's defaults."""
    tables = [
        FieldChange(key, before, after)
        for key in _MANIFEST_TABLES
        if (before := old.model_dump(mode="json", include={key}, exclude_defaults=True).get(key))
        != (after := new.model_dump(mode="json", include={key}, exclude_defaults=True).get(key))
    ]
    for table in _NAMED_TABLES:
        before_all = old.model_dump(mode="json", include={table}, exclude_none=True)[table]
        after_all = new.model_dump(mode="json", include={table}, exclude_none=True)[table]
        tables += [
            FieldChange(f"{table}.{name}", before_all.get(name), after_all.get(name))
            for name in sorted(before_all.keys() | after_all.keys())
            if before_all.get(name) != after_all.get(name)
        ]
    return (*_fields(old.catalog, new.catalog, _CATALOG_KEYS), *tables)


def _fields(old: Any, new: Any, keys: Iterable[str]) -> tuple[FieldChange, ...]:
    return tuple(
        FieldChange(key, getattr(old, key), getattr(new, key))
        for key in keys
        if getattr(old, key) != getattr(new, key)
    )


def _items(
    old: Sequence[VariableDecl | AgentDecl], new: Sequence[VariableDecl | AgentDecl]
) -> tuple[ItemDiff, ...]:
    before = {item.name: item for item in old}
    after = {item.name: item for item in new}
    found: list[ItemDiff] = []
    for name in sorted(before.keys() | after.keys()):
        if name not in after:
            found.append(ItemDiff(name, "removed"))
        elif name not in before:
            found.append(ItemDiff(name, "added"))
        else:
            keys = [k for k in type(after[name]).model_fields if k != "name"]
            fields = _fields(before[name], after[name], keys)
            if fields:
                found.append(ItemDiff(name, "changed", fields))
    return tuple(found)


def _moved(old: Catalog, new: Catalog) -> set[str]:
    """Ids of the shared parts that moved (:func:`~catalog.changes.classify.moved_parts`)."""
    return moved_parts(
        [(p.id, p.decl.order) for p in old.parts], [(p.id, p.decl.order) for p in new.parts]
    )


def lines(text: str) -> list[str]:
    """``text`` split at line feeds only: a carriage return, a form feed or a line
    separator inside a line stays in it (and a report shows it), never a line break
    a reader cannot see."""
    found = text.split("\n")
    if found[-1] == "":
        found.pop()
    return found


def unified_diff(old: str, new: str, old_label: str, new_label: str) -> str:
    """A unified diff of two texts, lines split by :func:`lines`; empty when equal."""
    if old == new:
        return ""
    diff_lines = difflib.unified_diff(
        lines(old), lines(new), fromfile=old_label, tofile=new_label, lineterm=""
    )
    return "\n".join(diff_lines)


def _stamp(catalog: Catalog, count: TokenCounter) -> Callable[[PartDecl], int | None]:
    """A part's own ``tokens`` when they are in ``count``'s unit (the catalog's tokenizer)."""
    if count.name != catalog.manifest.catalog.tokenizer:
        return lambda decl: None
    return lambda decl: decl.tokens


def _part_diffs(old: Catalog, new: Catalog, count: TokenCounter) -> tuple[PartDiff, ...]:
    before = {p.id: p for p in old.parts}
    after = {p.id: p for p in new.parts}
    renames = {
        new_id: (old_id, similarity)
        for old_id, new_id, similarity in find_renames(
            {i: p.body for i, p in before.items() if i not in after},
            {i: p.body for i, p in after.items() if i not in before},
        )
    }
    renamed_from = {old_id for old_id, _ in renames.values()}
    moved = _moved(old, new)
    old_stamp, new_stamp = _stamp(old, count), _stamp(new, count)
    labels = (_label(old), _label(new))
    ids = sorted(
        (before.keys() - renamed_from) | after.keys(),
        key=lambda i: ((after.get(i) or before[i]).decl.order, i),
    )
    found = []
    for part_id in ids:
        b = after.get(part_id)
        rename = renames.get(part_id)
        a = before[rename[0]] if rename else before.get(part_id)
        decl = b.decl if b is not None else before[part_id].decl
        fields: tuple[FieldChange, ...] = ()
        status: Status = "added" if a is None else "removed" if b is None else "unchanged"
        change: ChangeClass | None = None
        if a is not None and b is not None:
            fields = _fields(a.decl, b.decl, PART_KEYS)
            change = text_class(a.body, b.body)
            # A rename's class is its text's: its id, file and name change by definition.
            if change is None and not rename:
                if part_id in moved or any(f.key in ASSEMBLY_KEYS for f in fields):
                    change = "assembly"
                elif fields:
                    change = "metadata"
            if rename:
                status = "renamed"
            elif change is not None or part_id in moved:
                status = "changed"
        found.append(
            PartDiff(
                id=part_id,
                name=human_name(decl),
                status=status,
                kind=decl.kind,
                old_order=a.decl.order if a else None,
                new_order=b.decl.order if b else None,
                fields=fields,
                moved=part_id in moved,
                text_changed=a is not None and b is not None and a.body != b.body,
                old_body=a.body if a else None,
                new_body=b.body if b else None,
                change=change,
                old_id=rename[0] if rename else None,
                old_name=human_name(a.decl) if rename and a else None,
                similarity=rename[1] if rename else None,
                old_reference_tokens=a.decl.reference_tokens if a else None,
                new_reference_tokens=b.decl.reference_tokens if b else None,
                labels=labels,
                count=count,
                stamps=(
                    old_stamp(a.decl) if a else None,
                    new_stamp(b.decl) if b else None,
                ),
            )
        )
    return tuple(found)


def fit_context(catalog: Catalog, context: Context) -> tuple[Context, list[str]]:
    """The context without the variables and overrides ``catalog`` does not declare."""
    notes: list[str] = []
    variables = {k: v for k, v in context.variables.items() if k in catalog.variable_types}
    overrides = {k: v for k, v in context.overrides.items() if k in catalog.slots}
    label = _label(catalog)
    notes.extend(
        f"variable {k!r} is not declared by {label}: left out"
        for k in context.variables
        if k not in variables
    )
    notes.extend(
        f"slot {k!r} does not exist in {label}: override left out"
        for k in context.overrides
        if k not in overrides
    )
    if notes:
        context = context.model_copy(update={"variables": variables, "overrides": overrides})
    return context, notes


@dataclass(frozen=True, slots=True)
class _Side:
    """One version's prompt for the prompt diff; empty when it has no such agent."""

    text: str = ""
    tokens: int = 0
    fingerprint: str = ""
    ids: tuple[str, ...] = ()


def _side(
    catalog: Catalog, context: Context, agent: str, count: TokenCounter
) -> tuple[_Side, list[str]]:
    if agent not in catalog.agents:
        return _Side(), [f"agent {agent!r} does not exist in {_label(catalog)}: no prompt"]
    fitted, notes = fit_context(catalog, context)
    prompt = catalog.assemble(fitted, agent=agent, counter=count)
    ids = tuple(p.id for p in prompt.parts)
    return _Side(prompt.text, prompt.tokens, prompt.fingerprint, ids), notes


def _prompt_diff(
    old: Catalog, new: Catalog, context: Context, agent: str, count: TokenCounter
) -> PromptDiff:
    if agent not in old.agents and agent not in new.agents:
        new.agent_info(agent)  # raises NotFoundError listing the agents there are
    a, old_notes = _side(old, context, agent, count)
    b, new_notes = _side(new, context, agent, count)
    return PromptDiff(
        agent=agent,
        old_text=a.text,
        new_text=b.text,
        old_tokens=a.tokens,
        new_tokens=b.tokens,
        old_fingerprint=a.fingerprint,
        new_fingerprint=b.fingerprint,
        unified=unified_diff(
            a.text, b.text, f"{_label(old)} ({agent})", f"{_label(new)} ({agent})"
        ),
        parts_added=tuple(i for i in b.ids if i not in a.ids),
        parts_removed=tuple(i for i in a.ids if i not in b.ids),
        notes=tuple(old_notes + new_notes),
    )


# ------------------------------------------------------------------ JSON


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _field_json(change: FieldChange) -> dict[str, Any]:
    return {"key": change.key, "old": _jsonable(change.old), "new": _jsonable(change.new)}


def _item_json(item: ItemDiff) -> dict[str, Any]:
    fields = [_field_json(f) for f in item.fields]
    return {"name": item.name, "status": item.status, "fields": fields}


def _reference_json(result: CatalogDiff) -> dict[str, Any] | None:
    if not result.has_reference:
        return None
    return {
        "counter": result.reference_counter,
        "old": result.old_reference_tokens,
        "new": result.new_reference_tokens,
        "delta": result.reference_token_delta,
        "uncounted": result.reference_uncounted,
    }


def _part_json(part: PartDiff) -> dict[str, Any]:
    return {
        "id": part.id,
        "old_id": part.old_id,
        "name": part.name,
        "status": part.status,
        "change": part.change,
        "similarity": part.similarity,
        "kind": part.kind,
        "old_order": part.old_order,
        "new_order": part.new_order,
        "moved": part.moved,
        "text_changed": part.text_changed,
        "fields": [_field_json(f) for f in part.fields],
        "old_tokens": part.old_tokens,
        "new_tokens": part.new_tokens,
        "token_delta": part.token_delta,
        "old_reference_tokens": part.old_reference_tokens,
        "new_reference_tokens": part.new_reference_tokens,
        "reference_token_delta": part.reference_delta,
        "unified": part.unified,
    }


def _prompt_json(prompt: PromptDiff) -> dict[str, Any]:
    return {
        "agent": prompt.agent,
        "identical": prompt.identical,
        "old_tokens": prompt.old_tokens,
        "new_tokens": prompt.new_tokens,
        "token_delta": prompt.token_delta,
        "old_fingerprint": prompt.old_fingerprint,
        "new_fingerprint": prompt.new_fingerprint,
        "parts_added": list(prompt.parts_added),
        "parts_removed": list(prompt.parts_removed),
        "notes": list(prompt.notes),
        "unified": prompt.unified,
    }
