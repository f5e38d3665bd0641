"""Diffs between two catalog versions, and between the prompts they assemble.

:func:`diff` compares two compiled catalogs part by part (matched by id) and
returns an immutable :class:`CatalogDiff`: parts added, removed and changed
(text with a unified diff, order, condition, agents, stability, slot and the
other manifest keys), parts moved (their place among the parts both versions
share changed; see :func:`_moved` for which of two swapped parts), token deltas
per part and in total, and the changes to the catalog's settings, variables
and sub-agents. Given a context, it also assembles both versions and diffs
the two prompts.

Token figures count each part body as written (templates unrendered) with the
newer catalog's tokenizer unless ``counter=`` says otherwise; the prompt diff
counts the assembled texts. The version number itself is reported but is not
a difference: :attr:`CatalogDiff.identical` means same content.

The renderers (:func:`render_text`, :func:`render_markdown`,
:func:`render_json`, :func:`render_html`) only read the diff object.
"""

from __future__ import annotations

import difflib
import html
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from catalog.compiled import body_sha256
from catalog.context import Context, coerce_context
from catalog.manifest import MAIN_AGENT, AgentDecl, Manifest, PartDecl, VariableDecl
from catalog.tokens import TokenCounter, get_counter

if TYPE_CHECKING:
    from catalog.compiled import Catalog

__all__ = [
    "JSON_SCHEMA_VERSION",
    "UPSTREAM_TOKENS",
    "CatalogDiff",
    "FieldChange",
    "ItemDiff",
    "PartDiff",
    "PromptDiff",
    "Status",
    "diff",
    "human_name",
    "render_html",
    "render_json",
    "render_markdown",
    "render_text",
]

# Bumped when a key of the JSON form changes meaning or disappears.
JSON_SCHEMA_VERSION = 1

# The ``meta`` key holding a part's token count as its source counted it.
UPSTREAM_TOKENS = "upstream_tokens"

Status = Literal["added", "removed", "changed", "unchanged"]

# Manifest keys compared for a part, in report order (body, sha256 and tokens
# are covered by the text comparison).
_PART_KEYS = (
    "kind",
    "name",
    "order",
    "when",
    "agents",
    "stability",
    "slot",
    "template",
    "required",
    "priority",
    "description",
    "file",
    "meta",
)
_CATALOG_KEYS = ("name", "summary", "tokenizer", "separator", "token_budget", "base")
# Manifest tables compared as a whole (their JSON form), reported with the settings.
_MANIFEST_TABLES = ("sources", "binding")


@dataclass(frozen=True)
class FieldChange:
    """One manifest key whose value differs."""

    key: str
    old: Any
    new: Any


@dataclass(frozen=True)
class ItemDiff:
    """A variable or sub-agent added, removed or changed."""

    name: str
    status: Status
    fields: tuple[FieldChange, ...] = ()


