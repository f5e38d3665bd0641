"""Render a :class:`~catalog.changes.compute.CatalogDiff` as text, Markdown, JSON or HTML.

What a report quotes (bodies, names, values) may hold control or invisible
characters: the text, Markdown and HTML forms show each as ``<U+XXXX>``
(:mod:`catalog.text.visible`), and the JSON form writes them as ``\\uXXXX``
escapes, so that nothing acts on a terminal or hides from a reviewer.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from catalog.changes.classify import inside_placeholders, words
from catalog.changes.compute import (
    CatalogDiff,
    ChangeClass,
    FieldChange,
    ItemDiff,
    PartDiff,
    PromptDiff,
    _jsonable,
    lines,
)
from catalog.html import render as html_render
from catalog.html import stylesheet
from catalog.text.visible import json_visible, visible, visible_line

__all__ = [
    "FOLDED",
    "md_code",
    "md_escape",
    "render_html",
    "render_json",
    "render_markdown",
    "render_text",
]

# Changes the text and Markdown forms count instead of listing (``all_changes`` lists them).
FOLDED: tuple[ChangeClass, ...] = ("metadata", "placeholders", "whitespace")
_FOLDED_WORDS = {
    "metadata": "only in metadata",
    "placeholders": "only inside placeholders",
    "whitespace": "only in whitespace",
}


def render_json(result: CatalogDiff) -> str:
    """The diff as indented JSON with sorted keys (see :meth:`CatalogDiff.to_dict`),
    hidden characters escaped (:func:`catalog.text.visible.json_visible`)."""
    return json_visible(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, sort_keys=True))


def _listed(result: CatalogDiff, all_changes: bool) -> tuple[PartDiff, ...]:
    """The parts a report lists one by one: all of them, or all but the folded kinds."""
    if all_changes:
        return result.changes
    return tuple(
        p
        for p in result.changes
        if p.status in ("added", "removed", "renamed") or p.change not in FOLDED
    )


def _folded_line(result: CatalogDiff, all_changes: bool) -> str | None:
    """``90 parts changed only inside placeholders, 3 only in whitespace — `--all`
    lists them``; None when nothing is folded."""
    if all_changes:
        return None
    counts = [
        (len(p), _FOLDED_WORDS[change])
        for change in FOLDED
        if (p := [x for x in result.by_change(change) if x.status == "changed"])
    ]
    if not counts:
        return None
    first, *rest = counts
    words = [f"{first[0]} part{'s' if first[0] != 1 else ''} changed {first[1]}"]
    words += [f"{count} {what}" for count, what in rest]
    return ", ".join(words)


# ------------------------------------------------------------------ text


_COLOURS = {"+": "32", "-": "31", "~": "33", "@": "36", "!": "1", ">": "35"}
_MARK = {"added": "+", "removed": "-", "changed": "~", "renamed": ">", "unchanged": " "}


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

    ``meta`` is split key by key (``meta.ccVersion``); ``reference_tokens`` is
    left out (the token figures show it), and so is a ``file`` change that
    comes with a text change or a rename (where the text is kept says nothing
    more), and a renamed part's ``meta.name`` (its label shows both names).
    """
    shown: list[FieldChange] = []
    for change in part.fields:
        if change.key == "meta":
            old, new = change.old, change.new
            shown.extend(
                FieldChange(f"meta.{key}", old.get(key), new.get(key))
                for key in dict.fromkeys([*old, *new])
                if old.get(key) != new.get(key) and not (part.old_id and key == "name")
            )
        elif change.key == "reference_tokens" or (
            change.key == "file" and (part.text_changed or part.old_id)
        ):
            continue
        else:
            shown.append(change)
    return shown


def _elements(change: FieldChange) -> tuple[list[Any], list[Any]] | None:
    """The elements a list-valued change added and removed; None unless both sides are lists."""
    if not isinstance(change.old, list | tuple) or not isinstance(change.new, list | tuple):
        return None
    old = {_show(v) for v in change.old}
    new = {_show(v) for v in change.new}
    return [v for v in change.new if _show(v) not in old], [
        v for v in change.old if _show(v) not in new
    ]


