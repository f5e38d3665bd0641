"""`catalog.diff`: every change type, on the flagship's two releases and small catalogs."""

from __future__ import annotations

import json
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import catalog
from catalog import Catalog, load_dir
from catalog.changes.compute import CatalogDiff, PartDiff
from catalog.changes.render import render_html, render_json, render_markdown, render_text
from tests.conftest import sha

PARTS = Path(catalog.__file__).parent / "parts" / "coding-agent"


def _body(version: str, part_id: str) -> str:
    """A flagship part body read straight from disk (file named after the id)."""
    return (PARTS / version / f"{part_id}.md").read_text(encoding="utf-8").replace("\r\n", "\n")


def _release(version: str) -> Catalog:
    """A bundled release of the flagship catalog."""
    return catalog.load("coding-agent", f"=={version}")


@pytest.fixture(scope="module")
def flagship() -> CatalogDiff:
    return catalog.diff(_release("1.0.0"), _release("1.1.0"), counter=len)


def _part(result: CatalogDiff, part_id: str) -> PartDiff:
    return next(p for p in result.parts if p.id == part_id)


# ------------------------------------------------------------------ flagship


def test_flagship_added_and_removed_parts(flagship: CatalogDiff) -> None:
    added = {p.id for p in flagship.parts if p.status == "added"}
    removed = {p.id for p in flagship.parts if p.status == "removed"}
    assert added == {"git-safety", "agent-conversation-summary", "reminder-new-diagnostics"}
    assert removed == {"file-read-limits"}
    git = _part(flagship, "git-safety")
    assert (git.old_tokens, git.new_tokens) == (0, len(_body("1.1.0", "git-safety")))
    gone = _part(flagship, "file-read-limits")
    assert gone.token_delta == -len(_body("1.0.0", "file-read-limits"))
    assert gone.old_order == 320 and gone.new_order is None


def test_flagship_changed_text_has_a_unified_diff(flagship: CatalogDiff) -> None:
    part = _part(flagship, "security-policy")
    assert part.status == "changed" and part.text_changed
    assert part.fields == () and not part.moved
    lines = part.unified.splitlines()
    assert lines[:2] == [
        "--- coding-agent@1.0.0/security-policy",
        "+++ coding-agent@1.1.0/security-policy",
    ]
    assert any(line.startswith("+When you decline") for line in lines)
    assert part.token_delta == len(_body("1.1.0", "security-policy")) - len(
        _body("1.0.0", "security-policy")
    )


def test_flagship_moved_part_with_changed_condition(flagship: CatalogDiff) -> None:
    part = _part(flagship, "large-file-handling")
    assert part.moved
    assert [p.id for p in flagship.parts if p.moved] == ["large-file-handling"]
    order, when = part.field("order"), part.field("when")
    assert order is not None and (order.old, order.new) == (330, 460)
    assert when is not None and (when.old, when.new) == ("true", '"Read" in tools')


def test_flagship_variables_agents_and_total(flagship: CatalogDiff) -> None:
    assert [(v.name, v.status) for v in flagship.variables] == [("diagnostics", "added")]
    assert [(a.name, a.status) for a in flagship.agents] == [("conversation-summary", "added")]
    # 1.1.0 declares where its context is gathered from; 1.0.0 did not.
    assert [(c.key, c.old) for c in flagship.settings] == [("sources", None)]
    old_total = sum(len(_body("1.0.0", p.id)) for p in catalog.load("coding-agent", "1.0.0").parts)
    new_total = sum(len(_body("1.1.0", p.id)) for p in catalog.load("coding-agent", "1.1.0").parts)
    assert (flagship.old_tokens, flagship.new_tokens) == (old_total, new_total)
    assert flagship.token_delta == new_total - old_total
    assert not flagship.identical


