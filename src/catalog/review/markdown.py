"""A review as one pull-request comment: a summary table, then each diff folded away.

GitHub refuses a comment of 65,536 characters or more, so the comment is
built to a budget: the marker, the heading and the summary table come first
and whole (rows past a share of the budget are counted, not listed); each
changed prompt gets a ``<details>`` section with the parts that came in or
went out and its cache economics; its diffs share what is left, the shorter
ones whole and the longer ones cut at a line, with a note saying how to see
them whole. The hidden :data:`MARKER` lets a bot find its own comment and
update it instead of adding another.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Final

from catalog.changes.render import md_code, md_escape
from catalog.review.compare import PromptChange, Review, VersionChange
from catalog.review.report import cost_change, priced, tokens_change

__all__ = ["COMMENT_LIMIT", "MARKER", "render_markdown"]

MARKER: Final = "<!-- catalog-review -->"
"""The hidden line that marks the comment ``catalog review`` writes."""
COMMENT_LIMIT: Final = 65_536
"""GitHub's limit on a comment's characters: the comment stays under it."""
_BUDGET: Final = COMMENT_LIMIT - 1_536  # room for the notes and the section closings
_TABLE_SHARE: Final = 2  # the table takes at most half the budget
_BACKTICKS: Final = re.compile(r"`{3,}")
_PARTS: Final = 30  # parts listed as in or out per section; the rest counted


@dataclass
class _Section:
    """One changed prompt's collapsible section: its fixed text and its diffs."""

    head: str
    diffs: list[str]


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
    label = md_code(version.label)
    if prompt is None:
        return f"| {label} | error | | | | | {md_escape(version.error)} |"
    tools = (
        tokens_change(prompt.old_tools_tokens, prompt.new_tools_tokens)
        if prompt.old_tools_tokens or prompt.new_tools_tokens
        else ""
    )
    costs = "<br>".join(md_escape(cost_change(cost, why=False)) for cost in prompt.costs)
    return (
        f"| {label} | {prompt.status} | {md_code(prompt.context)} | {md_code(prompt.agent)} "
        f"| {tokens_change(prompt.old_tokens, prompt.new_tokens)} | {tools} | {costs} |"
    )


def _section(version: VersionChange, prompt: PromptChange) -> _Section:
    # HTML, not Markdown, is read inside <summary>: escaped as HTML.
    summary = html.escape(
        f"{version.label} · context {prompt.context} · agent {prompt.agent}: "
        f"{prompt.status}, {tokens_change(prompt.old_tokens, prompt.new_tokens)} tokens",
        quote=False,
    )
    summary = f"<summary>{summary}</summary>"
    lines = ["<details>", summary, ""]
    for word, parts in (("in", prompt.parts_in), ("out", prompt.parts_out)):
        lines.extend(f"- {word}: {md_code(part)}, {md_escape(why)}" for part, why in parts[:_PARTS])
        if len(parts) > _PARTS:
            lines.append(f"- {word}: {len(parts) - _PARTS} more part(s)")
    lines.extend(f"- cache: {md_escape(cost_change(cost))}" for cost in prompt.costs)
    lines.extend(f"- note: {md_escape(note)}" for note in prompt.notes)
    lines.append("")
    return _Section(
        "\n".join(lines) + "\n", [d for d in (prompt.system_diff, prompt.tools_diff) if d]
    )


def _share(sizes: list[int], budget: int) -> list[int]:
    """Each diff's share of ``budget``: the short ones whole, the rest split evenly."""
    shares = [0] * len(sizes)
    left, waiting = budget, sorted(range(len(sizes)), key=sizes.__getitem__)
    for rank, index in enumerate(waiting):
        fair = max(left // (len(waiting) - rank), 0)
        shares[index] = min(sizes[index], fair)
        left -= shares[index]
    return shares


def render_markdown(result: Review, *, whole: str = "`catalog review` in a terminal") -> str:
    """The comment for ``result``; ``whole`` says how a reader sees a cut diff whole
    (the command that made the comment, with its revisions)."""
    top = [
        MARKER,
        f"### Prompt review: {md_code(result.base)} → {md_code(result.head)}",
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
            rows.append(f"| {md_code(version.label)} | files changed, no prompt did | | | | | |")
        for prompt in shown:
            rows.append(_row(version, prompt))
            sections.append(_section(version, prompt))
    header = [
        "| Catalog | Change | Context | Agent | Tokens | Tools | Cached cost per conversation |",
        "|---|---|---|---|---|---|---|",
    ]
    table, used = [], sum(len(line) + 1 for line in (*top, *header))
    for number, row in enumerate(rows):
        if used + len(row) + 1 > _BUDGET // _TABLE_SHARE:
            table.append(f"\n_{len(rows) - number} more row(s) not listed: see {whole}._")
            break
        table.append(row)
        used += len(row) + 1
    if priced(result):
        table.append(f"\n_Costs: {md_escape(result.priced)}._")
    text = "\n".join([*top, *header, *table]) + "\n\n"
    fixed = len(text) + sum(len(section.head) + 20 for section in sections)
    diffs = [diff for section in sections for diff in section.diffs]
    shares = iter(_share([len(d) + 40 for d in diffs], _BUDGET - fixed))
    out = [text]
    room = _BUDGET - len(text)
    for number, section in enumerate(sections):
        body = section.head + "".join(_cut(d, next(shares), whole) for d in section.diffs)
        body += "</details>\n\n"
        if len(body) > room:
            out.append(f"_{len(sections) - number} more section(s) left out: see {whole}._\n")
            break
        out.append(body)
        room -= len(body)
    return "".join(out)