def _phrase(
    change: FieldChange, arrow: str, code: Any = _show, escape: Any = lambda text: text
) -> str:
    """``condition "a" -> "b"``, or for a list ``meta.variables +"A", -"B"`` element by
    element (reordered when nothing was added or removed)."""
    label = escape("condition" if change.key == "when" else change.key)
    elements = _elements(change)
    if elements is not None:
        added, removed = elements
        words = [f"+{code(v)}" for v in added] + [f"-{code(v)}" for v in removed]
        return f"{label} {', '.join(words) if words else 'reordered'}"
    return f"{label} {code(change.old)} {arrow} {code(change.new)}"


def _describe_fields(part: PartDiff, phrase: Any = None, code: Any = _show) -> list[str]:
    """One phrase per change of a changed or renamed part (``phrase`` words a key's
    change, ``code`` quotes a value; plain text by default)."""
    phrases = [_TEXT_WORDS[part.change]] if part.change in _TEXT_WORDS else []
    strings = None
    if part.change == "prose":
        strings = inside_placeholders(part.old_body or "", part.new_body or "")
    if strings is not None:
        shown = ", ".join(code(_cut(text)) for text in strings[:_STRINGS_SHOWN])
        more = f" and {len(strings) - _STRINGS_SHOWN} more" if len(strings) > _STRINGS_SHOWN else ""
        phrases[0] = "text changed inside ${...}" + (f": new text {shown}{more}" if shown else "")
    if part.moved:
        phrases.append("moved")
    phrases.extend((phrase or _text_phrase)(change) for change in _shown_fields(part))
    return phrases


def _text_phrase(change: FieldChange) -> str:
    return _phrase(change, "->")


# A prose change inside ${...} quotes at most this many new strings, each cut to
# _STRING_CUT characters: enough to see what the placeholder now says.
_STRINGS_SHOWN = 3
_STRING_CUT = 160


def _cut(text: str) -> str:
    return text if len(text) <= _STRING_CUT else text[:_STRING_CUT] + "…"


_TEXT_WORDS = {
    "prose": "text changed",
    "whitespace": "whitespace changed",
    "placeholders": "placeholders changed",
}


def _part_tokens(part: PartDiff, arrow: str) -> str:
    """``+253 tokens``, with ``; reference +283`` (or ``180 → 154, -26``) where known."""
    text = f"{_signed(part.token_delta)} tokens"
    delta = part.reference_delta
    if delta is None:
        return text
    if part.status in ("added", "removed"):
        return f"{text}; reference {_signed(delta)}"
    old, new = part.old_reference_tokens, part.new_reference_tokens
    return f"{text}; reference {old} {arrow} {new}, {_signed(delta)}"


def _reference_total(result: CatalogDiff, arrow: str) -> tuple[str, str]:
    """``("51575 → 51680 (+105)", "; 4 part(s) without a figure not counted")``."""
    total = (
        f"{result.old_reference_tokens} {arrow} {result.new_reference_tokens} "
        f"({_signed(result.reference_token_delta)})"
    )
    missing = result.reference_uncounted
    return total, f"; {missing} part(s) without a figure not counted" if missing else ""


def _headline(result: CatalogDiff) -> str:
    moved = sum(p.moved for p in result.parts)
    reference = ""
    if result.has_reference:
        total, missing = _reference_total(result, "->")
        reference = f"; reference tokens {total}{missing}"
    renamed = result.count("renamed")
    return (
        f"{result.old_label} -> {result.new_label}: {result.count('added')} added, "
        f"{result.count('removed')} removed, "
        + (f"{renamed} renamed, " if renamed else "")
        + f"{result.count('changed')} changed, {moved} moved; "
        f"tokens {result.old_tokens} -> {result.new_tokens} ({_signed(result.token_delta)}, "
        f"{result.counter}, part bodies as written){reference}"
    )