def test_flagship_unchanged_parts_are_reported_as_such(flagship: CatalogDiff) -> None:
    part = _part(flagship, "glob-usage")
    assert part.status == "unchanged"
    assert part.unified == "" and part.token_delta == 0
    assert part not in flagship.changes


def test_same_version_is_identical() -> None:
    cat = catalog.load("coding-agent", "1.1.0")
    result = catalog.diff(cat, cat, context={"tools": ["Bash"]})
    assert result.identical
    assert result.changes == ()
    assert result.prompt is not None and result.prompt.identical


def test_flagship_prompt_diff_under_a_context() -> None:
    result = catalog.diff(
        _release("1.0.0"),
        _release("1.1.0"),
        context={"tools": ["Bash", "Read"], "variables": {"diagnostics": ["x.py:1: E1"]}},
    )
    prompt = result.prompt
    assert prompt is not None and prompt.agent == "main"
    assert "git-safety" in prompt.parts_added
    assert "file-read-limits" in prompt.parts_removed
    assert prompt.notes == (
        "variable 'diagnostics' is not declared by coding-agent@1.0.0: left out",
    )
    new = catalog.load("coding-agent", "1.1.0").assemble(
        {"tools": ["Bash", "Read"], "variables": {"diagnostics": ["x.py:1: E1"]}}
    )
    assert prompt.new_text == new.text
    assert prompt.new_fingerprint == new.fingerprint
    assert "+++ coding-agent@1.1.0 (main)" in prompt.unified


def test_subagent_prompt_diff() -> None:
    result = catalog.diff(_release("1.0.0"), _release("1.1.0"), agent="explore")
    assert result.prompt is not None and result.prompt.agent == "explore"
    assert "# How thorough to be" in result.prompt.new_text
    assert "# How thorough to be" not in result.prompt.old_text


def test_prompt_diff_of_a_sub_agent_one_version_lacks() -> None:
    result = catalog.diff(
        _release("1.0.0"), _release("1.1.0"), agent="conversation-summary", counter=len
    )
    prompt = result.prompt
    assert prompt is not None
    assert prompt.notes == (
        "agent 'conversation-summary' does not exist in coding-agent@1.0.0: no prompt",
    )
    new = catalog.load("coding-agent", "1.1.0").assemble(agent="conversation-summary")
    assert (prompt.old_text, prompt.old_tokens, prompt.old_fingerprint) == ("", 0, "")
    assert (prompt.new_text, prompt.new_tokens) == (new.text, len(new.text))
    assert prompt.parts_added == tuple(p.id for p in new.parts)
    assert not prompt.identical
    backwards = catalog.diff(_release("1.1.0"), _release("1.0.0"), agent="conversation-summary")
    assert backwards.prompt is not None and backwards.prompt.new_text == ""


def test_prompt_diff_of_an_agent_neither_version_has_is_an_error() -> None:
    with pytest.raises(catalog.NotFoundError, match="has no agent 'nobody'"):
        catalog.diff(_release("1.0.0"), _release("1.1.0"), agent="nobody")


# ------------------------------------------------------------------ small catalogs