@dataclass(frozen=True)
class PartDiff:
    """How one part (matched by id) differs between the two versions."""

    id: str
    name: str
    status: Status
    kind: str
    old_order: int | None
    new_order: int | None
    fields: tuple[FieldChange, ...]
    moved: bool
    text_changed: bool
    unified: str
    old_body: str | None
    new_body: str | None
    old_tokens: int
    new_tokens: int
    old_upstream_tokens: int | None = None
    new_upstream_tokens: int | None = None

    @property
    def token_delta(self) -> int:
        """Tokens added (positive) or removed (negative) by this part's change."""
        return self.new_tokens - self.old_tokens

    @property
    def upstream_delta(self) -> int | None:
        """The delta in ``meta["upstream_tokens"]``; None when a side present has no figure."""
        old = 0 if self.status == "added" else self.old_upstream_tokens
        new = 0 if self.status == "removed" else self.new_upstream_tokens
        return None if old is None or new is None else new - old

    def field(self, key: str) -> FieldChange | None:
        """The change of manifest key ``key``, if it changed."""
        return next((f for f in self.fields if f.key == key), None)


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    def has_upstream(self) -> bool:
        """Whether any part, on either side, carries ``meta["upstream_tokens"]``."""
        return any(
            p.old_upstream_tokens is not None or p.new_upstream_tokens is not None
            for p in self.parts
        )

    @property
    def old_upstream_tokens(self) -> int:
        """The sum of the old parts' upstream figures (parts without one not counted)."""
        return sum(p.old_upstream_tokens or 0 for p in self.parts)

    @property
    def new_upstream_tokens(self) -> int:
        """The sum of the new parts' upstream figures (parts without one not counted)."""
        return sum(p.new_upstream_tokens or 0 for p in self.parts)

    @property
    def upstream_token_delta(self) -> int:
        """``new_upstream_tokens - old_upstream_tokens``."""
        return self.new_upstream_tokens - self.old_upstream_tokens

    @property
    def upstream_uncounted(self) -> int:
        """How many parts lack an upstream figure on a side where they exist."""
        return sum(
            (p.status != "added" and p.old_upstream_tokens is None)
            or (p.status != "removed" and p.new_upstream_tokens is None)
            for p in self.parts
        )

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
            "upstream": _upstream_json(self),
            "summary": {status: self.count(status) for status in ("added", "removed", "changed")}
            | {"moved": sum(p.moved for p in self.parts)},
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
    old: Catalog | str,
    new: Catalog | str,
    *,
    context: Context | Mapping[str, Any] | None = None,
    agent: str | None = None,
    counter: str | TokenCounter | Callable[[str], int] | None = None,
) -> CatalogDiff:
    """Compare catalog ``old`` with ``new`` (catalogs, or ``NAME@VERSION``/folder refs).

    With ``context`` or ``agent``, both versions are also assembled (for
    ``agent``, default ``main``) and the prompts compared; variables and
    slot overrides a version does not declare are left out for that version
    and listed in :attr:`PromptDiff.notes`.
    """
    old_cat, new_cat = _resolve(old), _resolve(new)
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
    )


def _resolve(ref: Catalog | str) -> Catalog:
    if isinstance(ref, str):
        from catalog.store import Store

        return Store().load_ref(ref)
    return ref


def _label(catalog: Catalog) -> str:
    return f"{catalog.name}@{catalog.version}"


def _settings(old: Manifest, new: Manifest) -> tuple[FieldChange, ...]:
    """Changed ``[catalog]`` keys, then changed ``[sources]`` and ``[[binding]]`` tables."""
    tables = (
        FieldChange(key, before, after)
        for key in _MANIFEST_TABLES
        if (before := old.model_dump(mode="json", include={key}, exclude_defaults=True).get(key))
        != (after := new.model_dump(mode="json", include={key}, exclude_defaults=True).get(key))
    )
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
    """Ids of the shared parts to take out so that the rest keep their relative order.

    A common subsequence of the two orders is chosen to keep as many parts as
    possible, a part whose ``order`` value is unchanged counting 3 and a
    renumbered one 2: the parts an author renumbered are the ones called
    moved, not the neighbours they jumped over.
    """
    before_orders = {p.id: p.decl.order for p in old.parts}
    after_orders = {p.id: p.decl.order for p in new.parts}
    before = [i for i in before_orders if i in after_orders]
    after = [i for i in after_orders if i in before_orders]
    weight = {i: 2 + (before_orders[i] == after_orders[i]) for i in before}
    rows, cols = len(before), len(after)
    best = [[0] * (cols + 1) for _ in range(rows + 1)]
    for r in range(rows - 1, -1, -1):
        for c in range(cols - 1, -1, -1):
            if before[r] == after[c]:
                best[r][c] = best[r + 1][c + 1] + weight[before[r]]
            else:
                best[r][c] = max(best[r + 1][c], best[r][c + 1])
    kept: set[str] = set()
    r = c = 0
    while r < rows and c < cols:
        if before[r] == after[c]:
            kept.add(before[r])
            r, c = r + 1, c + 1
        elif best[r + 1][c] >= best[r][c + 1]:
            r += 1
        else:
            c += 1
    return set(before) - kept