def render_text(result: CatalogDiff, *, color: bool = False, all_changes: bool = False) -> str:
    """A plain-text report; ``color`` adds ANSI colours (for a terminal).

    Parts changed only in whitespace, inside placeholders or in metadata are
    counted on one line unless ``all_changes``; a text change shows its
    unified diff. Every line is made :func:`~catalog.text.visible.visible` before
    it is coloured: the colours are the only escape sequences written.
    """
    if result.identical:
        return visible_line(f"{result.old_label} and {result.new_label} are identical") + "\n"
    rows: list[tuple[str, str]] = [("!", _headline(result))]  # (colour mark or "", line)
    if result.settings:
        rows.append(("", "\ncatalog:"))
        rows.extend(("", f"  ~ {c.key}: {_show(c.old)} -> {_show(c.new)}") for c in result.settings)
    for title, items in (("variables", result.variables), ("agents", result.agents)):
        if items:
            rows.append(("", f"\n{title}:"))
            for item in items:
                mark = _MARK[item.status]
                detail = _item_detail(item, "->")
                rows.append((mark, f"  {mark} {item.name}" + (f"  {detail}" if detail else "")))
    rows += _text_parts(result, all_changes)
    if result.prompt is not None:
        rows += _text_prompt(result.prompt)
    painted = []
    for code, line in rows:
        shown = visible(line)
        painted.append(f"\x1b[{_COLOURS[code]}m{shown}\x1b[0m" if color and code else shown)
    return "\n".join(painted) + "\n"


def _diff_lines(unified: str, indent: str) -> list[tuple[str, str]]:
    """The lines of a unified diff, indented, each with its colour mark."""
    out = []
    for line in unified.split("\n") if unified else ():
        code = line[:1] if line[:1] in "+-@" and not line.startswith(("+++", "---")) else ""
        out.append((code, indent + line))
    return out


def _text_parts(result: CatalogDiff, all_changes: bool) -> list[tuple[str, str]]:
    """The ``parts:`` section of :func:`render_text`, each line with its colour mark."""
    rows: list[tuple[str, str]] = []
    listed = _listed(result, all_changes)
    folded = _folded_line(result, all_changes)
    if listed or folded:
        rows.append(("", "\nparts:"))
    for part in listed:
        mark = _MARK[part.status]
        order = part.new_order if part.new_order is not None else part.old_order
        tokens = _part_tokens(part, "->")
        name = f"{part.old_id} -> {part.id}" if part.old_id else part.id
        rows.append((mark, f"  {mark} {name}  ({part.kind}, order {order})  {tokens}"))
        if part.status in ("changed", "renamed"):
            rows.extend(("", f"      {phrase}") for phrase in _describe_fields(part))
            rows.extend(_diff_lines(part.unified, "        "))
    if folded:
        rows.append(("", f"  {folded} (--all lists them)"))
    return rows


def _text_prompt(prompt: PromptDiff) -> list[tuple[str, str]]:
    """The ``prompt`` section of :func:`render_text`, each line with its colour mark."""
    rows = [
        (
            "",
            f"\nprompt (agent {prompt.agent}): tokens {prompt.old_tokens} -> "
            f"{prompt.new_tokens} ({_signed(prompt.token_delta)})"
            + ("; identical" if prompt.identical else ""),
        )
    ]
    rows.extend(("", f"  note: {note}") for note in prompt.notes)
    if prompt.parts_added:
        rows.append(("+", f"  + parts now used: {', '.join(prompt.parts_added)}"))
    if prompt.parts_removed:
        rows.append(("-", f"  - parts no longer used: {', '.join(prompt.parts_removed)}"))
    rows.extend(_diff_lines(prompt.unified, "    "))
    return rows


# ------------------------------------------------------------------ Markdown


# Free text put into Markdown: characters that open or close inline markup
# (emphasis, code, links, HTML, table cells, strikethrough, an entity), and the
# marks that make a line a heading, quote or list item where they start it.
_MD_INLINE = re.compile(r"[\\`*_\[\]<|~]|&(?=#?\w+;)")
_MD_BLOCK_MARK = re.compile(r"^(?:[#>+-]|\d+(?=[.)]))")