@pytest.fixture
def pair(make_catalog: Callable[..., Path]) -> tuple[Catalog, Catalog]:
    """Two versions covering the change types the flagship does not have."""
    old = make_catalog(
        "demo",
        "1.0.0",
        parts=[
            {"id": "intro", "order": 10, "body": "Hi.", "meta": {"name": "Greeting"}},
            {"id": "rules", "order": 20, "agents": ["main"], "body": "Rules."},
            {"id": "env", "order": 30, "stability": "session", "body": "cwd {{ env.cwd }}"},
            {"id": "style", "order": 40, "slot": "style", "body": "Plain."},
            {"id": "extra", "order": 50, "required": False, "priority": 0, "body": "More."},
            {"id": "alpha", "order": 60, "body": "A."},
            {"id": "beta", "order": 70, "body": "B."},
            {"id": "grep", "kind": "tool", "name": "Grep", "order": 90, "body": "Search."},
        ],
        variables=[{"name": "mode", "type": "str", "default": "fast"}],
        agents=[{"name": "helper", "description": "helps"}],
        catalog={"summary": "old"},
    )
    new = make_catalog(
        "demo",
        "2.0.0",
        parts=[
            {"id": "intro", "order": 10, "body": "Hi.", "meta": {"name": "Greeting"}},
            {"id": "rules", "order": 20, "agents": ["main", "helper"], "body": "Rules."},
            {"id": "env", "order": 30, "stability": "turn", "body": "cwd {{ env.cwd }}"},
            {"id": "style", "order": 40, "slot": "voice", "body": "Plain."},
            {"id": "extra", "order": 50, "required": True, "priority": 3, "body": "More."},
            # beta now before alpha: one of them moved
            {"id": "alpha", "order": 80, "body": "A."},
            {"id": "beta", "order": 70, "body": "B."},
            {"id": "grep", "kind": "tool", "name": "Search", "order": 90, "body": "Search."},
        ],
        variables=[{"name": "mode", "type": "str", "default": "slow"}],
        agents=[{"name": "helper", "description": "helps more"}],
        catalog={"summary": "new", "separator": "\n"},
    )
    return load_dir(old), load_dir(new)


def test_agents_stability_slot_and_other_keys(pair: tuple[Catalog, Catalog]) -> None:
    result = catalog.diff(*pair)
    changes = {p.id: {f.key: (f.old, f.new) for f in p.fields} for p in result.changes}
    assert changes["rules"] == {"agents": (("main",), ("main", "helper"))}
    assert changes["env"] == {"stability": ("session", "turn")}
    assert changes["style"] == {"slot": ("style", "voice")}
    assert changes["extra"] == {"required": (False, True), "priority": (0, 3)}
    assert changes["grep"] == {"name": ("Grep", "Search")}
    assert "intro" not in changes
    for part_id in ("rules", "env", "style", "extra", "grep"):
        part = _part(result, part_id)
        assert not part.text_changed and part.token_delta == 0 and part.unified == ""


def test_moved_without_text_change(pair: tuple[Catalog, Catalog]) -> None:
    result = catalog.diff(*pair)
    assert [p.id for p in result.parts if p.moved] == ["alpha"]
    alpha = _part(result, "alpha")
    assert alpha.status == "changed" and not alpha.text_changed


def test_settings_variables_and_agents_changed(pair: tuple[Catalog, Catalog]) -> None:
    result = catalog.diff(*pair)
    assert {(f.key, f.old, f.new) for f in result.settings} == {
        ("summary", "old", "new"),
        ("separator", "\n\n", "\n"),
    }
    (variable,) = result.variables
    assert (variable.name, variable.status) == ("mode", "changed")
    assert [(f.key, f.old, f.new) for f in variable.fields] == [("default", "fast", "slow")]
    (agent,) = result.agents
    assert [(f.key, f.old, f.new) for f in agent.fields] == [("description", "helps", "helps more")]


def test_human_names_prefer_meta_name_then_description_then_id(
    make_catalog: Callable[..., Path],
) -> None:
    old = load_dir(
        make_catalog(
            "n",
            "1.0.0",
            parts=[
                {"id": "a", "body": "1", "meta": {"name": "Upstream A"}, "description": "desc a"},
                {"id": "b", "body": "1", "description": "desc b"},
                {"id": "c", "body": "1"},
            ],
        )
    )
    new = load_dir(
        make_catalog(
            "n",
            "1.1.0",
            parts=[
                {"id": "a", "body": "2", "meta": {"name": "Upstream A"}, "description": "desc a"},
                {"id": "b", "body": "2", "description": "desc b"},
                {"id": "c", "body": "2"},
            ],
        )
    )
    result = catalog.diff(old, new)
    assert [p.name for p in result.changes] == ["Upstream A", "desc b", "c"]
    markdown = render_markdown(result)
    assert "- Upstream A (`a`): text changed (+0 tokens)" in markdown
    assert "- c: text changed" in markdown


