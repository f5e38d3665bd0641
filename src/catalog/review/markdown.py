"""A review as one pull-request comment: a summary table, then each diff folded away.

GitHub refuses a comment of 65,536 characters or more, so the comment is
built to a budget: the marker, the heading and the summary table come first
and whole (rows past a share of the budget are counted, not listed); each
changed prompt gets a ``<details>`` section with the parts that came in or
went out and its cache economics; its diffs share what is left, the shorter
ones whole and the longer ones cut at a line, with a note saying how to see
them whole. The hidden :data:`MARKER` lets a bot find its own comment and
update it instead of adding another.

Everything a catalog writes is shown, never obeyed: diffs sit in code fences
longer than any run of backticks in them; names, reasons and errors are
escaped as Markdown (or as HTML inside ``<summary>``), so no tag, comment,
image or link they hold renders; ``@name`` and ``#123`` are broken by a
zero-width space, so nobody is pinged and no issue is cross-referenced; every
hidden character (bidi overrides, zero-width characters, controls) is written
as ``<U+XXXX>``, so a line reads as the model reads it; and the whole comment
stays under :data:`COMMENT_LIMIT` whatever it quotes.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Final

from catalog.changes.render import md_code, md_escape
from catalog.review.compare import PromptChange, Review, VersionChange
from catalog.review.report import cost_change, priced, tokens_change
from catalog.text.visible import visible, visible_line

__all__ = ["COMMENT_LIMIT", "MARKER", "render_markdown"]

MARKER: Final = "<!-- catalog-review -->"
"""The hidden line that marks the comment ``catalog review`` writes."""
COMMENT_LIMIT: Final = 65_536
"""GitHub's limit on a comment's characters: the comment stays under it."""
_BUDGET: Final = COMMENT_LIMIT - 1_536  # room for the notes and the section closings
_TABLE_SHARE: Final = 2  # the table takes at most half the budget
_BACKTICKS: Final = re.compile(r"`{3,}")
_PARTS: Final = 30  # parts listed as in or out per section; the rest counted
_SHORT: Final = 300  # characters of a name, a reason or an error shown in one cell or line
_LINE: Final = 2_000  # characters of one diff line shown (a minified body is one line)
_MARKUP: Final = re.compile(r"[\[\]!`*_~\\|]")
_PINGS: Final = re.compile(r"([@#])(?=[\w-])")  # @mention, #123, owner/repo#123


def _inert(text: str) -> str:
    """``text`` (escaped already) with every ``@name`` and ``#123`` broken by a zero-width
    space written as an entity, so GitHub neither pings nor cross-references."""
    return _PINGS.sub(lambda found: f"{found.group(1)}&#8203;", text)


def _text(text: str) -> str:
    """What a catalog wrote (a reason, a note, an error), as inert Markdown on one line."""
    return _inert(md_escape(_clip(visible_line(text))))


def _code(text: str) -> str:
    """A name or an id as an inline code span, its hidden characters shown."""
    return md_code(_clip(visible_line(text)))


def _cell(text: str) -> str:
    """A name as a code span in a table cell: GitHub splits cells at every ``|``, even
    inside a code span, unless it is escaped."""
    return _code(text).replace("|", "\\|")


def _html(text: str) -> str:
    """What a catalog wrote, as inert text inside an HTML element: tags escaped, and the
    characters Markdown would act on written as entities."""
    escaped = _inert(html.escape(_clip(visible_line(text)), quote=False))
    return _MARKUP.sub(lambda found: f"&#{ord(found.group())};", escaped)


def _clip(text: str) -> str:
    return text if len(text) <= _SHORT else f"{text[:_SHORT]}… ({len(text)} characters)"


@dataclass
class _Section:
    """One changed prompt's collapsible section: its fixed text and its diffs."""

    head: str
    diffs: list[str]


def _lines_cut(diff: str) -> str:
    """``diff`` with every line over :data:`_LINE` characters cut, saying how much more
    it holds, so a one-line body still shows its start."""
    return "\n".join(
        line if len(line) <= _LINE else f"{line[:_LINE]} … ({len(line) - _LINE} more characters)"
        for line in diff.split("\n")
    )


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=2)
    return "`" * (longest + 1)


def _cut(diff: str, budget: int, how: str) -> str:
    """``diff`` in a fenced block of at most about ``budget`` characters, cut at a line."""
    fence = _fence(diff)
    if len(diff) + 2 * len(fence) + 10 <= budget:
        return f"{fence}diff\n{diff}\n{fence}\n"
    lines = diff.split("\n")
    kept, used = [], 0
    for line in lines:
        if used + len(line) + 1 > max(budget - 300, 0):
            break
        kept.append(line)
        used += len(line) + 1
    rest = len(lines) - len(kept)
    shown = "\n".join(kept)
    return (
        f"{fence}diff\n{shown}\n{fence}\n\n"
        f"_Cut here: {rest} more line(s) of this diff. See it whole with {how}._\n"
    )