def md_escape(text: str) -> str:
    """``text`` (a part name, a description, a label) as literal Markdown on one line.

    Ids and values go into code spans instead (:func:`md_code`), which show
    them as they are.
    """
    text = _MD_INLINE.sub(lambda m: "\\" + m.group(), " ".join(words(text)))
    mark = _MD_BLOCK_MARK.match(text)
    if mark is None:
        return text
    if mark.group().isdigit():  # "1. Intro": escape the dot, "1\. Intro"
        return f"{mark.group()}\\{text[mark.end() :]}"
    return f"\\{text}"


def md_code(value: Any) -> str:
    text = value if isinstance(value, str) else _show(value)
    text = text.replace("\n", "\\n")
    # CommonMark: a code span's fence must be longer than any backtick run inside it.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_phrase(change: FieldChange) -> str:
    return _phrase(change, "→", md_code, md_escape)


def _md_label(name: str, part_id: str) -> str:
    escaped = md_escape(name)
    return escaped if name == part_id else f"{escaped} ({md_code(part_id)})"


def render_markdown(result: CatalogDiff, *, all_changes: bool = False) -> str:
    """Changelog-ready Markdown: the token totals first, then one bullet per part.

    Parts come as upstream changelogs list them: **NEW:**, **REMOVED:**,
    **RENAMED:**, then changed parts, each group sorted by name, one line
    each. Parts changed only in whitespace, inside placeholders or in metadata
    are counted on one closing line unless ``all_changes``. Hidden characters
    are shown as ``<U+XXXX>``.
    """
    rows = [
        f"### {md_escape(result.old_label)} → {md_escape(result.new_label)}",
        "",
        f"**Tokens: {result.old_tokens} → {result.new_tokens} ({_signed(result.token_delta)})** "
        f"({result.counter}, all part bodies)",
    ]
    if result.has_reference:
        total, missing = _reference_total(result, "→")
        who = "`reference_tokens`"
        if result.reference_counter:
            who = f"counted by {md_escape(result.reference_counter)}"
        rows += ["", f"**Reference tokens: {total}** ({who}{missing})"]
    rows.append("")
    if result.identical:
        rows.append("No changes.")
    rank = {"added": 0, "removed": 1, "renamed": 2, "changed": 3}
    listed = _listed(result, all_changes)
    for part in sorted(listed, key=lambda p: (rank[p.status], p.name.casefold(), p.id)):
        label = _md_label(part.name, part.id)
        tokens = f"({_part_tokens(part, '→')})"
        if part.status == "added":
            rows.append(f"- **NEW:** {label}: {part.kind}, order {part.new_order} {tokens}")
        elif part.status == "removed":
            rows.append(f"- **REMOVED:** {label} {tokens}")
        else:
            phrases = _describe_fields(part, _md_phrase, md_code)
            detail = f": {'; '.join(phrases)}" if phrases else ""
            if part.status == "renamed":
                old = _md_label(part.old_name or str(part.old_id), str(part.old_id))
                alike = f"{round(100 * (part.similarity or 0))}% alike"
                rows.append(f"- **RENAMED:** {old} → {label} ({alike}){detail} {tokens}")
            else:
                rows.append(f"- {label}{detail} {tokens}")
    folded = _folded_line(result, all_changes)
    if folded:
        rows.append(f"- {folded} — `--all` lists them")
    for title, items in (("variable", result.variables), ("sub-agent", result.agents)):
        for item in items:
            mark = {"added": "**NEW:** ", "removed": "**REMOVED:** ", "changed": ""}[item.status]
            detail = "; ".join(_md_phrase(c) for c in item.fields)
            rows.append(f"- {mark}{title} {md_code(item.name)}{': ' + detail if detail else ''}")
    rows.extend(f"- catalog setting {_md_phrase(change)}" for change in result.settings)
    if result.prompt is not None:
        prompt = result.prompt
        rows += [
            "",
            f"Assembled prompt (agent {md_code(prompt.agent)}): {prompt.old_tokens} → "
            f"{prompt.new_tokens} tokens ({_signed(prompt.token_delta)})"
            + (", identical." if prompt.identical else "."),
        ]
        if prompt.unified:
            fence = "`" * max([3, *(len(run) + 1 for run in re.findall("`+", prompt.unified))])
            rows += ["", f"{fence}diff", prompt.unified, fence]
    return visible("\n".join(rows)) + "\n"