@pytest.fixture
def reference_pair(make_catalog: Callable[..., Path]) -> CatalogDiff:
    """Parts carrying another counter's token counts (``reference_tokens``), or not."""

    def ref(name: str, tokens: int | None, **more: Any) -> dict[str, Any]:
        figure = {} if tokens is None else {"reference_tokens": tokens}
        return {"meta": {"name": name} | more.pop("meta", {}), **figure, **more}

    counted = {"reference_counter": "the vendor's API"}
    old = make_catalog(
        "up",
        "1.0.0",
        catalog=counted,
        parts=[
            {"id": "zeta", "body": "Zeta.", **ref("Zeta part", 40)},
            {"id": "gone", "body": "Gone.", **ref("Gone part", 213)},
            {"id": "old-only", "body": "Old.", **ref("Half counted", 7)},
            {"id": "plain", "body": "Plain.", **ref("No figure", None)},
            {"id": "alpha", "body": "Alpha.", **ref("Alpha part", 10, meta={"ccVersion": "1"})},
        ],
    )
    new = make_catalog(
        "up",
        "1.1.0",
        catalog=counted,
        parts=[
            {"id": "zeta", "body": "Zeta!", **ref("Zeta part", 45)},
            {"id": "fresh", "body": "Fresh text.", **ref("Fresh part", 278)},
            {"id": "old-only", "body": "Old!", **ref("Half counted", None)},
            {"id": "plain", "body": "Plain.", **ref("No figure", None)},
            {"id": "alpha", "body": "Alpha!", **ref("Alpha part", 12, meta={"ccVersion": "2"})},
            {"id": "beta", "body": "Beta.", **ref("Beta part", 3)},
        ],
    )
    return catalog.diff(load_dir(old), load_dir(new), counter=len)


def test_reference_token_figures_per_part_and_in_total(reference_pair: CatalogDiff) -> None:
    deltas = {p.id: p.reference_delta for p in reference_pair.changes}
    assert deltas == {
        "zeta": 5,
        "gone": -213,
        "fresh": 278,
        "old-only": None,
        "alpha": 2,
        "beta": 3,
    }
    zeta = _part(reference_pair, "zeta")
    assert (zeta.old_reference_tokens, zeta.new_reference_tokens) == (40, 45)
    assert zeta.token_delta == 0  # our own count (len here) is reported apart
    assert reference_pair.has_reference
    assert reference_pair.reference_counter == "the vendor's API"
    assert reference_pair.old_reference_tokens == 40 + 213 + 7 + 10
    assert reference_pair.new_reference_tokens == 45 + 278 + 12 + 3
    assert reference_pair.reference_token_delta == 68
    # plain twice, old-only on its new side
    assert reference_pair.reference_uncounted == 2
    data = json.loads(render_json(reference_pair))
    assert data["reference"] == {
        "counter": "the vendor's API",
        "old": 270,
        "new": 338,
        "delta": 68,
        "uncounted": 2,
    }
    by_id = {p["id"]: p for p in data["parts"]}
    assert (by_id["gone"]["old_reference_tokens"], by_id["gone"]["reference_token_delta"]) == (
        213,
        -213,
    )
    assert by_id["old-only"]["reference_token_delta"] is None
    assert by_id["zeta"]["change"] == "prose"


