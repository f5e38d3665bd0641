#!/usr/bin/env python3
"""Figures for hostile inputs (printed, never asserted in tests).

Prints how long the tool takes on inputs built to be slow:
- bracket templates: the reported ``"[a:" * N`` case and other tag soups, next
  to the backtracking regular expression the scanner replaced (on sizes it
  can finish);
- YAML front matter: "billion laughs" and deep nesting, refused;
- expressions and bodies that multiply text and lists, stopped by the budget;
- git facts read from a repository's files (no git runs);
- the importer's readers of upstream text (README, commit subjects, changelog
  bullets, part headers) on a megabyte of hostile text, next to the
  backtracking patterns they replaced (on sizes those can finish).

Run: ``python scripts/bench_hostile.py``.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from catalog.errors import CatalogError
from catalog.gathering._git import (
    git_facts,
)
from catalog.gathering.safe import (
    ReadRules,
    YamlError,
    load_yaml,
)
from catalog.importers.piebald.changelog import (
    parse_changelog,
)
from catalog.importers.piebald.header import (
    read_header,
)
from catalog.importers.piebald.parse import (
    parse_readme,
    release_version,
)
from catalog.lang.brackets import render_brackets
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY
from catalog.lang.template import compile_template

_OLD_TAG = re.compile(
    r"\[(?:if +(!?)([a-z][a-z0-9_]*):([^\]\s][^\]\n]*)|(else)|(endif)"
    r"|([a-z][a-z0-9_]*):([^\]\s][^\]\n]*))\]"
)


# The importer's patterns before they were replaced.
_OLD_README_ENTRY = re.compile(
    r"^\s*[-*]\s+\[(?P<name>.+?)\]\((?:\./)?system-prompts/(?P<file>[^)\s]+?\.md)\)"
    r"\s*\(\*\*(?P<tokens>[\d,]+)\*\*\s*tks?\)\s*(?:[-\u2013\u2014]\s*(?P<description>.*?))?\s*$",
    re.MULTILINE,
)
_OLD_SUBJECT = re.compile(r"^v?(?P<version>\d+(?:\.\d+)+[^\s(]*)(?:\s+\(.*\))?\s*$")
_OLD_BULLET = re.compile(r"^[-*]\s+(?:\*\*(?P<tag>NEW|REMOVED):\*\*\s*)?(?P<rest>.+?)\s*$")
_OLD_FIGURE = re.compile(r"\s*\(\d[\d,]* tks?\)")


def _time(run: Callable[[], Any]) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        run()
        outcome = "ok"
    except (CatalogError, YamlError) as exc:
        outcome = f"refused: {type(exc).__name__}"
    return time.perf_counter() - start, outcome


def _all_matches(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    return list(pattern.finditer(text))


def _row(label: str, size: int, run: Callable[[], Any]) -> None:
    seconds, outcome = _time(run)
    print(f"  {label:46} {size:>10,} chars {seconds * 1000:10.1f} ms   {outcome}")


def brackets() -> None:
    print("bracket templates (render):")
    cases = {
        '"[a:" * 20,000, closed on the next line': "[a:" * 20_000 + "\n]",
        '"[a:" * 85,000 (256 KiB), one tag': "[a:" * 85_000 + "]",
        "[if a:b][endif] * 17,000 on one line": "[if a:b][endif]" * 17_000,
        "tag lines, 256 KiB": "[if a:b]\n[a:b]\n[endif]\n" * 10_000,
        '"[" * 250,000 then "]"': "[" * 250_000 + "]",
        '"[a" * 125,000 then "]"': "[a" * 125_000 + "]",
        '"[a:" * 350,000 (1 MiB): over the size limit': "[a:" * 350_000,
    }
    for label, template in cases.items():
        _row(label, len(template), partial(render_brackets, template, {"a:b": "v"}))
    print("  the regular expression it replaced, on the first case:")
    for count in (2_500, 5_000, 10_000):
        text = "[a:" * count + "\n]"
        _row(f'  old regex, "[a:" * {count:,}', len(text), partial(_all_matches, _OLD_TAG, text))


def yaml() -> None:
    print("front matter YAML (load_yaml):")
    laughs = "\n".join(
        ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        + [
            f"{x}: &{x} [{','.join([f'*{p}'] * 9)}]"
            for p, x in zip("abcdefgh", "bcdefghi", strict=True)
        ]
    )
    cases = {
        "billion laughs (9 levels of aliases)": laughs,
        "20,000 nested [": "x: " + "[" * 20_000 + "]" * 20_000,
        "10,000 nested {a:": "x: " + "{a: " * 10_000 + "1" + "}" * 10_000,
        "60 KiB of plain keys": "".join(f"key{i}: value {i}\n" for i in range(3_000)),
    }
    for label, text in cases.items():
        _row(label, len(text), partial(load_yaml, text))


def budget() -> None:
    print("expressions and bodies under the evaluation budget:")
    blob = "a " * 1_000_000
    cases: dict[str, tuple[str, dict[str, Any]]] = {
        "intersect(split(x), split(x)), 2 MB text": ("intersect(split(x), split(x))", {"x": blob}),
        "unique(split(x)), 2 MB text": ("len(unique(split(x)))", {"x": blob}),
        "replace x3, 10 -> 10,000,000 chars": (
            "len("
            + "replace(" * 3
            + 'x, "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa"))',
            {"x": "a" * 10_000},
        ),
    }
    for label, (source, scope) in cases.items():
        expression = compile_expression(source, dict.fromkeys(scope, ANY))
        _row(label, len(source), partial(expression, scope))
    body = '{% for i in items %}{{ len(replace(t, "a", "aaaaaaaaaa")) }}{% endfor %}'
    template = compile_template(body, {"items": ANY, "t": ANY})
    _row(
        "for loop of 1,000 x replace on 100 KB",
        len(body),
        lambda: template.render({"items": list(range(1_000)), "t": "a" * 100_000}),
    )


def git() -> None:
    print("git facts read from files (no git runs):")
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        for i in range(2_000):
            folder = top / f"d{i % 50}"
            folder.mkdir(exist_ok=True)
            (folder / f"f{i}.txt").write_text(f"{i}\n")
        env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": tmp}
        env["PATH"] = "/usr/bin:/bin"
        for args in (["init", "-q"], ["add", "-A"]):
            subprocess.run(["git", *args], cwd=top, env=env, check=True)
        for i in range(0, 2_000, 10):
            (top / f"d{i % 50}" / f"f{i}.txt").write_text("changed\n")
        (top / "new").mkdir()
        (top / "new" / "x").write_text("x")
        rules = ReadRules((top,))
        seconds, _ = _time(lambda: git_facts(top, rules))
        facts = git_facts(top, rules)
        lines = facts["git_status"].count("\n") + 1
        print(f"  2,000 tracked files, 200 changed: {seconds * 1000:.1f} ms, {lines} status lines")


def importer() -> None:
    print("importer readers of upstream text (about 1 MB of hostile text each):")
    megabyte = 1_000_000
    readme, subject = parse_readme, release_version
    cases: dict[str, tuple[Callable[[str], Any], str]] = {
        "README: a million blank lines": (readme, "- x\n" + "\n" * megabyte),
        'README: "- [" * 333,000': (readme, "- [" * (megabyte // 3)),
        'subject: "1" + ".1" * 500,000 + " x"': (subject, "1" + ".1" * (megabyte // 2) + " x"),
        "changelog: a bullet with 1 MB of spaces": (
            parse_changelog,
            "# [1.0](x)\n- a" + " " * megabyte + "b (12 tks) - c\n",
        ),
        "header: a folded block of 140,000 lines": (_header, "a: >\n" + "  word\n" * 140_000),
        "header: a flow list of 333,000 items": (_header, "a: [" + "x, " * 333_000 + "y]"),
        "header: 1,400 levels of nesting (refused)": (
            _header,
            "".join(" " * level + "k:\n" for level in range(1_400)),
        ),
    }
    for label, (read, text) in cases.items():
        _row(label, len(text), partial(read, text))
    print("  the patterns they replaced:")
    old: list[tuple[str, re.Pattern[str], Callable[[int], str], tuple[int, ...]]] = [
        ("README, blank lines", _OLD_README_ENTRY, lambda n: "- x\n" + "\n" * n, (5_000, 20_000)),
        ("subject", _OLD_SUBJECT, lambda n: "1" + ".1" * n + " x", (2_000, 8_000)),
        ("changelog bullet, spaces", _OLD_BULLET, lambda n: "- a" + " " * n + "b", (5_000, 20_000)),
        ("figure, spaces", _OLD_FIGURE, lambda n: "- a" + " " * n + "b", (5_000, 20_000)),
    ]
    for label, pattern, make, counts in old:
        for count in counts:
            text = make(count)
            _row(f"  old {label}", len(text), partial(_all_matches, pattern, text))


def _header(text: str) -> Any:
    return read_header(text, "a.md")


def main() -> None:
    brackets()
    yaml()
    budget()
    git()
    importer()


if __name__ == "__main__":
    main()