def _unified(old: str, new: str, old_label: str, new_label: str) -> str:
    if old == new:
        return ""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_label, tofile=new_label, lineterm=""
    )
    return "\n".join(lines)


def _part_diffs(old: Catalog, new: Catalog, count: TokenCounter) -> tuple[PartDiff, ...]:
    before = {p.id: p for p in old.parts}
    after = {p.id: p for p in new.parts}
    moved = _moved(old, new)
    ids = sorted(
        before.keys() | after.keys(),
        key=lambda i: ((after.get(i) or before[i]).decl.order, i),
    )
    found = []
    for part_id in ids:
        a, b = before.get(part_id), after.get(part_id)
        decl = b.decl if b is not None else before[part_id].decl
        old_body = a.body if a else None
        new_body = b.body if b else None
        fields: tuple[FieldChange, ...] = ()
        status: Status = "added" if a is None else "removed" if b is None else "unchanged"
        text_changed = False
        if a is not None and b is not None:
            fields = _fields(a.decl, b.decl, _PART_KEYS)
            text_changed = a.body != b.body
            if fields or text_changed or part_id in moved:
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
                text_changed=text_changed,
                unified=_unified(
                    old_body or "",
                    new_body or "",
                    f"{_label(old)}/{part_id}",
                    f"{_label(new)}/{part_id}",
                ),
                old_body=old_body,
                new_body=new_body,
                old_tokens=count(old_body) if old_body is not None else 0,
                new_tokens=count(new_body) if new_body is not None else 0,
                old_upstream_tokens=_upstream_tokens(a.decl) if a else None,
                new_upstream_tokens=_upstream_tokens(b.decl) if b else None,
            )
        )
    return tuple(found)


def _upstream_tokens(decl: PartDecl) -> int | None:
    value = decl.meta.get(UPSTREAM_TOKENS)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _fit_context(catalog: Catalog, context: Context) -> tuple[Context, list[str]]:
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


class _Side(NamedTuple):
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
    fitted, notes = _fit_context(catalog, context)
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
        unified=_unified(a.text, b.text, f"{_label(old)} ({agent})", f"{_label(new)} ({agent})"),
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


def _upstream_json(result: CatalogDiff) -> dict[str, int] | None:
    if not result.has_upstream:
        return None
    return {
        "old": result.old_upstream_tokens,
        "new": result.new_upstream_tokens,
        "delta": result.upstream_token_delta,
        "uncounted": result.upstream_uncounted,
    }