def test_markdown_lists_new_removed_then_changed_by_name_with_reference_deltas(
    reference_pair: CatalogDiff,
) -> None:
    lines = render_markdown(reference_pair).splitlines()
    assert lines[2] == "**Tokens: 26 → 37 (+11)** (len, all part bodies)"
    assert lines[4] == (
        "**Reference tokens: 270 → 338 (+68)** (counted by the vendor's API; "
        "2 part(s) without a figure not counted)"
    )
    assert [line for line in lines if line.startswith("- ")] == [
        "- **NEW:** Beta part (`beta`): system, order 60 (+5 tokens; reference +3)",
        "- **NEW:** Fresh part (`fresh`): system, order 20 (+11 tokens; reference +278)",
        "- **REMOVED:** Gone part (`gone`) (-5 tokens; reference -213)",
        "- Alpha part (`alpha`): text changed; meta.ccVersion `1` → `2` "
        "(+0 tokens; reference 10 → 12, +2)",
        "- Half counted (`old-only`): text changed (+0 tokens)",
        "- Zeta part (`zeta`): text changed (+0 tokens; reference 40 → 45, +5)",
    ]


def test_text_and_html_show_reference_figures(reference_pair: CatalogDiff) -> None:
    text = render_text(reference_pair)
    assert text.splitlines()[0].endswith(
        "; reference tokens 270 -> 338 (+68); 2 part(s) without a figure not counted"
    )
    assert "  - gone  (system, order 20)  -5 tokens; reference -213" in text
    assert "  ~ zeta  (system, order 10)  +0 tokens; reference 40 -> 45, +5" in text
    assert '      meta.ccVersion "1" -> "2"' in text
    page = render_html(reference_pair)
    assert "<strong>Reference tokens: 270 → 338 (+68)</strong>" in page
    assert "REMOVED: Gone part (gone) (-5 tokens; reference -213)" in page


def test_no_reference_figures_no_reference_lines(flagship: CatalogDiff) -> None:
    assert not flagship.has_reference
    assert "Reference tokens" not in render_markdown(flagship)
    assert "reference tokens" not in render_text(flagship)


def test_a_content_addressed_file_name_is_not_reported(
    make_catalog: Callable[..., Path],
) -> None:
    def stored(body: str, **more: Any) -> dict[str, Any]:
        return {"id": "a", "body": body, "file": f"{sha(body)}.md", **more}

    old = load_dir(make_catalog("ca", "1.0.0", parts=[stored("One.")]))
    new = load_dir(make_catalog("ca", "1.1.0", parts=[stored("Two.")]))
    renamed = load_dir(make_catalog("ca", "1.2.0", parts=[{"id": "a", "body": "Two."}]))
    part = _part(catalog.diff(old, new), "a")
    assert part.field("file") is not None  # the data keeps it
    assert "file" not in render_markdown(catalog.diff(old, new))
    # The same text kept under another file name: a metadata-only change, counted...
    moved_file = catalog.diff(new, renamed)
    assert _part(moved_file, "a").change == "metadata"
    assert "- 1 part changed only in metadata — `--all` lists them" in render_markdown(moved_file)
    # ... and spelled out with --all.
    listed = render_markdown(moved_file, all_changes=True)
    assert f"- a: file `{sha('Two.')}.md` → `a.md` (+0 tokens)" in listed


def test_prompt_diff_leaves_out_undeclared_overrides(pair: tuple[Catalog, Catalog]) -> None:
    result = catalog.diff(*pair, context={"overrides": {"style": "Loud."}}, counter=len)
    prompt = result.prompt
    assert prompt is not None
    assert prompt.notes == ("slot 'style' does not exist in demo@2.0.0: override left out",)
    assert "Loud." in prompt.old_text and "Loud." not in prompt.new_text
    assert prompt.old_tokens == len(prompt.old_text)


def test_diff_is_immutable(pair: tuple[Catalog, Catalog]) -> None:
    result = catalog.diff(*pair)
    with pytest.raises(AttributeError):
        result.parts = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.parts[0].status = "added"  # type: ignore[misc]


# ------------------------------------------------------------------ renderers