# ------------------------------------------------------------------ HTML


@dataclass(frozen=True, slots=True)
class _Row:
    """One line of a side-by-side table: a line number and text per side (``None``
    where that side has no line) and how each side changed; or a count of equal
    lines folded away."""

    old_number: int | None = None
    old: str = ""
    old_class: str = ""
    new_number: int | None = None
    new: str = ""
    new_class: str = ""
    folded: int = 0


def _side_rows(old: str, new: str, context: int = 3) -> list[_Row]:
    """The rows of ``old`` against ``new``, equal runs folded to ``context`` lines."""
    a, b = lines(old), lines(new)
    rows: list[_Row] = []

    def row(i: int | None, j: int | None, cls: str) -> None:
        rows.append(
            _Row(
                None if i is None else i + 1,
                "" if i is None else a[i],
                "" if i is None else cls,
                None if j is None else j + 1,
                "" if j is None else b[j],
                "" if j is None else cls,
            )
        )

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            span = i2 - i1
            folded = span - 2 * context if span > 2 * context + 1 else 0
            for k in range(span):
                if folded and k == context:
                    rows.append(_Row(folded=folded))
                if not folded or k < context or k >= span - context:
                    row(i1 + k, j1 + k, "")
        else:
            cls = {"replace": "chg", "delete": "del", "insert": "ins"}[tag]
            for k in range(max(i2 - i1, j2 - j1)):
                row(i1 + k if i1 + k < i2 else None, j1 + k if j1 + k < j2 else None, cls)
    return rows


def render_html(result: CatalogDiff, *, stylesheet_url: str | None = None) -> str:
    """One HTML page with side-by-side body diffs, from the package's templates; its
    style sheet inline (a self-contained file, no scripts) unless ``stylesheet_url``
    names where a server serves it. Hidden characters are shown as ``<U+XXXX>``."""
    reference = None
    if result.has_reference:
        total, missing = _reference_total(result, "→")
        reference = {"total": total, "missing": missing, "who": result.reference_counter}
        reference["who"] = reference["who"] or "reference_tokens"
    items = [
        {"status": item.status, "word": word, "name": item.name, "detail": _item_detail(item, "→")}
        for word, group in (("variable", result.variables), ("sub-agent", result.agents))
        for item in group
    ]
    settings = [{"key": c.key, "old": _show(c.old), "new": _show(c.new)} for c in result.settings]
    prompt = result.prompt
    return html_render(
        "diff_report.html",
        title=f"{result.old_label} → {result.new_label}",
        labels=(result.old_label, result.new_label),
        result=result,
        signed=_signed,
        moved=sum(p.moved for p in result.parts),
        reference=reference,
        settings=settings,
        items=items,
        parts=[_html_part(part) for part in result.changes],
        prompt=prompt,
        prompt_rows=_side_rows(prompt.old_text, prompt.new_text) if prompt else [],
        stylesheet_url=stylesheet_url,
        style=stylesheet("diff.css"),
    )


def _html_part(part: PartDiff) -> dict[str, Any]:
    name = part.name if part.name == part.id else f"{part.name} ({part.id})"
    if part.old_id:
        name = f"{part.old_name} ({part.old_id}) → {name}"
    return {
        "status": part.status,
        "open": part.change == "prose",
        "head": f"{part.status.upper()}: {name} ({_part_tokens(part, '→')})",
        "phrases": [p for p in _describe_fields(part) if p not in _TEXT_WORDS.values()],
        "rows": _side_rows(part.old_body or "", part.new_body or ""),
    }
