"""Releases written by hand, imported, then read back as a changelog and as history.

Three releases of a made-up prompt collection in the upstream layout, with
what real authors do between releases: a part renamed with a small edit (a
long one and a short one), two parts merged into one, one split in two, one
removed then added back, placeholders respaced then renamed, whitespace
changed, a part moved to another kind. Every expected value is written out
by hand from the texts below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from catalog.changes.classify import find_renames
from catalog.cli import main

LONG = (
    "You are a careful agent. Always read the file before you edit it. Never guess the "
    "contents of a file you have not read. Prefer small focused edits over rewrites.\n"
    "Keep the user informed of progress.\n"
)
MERGE_1 = "When the user asks for a commit, write a short message in the imperative mood.\n"
MERGE_2 = "When the user asks for a pull request, summarise every commit on the branch.\n"
SPLIT_1 = "First part of a long instruction about testing code thoroughly before shipping it.\n"
SPLIT_2 = "Second part explains how to report failures with logs and exact reproduction steps.\n"
READ = "Use the ${READ_TOOL} tool to read files before editing them with care.\n"
LINES = "Line one stays the same.\nLine two of the part.\n"
MEMORY = "Part e says something unique about memory files here.\n"

RELEASES: dict[str, dict[str, str]] = {
    "2.0": {
        "system-prompt-careful": LONG,
        "tool-parameter-read-file-path": "The absolute path to the file to read\n",
        "system-prompt-commit": MERGE_1,
        "system-prompt-pull-request": MERGE_2,
        "system-prompt-testing": SPLIT_1 + "\n" + SPLIT_2,
        "system-prompt-read": READ,
        "system-prompt-lines": LINES,
        "system-prompt-memory": MEMORY,
        "system-prompt-brief": "Be brief.\n",
    },
    "2.0.1b1": {
        "system-prompt-careful-edits": LONG.replace("small focused", "small, focused"),
        "tool-parameter-read-path": "The absolute path of the file to read\n",
        "system-prompt-git": MERGE_1 + MERGE_2,
        "system-prompt-testing-how": SPLIT_1,
        "system-prompt-testing-report": SPLIT_2,
        "system-prompt-read": READ.replace("${READ_TOOL}", "${ READ_TOOL }"),
        "system-prompt-lines": LINES.replace("Line two", "Line  two") + "\n",
        "agent-prompt-brief": "Be concise.\n",
    },
    "2.0.1": {
        "system-prompt-careful-edits": LONG.replace("small focused", "small, focused"),
        "tool-parameter-read-path": "The absolute path of the file to read\n",
        "system-prompt-git": MERGE_1 + MERGE_2,
        "system-prompt-testing-how": SPLIT_1,
        "system-prompt-testing-report": SPLIT_2,
        "system-prompt-read": READ.replace("${READ_TOOL}", "${VIEW_TOOL}"),
        "system-prompt-lines": LINES,
        "system-prompt-memory": MEMORY,
        "agent-prompt-brief": "Be concise.\n",
    },
}


def _import(tmp_path: Path, version: str, parts: dict[str, str]) -> None:
    checkout = tmp_path / f"checkout-{version}"
    (checkout / "system-prompts").mkdir(parents=True)
    readme = f"Prompts as of **[Claude Code v{version}](x) (today).**\n"
    (checkout / "README.md").write_text(readme)
    for part_id, body in parts.items():
        header = f"<!--\nname: '{part_id.upper()}'\ndescription: made by hand\n-->\n"
        (checkout / "system-prompts" / f"{part_id}.md").write_text(header + body)
    out = str(tmp_path / "cats")
    assert main(["import", "piebald", str(checkout), "--name", "cc", "--out", out]) == 0


@pytest.fixture
def store(tmp_path: Path) -> Path:
    for version, parts in RELEASES.items():
        _import(tmp_path, version, parts)
    return tmp_path / "cats"


def _json(capsys: pytest.CaptureFixture[str], args: list[str], code: int = 0) -> Any:
    assert main([*args, "--format", "json"]) == code
    return json.loads(capsys.readouterr().out)


def test_short_bodies_renamed_with_a_one_word_edit_are_renames() -> None:
    # Eight words, one changed: 5 of 7 two-word shingles kept (by 4-word ones, 1 of 9).
    assert find_renames(
        {"read-file-path": "The absolute path to the file to read"},
        {"read-path": "The absolute path of the file to read"},
    ) == [("read-file-path", "read-path", 0.556)]
    # Three words, one changed: {read, file.} of {read, the, a, file.}.
    assert find_renames({"a": "Read the file."}, {"b": "Read a file."}) == [("a", "b", 0.5)]
    # Half the words of two words is not a rename; nor is another short text.
    assert find_renames({"a": "Be brief."}, {"b": "Be concise."}) == []
    assert find_renames({"a": "The file path."}, {"b": "The command to run."}) == []


def test_the_diff_reads_like_a_changelog(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    diff = _json(capsys, ["diff", "cc@2.0", "cc@2.0.1b1", "--path", str(store)], code=1)
    got = {(p["status"], p["old_id"], p["id"], p["change"]) for p in diff["parts"]}
    assert got == {
        ("renamed", "system-prompt-careful", "system-prompt-careful-edits", "prose"),
        ("renamed", "tool-parameter-read-file-path", "tool-parameter-read-path", "prose"),
        # merged: the first half lives on under the new id, the second is gone
        ("renamed", "system-prompt-commit", "system-prompt-git", "prose"),
        ("removed", None, "system-prompt-pull-request", None),
        # split: neither half is half the whole
        ("removed", None, "system-prompt-testing", None),
        ("added", None, "system-prompt-testing-how", None),
        ("added", None, "system-prompt-testing-report", None),
        ("changed", None, "system-prompt-read", "placeholders"),
        ("changed", None, "system-prompt-lines", "whitespace"),
        ("removed", None, "system-prompt-memory", None),
        # another kind and another word: a new part, not a rename
        ("removed", None, "system-prompt-brief", None),
        ("added", None, "agent-prompt-brief", None),
    }
    similarity = {p["id"]: p["similarity"] for p in diff["parts"] if p["status"] == "renamed"}
    assert similarity["tool-parameter-read-path"] == 0.556
    later = _json(capsys, ["diff", "cc@2.0.1b1", "cc@2.0.1", "--path", str(store)], code=1)
    assert {(p["status"], p["id"], p["change"]) for p in later["parts"]} == {
        ("changed", "system-prompt-read", "prose"),  # ${READ_TOOL} became ${VIEW_TOOL}
        ("changed", "system-prompt-lines", "whitespace"),
        ("added", "system-prompt-memory", None),
    }


def test_markdown_names_the_renames(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["diff", "cc@2.0", "cc@2.0.1b1", "--path", str(store), "--format", "markdown"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert (
        "- **RENAMED:** TOOL-PARAMETER-READ-FILE-PATH (`tool-parameter-read-file-path`) → "
        "TOOL-PARAMETER-READ-PATH (`tool-parameter-read-path`) (56% alike): text changed"
    ) in out
    assert "- 1 part changed only inside placeholders, 1 only in whitespace" in out


def test_log_follows_renames_and_returns(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def log(part: str) -> list[tuple[str, str, str | None, str | None]]:
        found = _json(capsys, ["log", "cc", part, "--path", str(store)])
        return [(e["version"], e["change"], e["old_id"], e["text"]) for e in found["entries"]]

    assert log("tool-parameter-read-file-path") == [
        ("2.0", "added", None, None),
        ("2.0.1b1", "renamed", "tool-parameter-read-file-path", "prose"),
    ]
    assert log("system-prompt-memory") == [
        ("2.0", "added", None, None),
        ("2.0.1b1", "removed", None, None),
        ("2.0.1", "added", None, None),
    ]
    assert log("system-prompt-read") == [
        ("2.0", "added", None, None),
        ("2.0.1b1", "placeholders", None, "placeholders"),
        ("2.0.1", "prose", None, "prose"),
    ]
    assert log("system-prompt-lines") == [
        ("2.0", "added", None, None),
        ("2.0.1b1", "whitespace", None, "whitespace"),
        ("2.0.1", "whitespace", None, "whitespace"),
    ]


def test_blame_and_grep_agree_with_the_texts(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blame = _json(capsys, ["blame", "cc@2.0.1", "system-prompt-git", "--path", str(store)])
    # The commit line came with system-prompt-commit (2.0); the pull-request line
    # joined this part in 2.0.1b1 (blame follows the rename, not the merge).
    assert [(line["text"], line["version"]) for line in blame["lines"]] == [
        (MERGE_1.strip(), "2.0"),
        (MERGE_2.strip(), "2.0.1b1"),
    ]
    lines = _json(capsys, ["blame", "cc@2.0.1", "system-prompt-lines", "--path", str(store)])
    # "Line two" left in 2.0.1b1 (respaced) and came back in 2.0.1.
    assert [(line["text"], line["version"]) for line in lines["lines"]] == [
        ("Line one stays the same.", "2.0"),
        ("Line two of the part.", "2.0.1"),
    ]
    found = _json(capsys, ["grep", "pull request", "cc", "--path", str(store)])
    assert [(m["part"], m["versions"], m["in_newest"]) for m in found["matches"]] == [
        ("system-prompt-pull-request", ["2.0"], False),
        ("system-prompt-git", ["2.0.1b1", "2.0.1"], True),
    ]
    path = _json(capsys, ["grep", "absolute path", "cc", "--path", str(store)])
    assert [(m["part"], m["ids"], m["first"], m["last"]) for m in path["matches"]] == [
        (
            "tool-parameter-read-path",
            ["tool-parameter-read-file-path", "tool-parameter-read-path"],
            "2.0",
            "2.0.1",
        )
    ]