def test_text_colour_only_when_asked(flagship: CatalogDiff) -> None:
    plain = render_text(flagship)
    assert "\x1b[" not in plain
    assert plain.splitlines()[0].startswith(
        "coding-agent@1.0.0 -> coding-agent@1.1.0: 3 added, 1 removed, 11 changed, 1 moved;"
    )
    assert "  + git-safety  (system, order 450)" in plain
    assert "  - file-read-limits  (system, order 320)" in plain
    assert '      condition "true" -> "\\"Read\\" in tools"' in plain
    coloured = render_text(flagship, color=True)
    assert "\x1b[32m  + git-safety" in coloured
    assert "\x1b[31m  - file-read-limits" in coloured


def test_markdown_is_changelog_ready(flagship: CatalogDiff) -> None:
    lines = render_markdown(flagship).splitlines()
    assert lines[0] == "### coding-agent@1.0.0 → coding-agent@1.1.0"
    delta = flagship.new_tokens - flagship.old_tokens
    assert lines[2].startswith(
        f"**Tokens: {flagship.old_tokens} → {flagship.new_tokens} (+{delta})**"
    )
    bullets = [line for line in lines if line.startswith("- ")]
    # one per changed part, plus the new variable, the new sub-agent and [sources]
    assert len(bullets) == len(flagship.changes) + 3
    assert any(b.startswith("- **NEW:** ") and "(`git-safety`)" in b for b in bullets)
    assert any(b.startswith("- **REMOVED:** ") and "(`file-read-limits`)" in b for b in bullets)
    large = next(b for b in bullets if "(`large-file-handling`)" in b)
    assert "moved" in large and 'condition `true` → `"Read" in tools`' in large


def test_json_has_stable_documented_keys(pair: tuple[Catalog, Catalog]) -> None:
    data = json.loads(render_json(catalog.diff(*pair, context={})))
    assert set(data) == {
        "schema",
        "old",
        "new",
        "identical",
        "counter",
        "token_delta",
        "reference",
        "summary",
        "settings",
        "variables",
        "agents",
        "parts",
        "prompt",
    }
    assert data["schema"] == 2
    assert data["reference"] is None
    assert data["summary"] == {
        "added": 0,
        "removed": 0,
        "changed": 6,
        "renamed": 0,
        "moved": 1,
        "only_whitespace": 0,
        "only_placeholders": 0,
        "only_metadata": 0,
    }
    assert set(data["parts"][0]) == {
        "id",
        "old_id",
        "name",
        "status",
        "change",
        "similarity",
        "kind",
        "old_order",
        "new_order",
        "moved",
        "text_changed",
        "fields",
        "old_tokens",
        "new_tokens",
        "token_delta",
        "old_reference_tokens",
        "new_reference_tokens",
        "reference_token_delta",
        "unified",
    }
    rules = next(p for p in data["parts"] if p["id"] == "rules")
    assert rules["fields"] == [{"key": "agents", "old": ["main"], "new": ["main", "helper"]}]
    assert set(data["prompt"]) == {
        "agent",
        "identical",
        "old_tokens",
        "new_tokens",
        "token_delta",
        "old_fingerprint",
        "new_fingerprint",
        "parts_added",
        "parts_removed",
        "notes",
        "unified",
    }


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_html_is_one_offline_page_with_side_by_side_diffs(
    make_catalog: Callable[..., Path],
) -> None:
    old = load_dir(make_catalog("h", "1.0.0", parts=[{"id": "a", "body": "keep\n<old> & x\n"}]))
    new = load_dir(make_catalog("h", "1.1.0", parts=[{"id": "a", "body": "keep\n<new> & x\n"}]))
    page = render_html(catalog.diff(old, new))
    parser = _Collector()
    parser.feed(page)
    tags = [tag for tag, _ in parser.tags]
    assert "script" not in tags and "link" not in tags and "img" not in tags
    assert "style" in tags
    assert all(not (attrs.get("src") or attrs.get("href")) for _, attrs in parser.tags)
    assert "&lt;old&gt; &amp; x" in page and "&lt;new&gt; &amp; x" in page
    row = page[page.index("&lt;old&gt;") - 200 : page.index("&lt;new&gt;")]
    assert "l chg" in row and "r chg" in row  # the changed line sits beside its new version
    assert "<th colspan=2>h@1.0.0</th><th colspan=2>h@1.1.0</th>" in page  # which side is which
    assert page.startswith("<!DOCTYPE html>")


