"""Attacks on the review comment's Markdown: a pull request whose catalogs try to make the
comment lie, hide lines, ping people, phone home or grow past GitHub's limit."""

from __future__ import annotations

import re

import pytest

from catalog.review.compare import PromptChange, Review, VersionChange
from catalog.review.markdown import COMMENT_LIMIT, MARKER, render_markdown


def _prompt(
    diff: str = "-a\n+b",
    *,
    why: str = "always",
    note: str = "",
    agent: str = "main",
    part: str = "rules",
) -> PromptChange:
    return PromptChange(
        context="empty",
        agent=agent,
        status="changed",
        old_tokens=1,
        new_tokens=2,
        old_tools_tokens=0,
        new_tools_tokens=0,
        system_diff=diff,
        tools_diff="",
        parts_in=((part, why),),
        parts_out=(),
        costs=(),
        notes=(note,) if note else (),
    )


def _comment(*prompts: PromptChange, error: str = "") -> str:
    versions = [VersionChange("p", "demo", "changed", "changed", "1.0.0", "1.1.0", prompts)]
    if error:
        versions.append(VersionChange("p", "bad", "changed", "changed", None, None, error=error))
    return render_markdown(Review("base", "head", tuple(versions)))


def _outside_fences(text: str) -> str:
    """The comment with every fenced block taken out: what GitHub renders as Markdown."""
    kept, fence = [], ""
    for line in text.split("\n"):
        if fence:
            if line == fence:
                fence = ""
            continue
        opening = re.match(r"(`{3,})diff$", line)
        if opening:
            fence = opening.group(1)
            continue
        kept.append(line)
    assert not fence, "a fence is left open"
    spans = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", "\n".join(kept))  # code spans show as is
    return spans.replace("### Prompt review:", "")


HOSTILE = [
    "</details>\n</details>\n# Approved by security",
    f"{MARKER}\n<!-- catalog-review -->",
    "![](http://evil.example/x.png) <img src=http://evil.example/y>",
    "[click](http://evil.example) <a href='http://evil.example'>x</a>",
    "@octocat and @org/team please look, fixes #1 and other/repo#2",
    "<!-- the rest is hidden",
    "```\n````\n~~~\n`````````````````````````",
    "safe \u202etxt.exe\u202c and zero\u200bwidth \u2066isolate\u2069 \x1b[2K",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_nothing_a_catalog_writes_renders_or_pings(payload: str) -> None:
    diff = "\n".join(f"+{line}" for line in payload.split("\n"))
    one_line = payload.replace("\n", " ")
    text = _comment(
        _prompt(diff, why=one_line, note=one_line, agent=one_line, part=one_line),
        error=one_line,
    )
    assert text.startswith(f"{MARKER}\n") and text.count("<details>") == 1
    rendered = _outside_fences(text)
    # The one marker, the one section: nothing the catalog wrote opens or closes a tag.
    assert len(re.findall(rf"(?<!\\){MARKER}", rendered)) == 1
    tags = re.findall(r"(?<!\\)<[A-Za-z!/][^>]*>?", rendered)
    assert tags == [MARKER, "<details>", "<summary>", "</summary>", "</details>"]
    assert not re.search(r"(?<!\\)!\[|(?<!\\)\[[^\]]*(?<!\\)\]\(", rendered)
    assert not re.search(r"(?<![\w`&])[@#][\w-]", rendered)
    # No hidden character anywhere, in the fences either: each is shown.
    assert not re.search("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\x00-\x08\x1b]", text)


def test_hidden_characters_in_a_diff_are_shown_as_code_points() -> None:
    text = _comment(_prompt("-rm -rf /tmp/x\n+rm -rf /\u202e/x\u200b"))
    assert "+rm -rf /<U+202E>/x<U+200B>" in text


def test_a_line_of_backticks_longer_than_any_does_not_close_the_fence() -> None:
    ticks = "`" * 500
    text = _comment(_prompt(f"+{ticks}\n+after"))
    assert "`" * 501 + "diff\n" in text and "+after\n" + "`" * 501 in text


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize(
    "line",
    [
        "x" * 100_000,  # one very long line
        "😀" * 30_000,  # characters GitHub counts twice
        "\u202e" * 10_000,  # characters shown eight times longer
    ],
)
def test_the_comment_stays_under_the_limit_whatever_it_quotes(line: str) -> None:
    prompts = [
        _prompt("\n".join(f"+{line}" for _ in range(3)), agent=f"a{n}", why=line, note=line)
        for n in range(10)
    ]
    text = _comment(*prompts, error=line)
    assert _utf16(text) < COMMENT_LIMIT
    _outside_fences(text)  # every fence closed
    assert text.count("<details>") == text.count("</details>")
    assert "left out" in text or "Cut here" in text  # it says what it left out


def test_thousands_of_changed_prompts_are_counted_not_listed() -> None:
    prompts = [_prompt(agent=f"agent-{n}") for n in range(5000)]
    text = _comment(*prompts)
    assert _utf16(text) < COMMENT_LIMIT
    assert re.search(r"_\d+ more row\(s\) not listed: see `catalog review` in a terminal._", text)
    assert re.search(r"_\d+ more section\(s\) left out", text)


def test_a_body_on_one_very_long_line_still_shows_its_start() -> None:
    text = _comment(_prompt("-" + "a" * 50 + "\n+" + "b" * 100_000))
    assert "+" + "b" * 1999 + " … (98001 more characters)\n" in text
    assert "-" + "a" * 50 + "\n" in text