def _row(version: VersionChange, prompt: PromptChange | None) -> str:
    label = _cell(version.label)
    through = f" {_text(version.through.sentence)}" if version.through else ""
    if prompt is None:
        return f"| {label} | error{through} | | | | | {_text(version.error)} |"
    tools = (
        tokens_change(prompt.old_tools_tokens, prompt.new_tools_tokens)
        if prompt.old_tools_tokens or prompt.new_tools_tokens
        else ""
    )
    costs = "<br>".join(_text(cost_change(cost, why=False)) for cost in prompt.costs)
    return (
        f"| {label} | {prompt.status}{through} | {_cell(prompt.context)} | {_cell(prompt.agent)} "
        f"| {tokens_change(prompt.old_tokens, prompt.new_tokens)} | {tools} | {costs} |"
    )


def _section(version: VersionChange, prompt: PromptChange) -> _Section:
    # HTML, not Markdown, is read inside <summary>: escaped as HTML.
    summary = _html(
        f"{version.label} · context {prompt.context} · agent {prompt.agent}: "
        f"{prompt.status}, {tokens_change(prompt.old_tokens, prompt.new_tokens)} tokens"
    )
    summary = f"<summary>{summary}</summary>"
    lines = ["<details>", summary, ""]
    if version.through is not None:
        lines.append(f"- changed {_text(version.through.sentence)}")
    for word, parts in (("in", prompt.parts_in), ("out", prompt.parts_out)):
        lines.extend(f"- {word}: {_code(part)}, {_text(why)}" for part, why in parts[:_PARTS])
        if len(parts) > _PARTS:
            lines.append(f"- {word}: {len(parts) - _PARTS} more part(s)")
    lines.extend(f"- cache: {_text(cost_change(cost))}" for cost in prompt.costs[:_PARTS])
    lines.extend(f"- note: {_text(note)}" for note in prompt.notes[:_PARTS])
    if len(prompt.notes) > _PARTS:
        lines.append(f"- note: {len(prompt.notes) - _PARTS} more note(s)")
    lines.append("")
    diffs = [_lines_cut(visible(d)) for d in (prompt.system_diff, prompt.tools_diff) if d]
    return _Section("\n".join(lines) + "\n", diffs)


def _share(sizes: list[int], budget: int) -> list[int]:
    """Each diff's share of ``budget``: the short ones whole, the rest split evenly."""
    shares = [0] * len(sizes)
    left, waiting = budget, sorted(range(len(sizes)), key=sizes.__getitem__)
    for rank, index in enumerate(waiting):
        fair = max(left // (len(waiting) - rank), 0)
        shares[index] = min(sizes[index], fair)
        left -= shares[index]
    return shares


def render_markdown(result: Review, *, command: str = "catalog review") -> str:
    """The comment for ``result``; ``command`` (the one that made it, with its
    revisions) is how a reader sees a cut diff whole.

    GitHub's limit is checked in UTF-16 code units, which count a character outside
    the Basic Multilingual Plane (an emoji) twice; a comment over it is built again
    to a smaller budget."""
    how = f"{_code(command)} in a terminal"
    budget = _BUDGET
    while True:
        text = _render(result, how, budget)
        if len(text.encode("utf-16-le")) // 2 < COMMENT_LIMIT or budget < COMMENT_LIMIT // 8:
            return text
        budget //= 2


def _render(result: Review, whole: str, budget: int) -> str:
    """The comment for ``result`` built to ``budget`` characters."""
    top = [
        MARKER,
        f"### Prompt review: {_code(result.base)} → {_code(result.head)}",
        "",
    ]
    if not result.versions:
        top.append("No catalog changed.")
        return "\n".join(top) + "\n"
    rows: list[str] = []
    sections: list[_Section] = []
    for version in result.versions:
        if version.error:
            rows.append(_row(version, None))
        shown = [p for p in version.prompts if p.status != "unchanged"]
        if not shown and not version.error:
            rows.append(f"| {_cell(version.label)} | files changed, no prompt did | | | | | |")
        for prompt in shown:
            rows.append(_row(version, prompt))
            sections.append(_section(version, prompt))
    header = [
        "| Catalog | Change | Context | Agent | Tokens | Tools | Cached cost per conversation |",
        "|---|---|---|---|---|---|---|",
    ]
    table, used = [], sum(len(line) + 1 for line in (*top, *header))
    for number, row in enumerate(rows):
        if used + len(row) + 1 > budget // _TABLE_SHARE:
            table.append(f"\n_{len(rows) - number} more row(s) not listed: see {whole}._")
            break
        table.append(row)
        used += len(row) + 1
    if priced(result):
        table.append(f"\n_Costs: {_text(result.priced)}._")
    text = "\n".join([*top, *header, *table]) + "\n\n"
    fixed = len(text) + sum(len(section.head) + 20 for section in sections)
    diffs = [diff for section in sections for diff in section.diffs]
    shares = iter(_share([len(d) + 2 * len(_fence(d)) + 40 for d in diffs], budget - fixed))
    out = [text]
    room = budget - len(text)
    for number, section in enumerate(sections):
        body = section.head + "".join(_cut(d, next(shares), whole) for d in section.diffs)
        body += "</details>\n\n"
        if len(body) > room:
            out.append(f"_{len(sections) - number} more section(s) left out: see {whole}._\n")
            break
        out.append(body)
        room -= len(body)
    return "".join(out)