def test_html_of_the_flagship_names_every_change(flagship: CatalogDiff) -> None:
    page = render_html(flagship)
    for part in flagship.changes:
        assert f"({part.id})" in page
    assert page.count("<table class=side>") == len(flagship.changes)


def test_markdown_prompt_diff_fence_outlasts_backticks_in_the_text(
    make_catalog: Callable[..., Path],
) -> None:
    old = load_dir(make_catalog("f", "1.0.0", parts=[{"id": "a", "body": "Run:\n```sh\nls\n```"}]))
    new = load_dir(make_catalog("f", "1.1.0", parts=[{"id": "a", "body": "Run:\n```sh\npwd\n```"}]))
    markdown = render_markdown(catalog.diff(old, new, context={}))
    assert "\n````diff\n" in markdown
    assert markdown.rstrip().endswith("\n````")


def test_changed_sources_and_bindings_are_reported_as_settings(
    make_catalog: Callable[..., Path],
) -> None:
    parts = [{"id": "intro", "body": "Hi."}]
    old = load_dir(make_catalog("gathered", "1.0.0", parts))
    sources = {"files": [{"names": ["AGENTS.md"]}]}
    new = load_dir(make_catalog("gathered", "1.1.0", parts, extra={"sources": sources}))
    result = catalog.diff(old, new)
    (change,) = result.settings
    assert change.key == "sources"
    assert change.old is None
    assert change.new == {"files": [{"names": ["AGENTS.md"]}]}
    assert "catalog setting sources" in render_markdown(result)
    assert catalog.diff(new, new).settings == ()


def test_markdown_escapes_names_and_descriptions(make_catalog: Callable[..., Path]) -> None:
    loud = "Use *all* of `grep` [docs](x) <b>|</b> snake_case ~old~ R&amp;D"
    old = load_dir(
        make_catalog(
            "m",
            "1.0.0",
            parts=[
                {"id": "heading", "body": "1", "description": "# Not a heading"},
                {
                    "id": "intro",
                    "order": 20,
                    "body": "1",
                    "meta": {"name": "1. Intro", "cc_key": "a"},
                },
            ],
        )
    )
    new = load_dir(
        make_catalog(
            "m",
            "1.1.0",
            parts=[
                {
                    "id": "intro",
                    "order": 20,
                    "body": "2",
                    "meta": {"name": "1. Intro", "cc_key": "b"},
                },
                {"id": "loud", "order": 30, "body": "3", "description": loud},
                {"id": "quote", "order": 40, "body": "4", "meta": {"name": "> quoted\n- listed"}},
            ],
        )
    )
    bullets = [line for line in render_markdown(catalog.diff(old, new)).splitlines() if "`" in line]
    assert bullets == [
        r"- **NEW:** \> quoted - listed (`quote`): system, order 40 (+1 tokens)",
        r"- **NEW:** Use \*all\* of \`grep\` \[docs\](x) \<b>\|\</b> snake\_case \~old\~ "
        r"R\&amp;D (`loud`): system, order 30 (+1 tokens)",
        r"- **REMOVED:** \# Not a heading (`heading`) (-1 tokens)",
        r"- 1\. Intro (`intro`): text changed; meta.cc\_key `a` → `b` (+0 tokens)",
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", "`plain`"),
        ("a `b` c", "``a `b` c``"),
        ("x ``y`` z", "```x ``y`` z```"),
        ("`edge", "`` `edge ``"),
    ],
)
def test_markdown_code_spans_hold_any_backtick_run(value: str, expected: str) -> None:
    from catalog.changes.render import md_code

    assert md_code(value) == expected