def _part_json(part: PartDiff) -> dict[str, Any]:
    return {
        "id": part.id,
        "name": part.name,
        "status": part.status,
        "kind": part.kind,
        "old_order": part.old_order,
        "new_order": part.new_order,
        "moved": part.moved,
        "text_changed": part.text_changed,
        "fields": [_field_json(f) for f in part.fields],
        "old_tokens": part.old_tokens,
        "new_tokens": part.new_tokens,
        "token_delta": part.token_delta,
        "old_upstream_tokens": part.old_upstream_tokens,
        "new_upstream_tokens": part.new_upstream_tokens,
        "upstream_token_delta": part.upstream_delta,
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


def render_json(result: CatalogDiff) -> str:
    """The diff as indented JSON with sorted keys (see :meth:`CatalogDiff.to_dict`)."""
    return json.dumps(result.to_dict(), indent=2, ensure_ascii=False, sort_keys=True)


# ------------------------------------------------------------------ text


_COLOURS = {"+": "32", "-": "31", "~": "33", "@": "36", "!": "1"}
_MARK = {"added": "+", "removed": "-", "changed": "~", "unchanged": " "}


def _signed(value: int) -> str:
    return f"{value:+d}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if value is None:
        return "none"
    return json.dumps(_jsonable(value), ensure_ascii=False, sort_keys=True)


def _item_detail(item: ItemDiff, arrow: str) -> str:
    return "; ".join(f"{c.key} {_show(c.old)} {arrow} {_show(c.new)}" for c in item.fields)


def _shown_fields(part: PartDiff) -> list[FieldChange]:
    """The key changes a report spells out.

    ``meta`` is split key by key (``meta.ccVersion``), leaving out
    ``upstream_tokens``, which the token figures show. A ``file`` change is left
    out when both names are their bodies' sha256 (content-addressed storage):
    such a name changes whenever the text does and says nothing more.
    """
    shown: list[FieldChange] = []
    for change in part.fields:
        if change.key == "meta":
            old, new = change.old, change.new
            shown.extend(
                FieldChange(f"meta.{key}", old.get(key), new.get(key))
                for key in dict.fromkeys([*old, *new])
                if key != UPSTREAM_TOKENS and old.get(key) != new.get(key)
            )
        elif not (
            change.key == "file"
            and _content_addressed(change.old, part.old_body)
            and _content_addressed(change.new, part.new_body)
        ):
            shown.append(change)
    return shown


def _content_addressed(file: Any, body: str | None) -> bool:
    return body is not None and PurePosixPath(str(file)).stem == body_sha256(body)


def _describe_fields(part: PartDiff) -> list[str]:
    """One phrase per change of a changed part, for the text and HTML forms."""
    phrases = []
    if part.text_changed:
        phrases.append("text changed")
    if part.moved:
        phrases.append("moved")
    for change in _shown_fields(part):
        label = "condition" if change.key == "when" else change.key
        phrases.append(f"{label} {_show(change.old)} -> {_show(change.new)}")
    return phrases


def _part_tokens(part: PartDiff, arrow: str) -> str:
    """``+253 tokens``, with ``; upstream +283`` (or ``180 → 154, -26``) where known."""
    text = f"{_signed(part.token_delta)} tokens"
    delta = part.upstream_delta
    if delta is None:
        return text
    if part.status in ("added", "removed"):
        return f"{text}; upstream {_signed(delta)}"
    old, new = part.old_upstream_tokens, part.new_upstream_tokens
    return f"{text}; upstream {old} {arrow} {new}, {_signed(delta)}"


def _upstream_total(result: CatalogDiff, arrow: str) -> tuple[str, str]:
    """``("51575 → 51680 (+105)", "; 4 part(s) without a figure not counted")``."""
    total = (
        f"{result.old_upstream_tokens} {arrow} {result.new_upstream_tokens} "
        f"({_signed(result.upstream_token_delta)})"
    )
    missing = result.upstream_uncounted
    return total, f"; {missing} part(s) without a figure not counted" if missing else ""


def _headline(result: CatalogDiff) -> str:
    moved = sum(p.moved for p in result.parts)
    upstream = ""
    if result.has_upstream:
        total, missing = _upstream_total(result, "->")
        upstream = f"; upstream tokens {total}{missing}"
    return (
        f"{result.old_label} -> {result.new_label}: {result.count('added')} added, "
        f"{result.count('removed')} removed, {result.count('changed')} changed, {moved} moved; "
        f"tokens {result.old_tokens} -> {result.new_tokens} ({_signed(result.token_delta)}, "
        f"{result.counter}, part bodies as written){upstream}"
    )


def render_text(result: CatalogDiff, *, color: bool = False) -> str:
    """A plain-text report; ``color`` adds ANSI colours (for a terminal)."""

    def paint(code: str, text: str) -> str:
        return f"\x1b[{_COLOURS[code]}m{text}\x1b[0m" if color else text

    def diff_lines(unified: str, indent: str) -> list[str]:
        out = []
        for line in unified.splitlines():
            code = line[:1] if line[:1] in "+-@" and not line.startswith(("+++", "---")) else ""
            out.append(indent + (paint(code, line) if code else line))
        return out

    if result.identical:
        return f"{result.old_label} and {result.new_label} are identical\n"
    rows = [paint("!", _headline(result))]
    if result.settings:
        rows.append("\ncatalog:")
        rows.extend(f"  ~ {c.key}: {_show(c.old)} -> {_show(c.new)}" for c in result.settings)
    for title, items in (("variables", result.variables), ("agents", result.agents)):
        if items:
            rows.append(f"\n{title}:")
            for item in items:
                mark = _MARK[item.status]
                detail = _item_detail(item, "->")
                tail = f"  {detail}" if detail else ""
                rows.append(paint(mark, f"  {mark} {item.name}") + tail)
    if result.changes:
        rows.append("\nparts:")
    for part in result.changes:
        mark = _MARK[part.status]
        order = part.new_order if part.new_order is not None else part.old_order
        tokens = _part_tokens(part, "->")
        head = f"  {mark} {part.id}  ({part.kind}, order {order})  {tokens}"
        rows.append(paint(mark, head))
        if part.status == "changed":
            rows.extend(f"      {phrase}" for phrase in _describe_fields(part))
            rows.extend(diff_lines(part.unified, "        "))
    if result.prompt is not None:
        prompt = result.prompt
        rows.append(
            f"\nprompt (agent {prompt.agent}): tokens {prompt.old_tokens} -> {prompt.new_tokens} "
            f"({_signed(prompt.token_delta)})" + ("; identical" if prompt.identical else "")
        )
        rows.extend(f"  note: {note}" for note in prompt.notes)
        if prompt.parts_added:
            rows.append(paint("+", f"  + parts now used: {', '.join(prompt.parts_added)}"))
        if prompt.parts_removed:
            rows.append(paint("-", f"  - parts no longer used: {', '.join(prompt.parts_removed)}"))
        rows.extend(diff_lines(prompt.unified, "    "))
    return "\n".join(rows) + "\n"


# ------------------------------------------------------------------ Markdown


# Free text put into Markdown: characters that open or close inline markup
# (emphasis, code, links, HTML, table cells, strikethrough, an entity), and the
# marks that make a line a heading, quote or list item where they start it.
_MD_INLINE = re.compile(r"[\\`*_\[\]<|~]|&(?=#?\w+;)")
_MD_BLOCK_MARK = re.compile(r"^(?:[#>+-]|\d+(?=[.)]))")


def _md_escape(text: str) -> str:
    """``text`` (a part name, a description, a label) as literal Markdown on one line.

    Ids and values go into code spans instead (:func:`_md_code`), which show
    them as they are.
    """
    text = _MD_INLINE.sub(lambda m: "\\" + m.group(), " ".join(text.split()))
    mark = _MD_BLOCK_MARK.match(text)
    if mark is None:
        return text
    if mark.group().isdigit():  # "1. Intro": escape the dot, "1\. Intro"
        return f"{mark.group()}\\{text[mark.end() :]}"
    return f"\\{text}"


def _md_code(value: Any) -> str:
    text = value if isinstance(value, str) else _show(value)
    text = text.replace("\n", "\\n")
    # CommonMark: a code span's fence must be longer than any backtick run inside it.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_phrase(change: FieldChange) -> str:
    label = {"when": "condition", "agents": "agents", "stability": "stability"}.get(
        change.key, change.key
    )
    return f"{_md_escape(label)} {_md_code(change.old)} → {_md_code(change.new)}"


def render_markdown(result: CatalogDiff) -> str:
    """Changelog-ready Markdown: the token totals first, then one bullet per part.

    Parts come as a changelog lists them: **NEW:**, then **REMOVED:**, then
    changed, each group sorted by name, so the bullets can be read against a
    release's changelog line by line.
    """
    rows = [
        f"### {_md_escape(result.old_label)} → {_md_escape(result.new_label)}",
        "",
        f"**Tokens: {result.old_tokens} → {result.new_tokens} ({_signed(result.token_delta)})** "
        f"({result.counter}, all part bodies)",
    ]
    if result.has_upstream:
        total, missing = _upstream_total(result, "→")
        rows += [
            "",
            f"**Upstream tokens: {total}** (`meta.{UPSTREAM_TOKENS}`, as the source counted "
            f"them{missing})",
        ]
    rows.append("")
    if result.identical:
        rows.append("No changes.")
    rank = {"added": 0, "removed": 1, "changed": 2}
    for part in sorted(result.changes, key=lambda p: (rank[p.status], p.name.casefold(), p.id)):
        name = _md_escape(part.name)
        label = name if part.name == part.id else f"{name} ({_md_code(part.id)})"
        tokens = f"({_part_tokens(part, '→')})"
        if part.status == "added":
            rows.append(f"- **NEW:** {label}: {part.kind}, order {part.new_order} {tokens}")
        elif part.status == "removed":
            rows.append(f"- **REMOVED:** {label} {tokens}")
        else:
            phrases = ["text changed"] if part.text_changed else []
            if part.moved:
                phrases.append("moved")
            phrases.extend(_md_phrase(c) for c in _shown_fields(part))
            rows.append(f"- {label}: {'; '.join(phrases)} {tokens}")
    for title, items in (("variable", result.variables), ("sub-agent", result.agents)):
        for item in items:
            mark = {"added": "**NEW:** ", "removed": "**REMOVED:** ", "changed": ""}[item.status]
            detail = "; ".join(_md_phrase(c) for c in item.fields)
            rows.append(f"- {mark}{title} {_md_code(item.name)}{': ' + detail if detail else ''}")
    rows.extend(f"- catalog setting {_md_phrase(change)}" for change in result.settings)
    if result.prompt is not None:
        prompt = result.prompt
        rows += [
            "",
            f"Assembled prompt (agent {_md_code(prompt.agent)}): {prompt.old_tokens} → "
            f"{prompt.new_tokens} tokens ({_signed(prompt.token_delta)})"
            + (", identical." if prompt.identical else "."),
        ]
        if prompt.unified:
            fence = "`" * max([3, *(len(run) + 1 for run in re.findall("`+", prompt.unified))])
            rows += ["", f"{fence}diff", prompt.unified, fence]
    return "\n".join(rows) + "\n"


# ------------------------------------------------------------------ HTML


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}
code,td.l,td.r{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.added>summary{color:#1a7f37}.removed>summary{color:#cf222e}.changed>summary{color:#9a6700}
details{border:1px solid #d0d7de;border-radius:6px;margin:.6em 0;padding:.4em .8em}
summary{cursor:pointer;font-weight:600}
table.side{border-collapse:collapse;width:100%;table-layout:fixed;margin-top:.5em}
table.side td{vertical-align:top;white-space:pre-wrap;word-break:break-word;padding:0 .4em}
table.side col.n{width:3em}
table.side td.n{color:#888;text-align:right;user-select:none}
table.side th{text-align:left;font-weight:600;color:#555;padding:.2em .4em}
td.del{background:#ffebe9}td.ins{background:#dafbe1}td.chg{background:#fff8c5}
tr.skip td{color:#888;text-align:center;background:#f6f8fa}
ul.fields{margin:.3em 0}
"""


def _side_by_side(old: str, new: str, labels: tuple[str, str], context: int = 3) -> str:
    """A two-column table of ``old`` against ``new`` under their ``labels``, equal runs
    folded to ``context`` lines."""
    a, b = old.splitlines(), new.splitlines()
    rows = [
        f"<tr><th colspan=2>{html.escape(labels[0])}</th>"
        f"<th colspan=2>{html.escape(labels[1])}</th></tr>"
    ]

    def row(i: int | None, left: str | None, j: int | None, right: str | None, cls: str) -> None:
        lcls = cls if left is not None else ""
        rcls = cls if right is not None else ""
        rows.append(
            f"<tr><td class=n>{'' if i is None else i + 1}</td>"
            f"<td class='l {lcls}'>{html.escape(left or '')}</td>"
            f"<td class=n>{'' if j is None else j + 1}</td>"
            f"<td class='r {rcls}'>{html.escape(right or '')}</td></tr>"
        )

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            span = i2 - i1
            if span > 2 * context + 1:
                shown = [*range(context), *range(span - context, span)]
                for k in shown[:context]:
                    row(i1 + k, a[i1 + k], j1 + k, b[j1 + k], "")
                folded = span - 2 * context
                rows.append(f"<tr class=skip><td colspan=4>{folded} equal lines</td></tr>")
                for k in shown[context:]:
                    row(i1 + k, a[i1 + k], j1 + k, b[j1 + k], "")
            else:
                for k in range(span):
                    row(i1 + k, a[i1 + k], j1 + k, b[j1 + k], "")
        else:
            cls = {"replace": "chg", "delete": "del", "insert": "ins"}[tag]
            for k in range(max(i2 - i1, j2 - j1)):
                i = i1 + k if i1 + k < i2 else None
                j = j1 + k if j1 + k < j2 else None
                row(i, a[i] if i is not None else None, j, b[j] if j is not None else None, cls)
    columns = "<colgroup><col class=n><col><col class=n><col></colgroup>"
    return "<table class=side>" + columns + "".join(rows) + "</table>"


def render_html(result: CatalogDiff) -> str:
    """One self-contained HTML page (inline CSS, no scripts) with side-by-side body diffs."""
    esc = html.escape
    title = f"{result.old_label} → {result.new_label}"
    labels = (result.old_label, result.new_label)
    body = [
        f"<h1>{esc(title)}</h1>",
        f"<p><strong>Tokens: {result.old_tokens} → {result.new_tokens} "
        f"({_signed(result.token_delta)})</strong> ({esc(result.counter)}, all part bodies). "
        f"{result.count('added')} added, {result.count('removed')} removed, "
        f"{result.count('changed')} changed, {sum(p.moved for p in result.parts)} moved.</p>",
    ]
    if result.has_upstream:
        total, missing = _upstream_total(result, "→")
        body.append(
            f"<p><strong>Upstream tokens: {esc(total)}</strong> (<code>meta.{UPSTREAM_TOKENS}"
            f"</code>, as the source counted them{esc(missing)}).</p>"
        )
    if result.identical:
        body.append("<p>No changes.</p>")
    if result.settings or result.variables or result.agents:
        body.append("<h2>Catalog</h2><ul class=fields>")
        body.extend(
            f"<li>setting <code>{esc(c.key)}</code>: <code>{esc(_show(c.old))}</code> → "
            f"<code>{esc(_show(c.new))}</code></li>"
            for c in result.settings
        )
        for title_word, items in (("variable", result.variables), ("sub-agent", result.agents)):
            for item in items:
                detail = _item_detail(item, "→")
                body.append(
                    f"<li>{item.status} {title_word} <code>{esc(item.name)}</code>"
                    + (f": {esc(detail)}" if detail else "")
                    + "</li>"
                )
        body.append("</ul>")
    if result.changes:
        body.append("<h2>Parts</h2>")
    for part in result.changes:
        name = part.name if part.name == part.id else f"{part.name} ({part.id})"
        head = f"{part.status.upper()}: {name} ({_part_tokens(part, '→')})"
        open_attr = " open" if part.text_changed else ""
        body.append(f"<details class={part.status}{open_attr}><summary>{esc(head)}</summary>")
        phrases = [p for p in _describe_fields(part) if p != "text changed"]
        if phrases:
            listed = "".join(f"<li>{esc(p)}</li>" for p in phrases)
            body.append(f"<ul class=fields>{listed}</ul>")
        body.append(_side_by_side(part.old_body or "", part.new_body or "", labels))
        body.append("</details>")
    if result.prompt is not None:
        prompt = result.prompt
        body.append(
            f"<h2>Assembled prompt (agent {esc(prompt.agent)})</h2><p>Tokens: {prompt.old_tokens}"
            f" → {prompt.new_tokens} ({_signed(prompt.token_delta)})"
            + ("; identical" if prompt.identical else "")
            + "</p>"
        )
        body.extend(f"<p>Note: {esc(note)}</p>" for note in prompt.notes)
        body.append(_side_by_side(prompt.old_text, prompt.new_text, labels))
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
