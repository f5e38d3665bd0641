"""``log``, ``blame`` and ``grep`` agree with what git (and ``log`` with ``diff``) says
about the same history.

Each history (the nine fixture releases, a synthetic messy history, a
hand-written one) is also written as a git repository whose commits are the
versions, one file ``<id>.md`` per part holding its body, built from the
versions loaded by the ordinary loader. Then:

* between each two versions, ``log`` says of every part what ``catalog diff``
  of the two versions says (change class, old id, tokens and delta);
* the versions where a part's file changed (``git log --no-renames``) are
  those where ``log`` reports a body change, an addition, a removal or a
  rename of it; renames with the same body are followed like
  ``git log --follow``;
* ``blame`` and ``git blame`` coincide where the definitions do: git dates a
  line from the commit whose diff added it, ``blame`` from the earliest
  version after which the line (its k-th copy) was always there. So ``blame``
  is never later than git, and is the same whenever the version before git's
  commit held fewer copies of the line; it is earlier for a line git sees
  moved, or one whose copies a diff paired differently;
* ``grep`` finds a text in the same files of each version as ``git grep -F``.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from catalog.changes.compute import lines
from catalog.changes.history import CatalogHistory, LogEntry, open_history
from catalog.importers.piebald import import_releases, read_history
from catalog.io.catalog_path import CatalogPath
from tests._support.history_story import (
    STORY,
    assert_log_agrees_with_diff,
    write_history,
)
from tests._support.messy_history import build_messy_history, history_from_folders
from tests._support.synthetic_history import fast_import, fast_import_commit, fast_import_data

GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
BODY_CHANGES = {"added", "removed", "renamed", "prose", "whitespace", "placeholders"}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, check=True, env=GIT_ENV
    )
    return done.stdout.decode("utf-8")


class GitHistory:
    """A catalog's versions as git commits, one file per part."""

    def __init__(self, repo: Path, catalog_path: CatalogPath, name: str) -> None:
        self.repo = repo
        stream = bytearray()
        for minute, ref in enumerate(catalog_path.versions(name)):
            stream += fast_import_commit(str(ref.version), minute) + b"deleteall\n"
            for part in ref.load().parts:
                stream += f"M 100644 inline {part.id}.md\n".encode() + fast_import_data(part.body)
            stream += b"\n"
        fast_import(repo, bytes(stream))
        lines = git(repo, "log", "--reverse", "--format=%H %s", "main").splitlines()
        self.commits = dict(line.split(" ", 1) for line in lines)  # sha -> version
        self.order = list(self.commits.values())
        self._shown: dict[str, str] = {}

    def show(self, parent: str, file: str) -> str:
        """The text of ``file`` in commit ``parent``."""
        key = f"{parent}:{file}"
        if key not in self._shown:
            self._shown[key] = git(self.repo, "show", key)
        return self._shown[key]

    def touched(self) -> dict[str, set[str]]:
        """Per file, the versions whose commit added, changed or deleted it."""
        found: dict[str, set[str]] = defaultdict(set)
        version = ""
        for line in git(self.repo, "log", "--no-renames", "--format=@%s", "--name-only").split(
            "\n"
        ):
            if line.startswith("@"):
                version = line[1:]
            elif line:
                found[line].add(version)
        return found

    def blame(self, version: str, file: str) -> list[tuple[str, str, str | None]]:
        """Per line: its text, the version git dates it from, and the text of the file
        in the version before that one (None when git saw no such file there)."""
        commit = next(sha for sha, v in self.commits.items() if v == version)
        out = git(self.repo, "blame", "--line-porcelain", commit, "--", file)
        found: list[tuple[str, str, str | None]] = []
        sha = ""
        previous: str | None = None
        for line in out.split("\n"):
            header = re.match(r"^([0-9a-f]{40}) \d+ \d+", line)
            if header:
                sha, previous = header.group(1), None
            elif line.startswith("previous "):
                _, parent, name = line.split(" ", 2)
                previous = self.show(parent, name) if name == file else "?"
            elif line.startswith("filename ") and line != f"filename {file}":
                previous = "?"  # git followed a rename: not compared line by line
            elif line.startswith("\t"):
                found.append((line[1:], self.commits[sha], previous))
        return found

    def grep(self, *options: str) -> dict[str, set[str]]:
        """Per version, the files ``git grep -l OPTIONS PATTERN`` lists."""
        found: dict[str, set[str]] = {}
        for sha, version in self.commits.items():
            *flags, pattern = options
            done = subprocess.run(
                ["git", "-C", str(self.repo), "grep", "-l", *flags, "-e", pattern, sha],
                capture_output=True,
                env=GIT_ENV,
                check=False,
            )
            assert done.returncode in (0, 1), done.stderr
            names = done.stdout.decode().splitlines()
            found[version] = {name.split(":", 1)[1] for name in names}
        return found


def every_entry(history: CatalogHistory) -> list[LogEntry]:
    return [
        entry
        for kind in ("system", "tool", "agent", "reminder")
        for entry in history.log(kind=kind).entries
    ]


def check_log(history: CatalogHistory, repo: GitHistory) -> int:
    ours: dict[str, set[str]] = defaultdict(set)
    for entry in every_entry(history):
        if entry.change in BODY_CHANGES:
            ours[f"{entry.id}.md"].add(entry.version)
        if entry.old_id is not None:
            ours[f"{entry.old_id}.md"].add(entry.version)
    assert ours == repo.touched()
    return len(ours)


def check_follow(history: CatalogHistory, repo: GitHistory) -> int:
    """A part of the newest version renamed with the same body is followed as
    ``git log --follow`` follows it."""
    newest = set(history.parts())
    checked = 0
    for entry in every_entry(history):
        if entry.change != "renamed" or entry.similarity != 1.0 or entry.id not in newest:
            continue
        logged = {e.version for e in history.log(entry.id).entries if e.change in BODY_CHANGES}
        followed = git(repo.repo, "log", "--follow", "--format=%s", "main", "--", f"{entry.id}.md")
        assert set(followed.split()) == logged, (entry.id, entry.old_id)
        checked += 1
    return checked


def check_blame(history: CatalogHistory, repo: GitHistory, version: str, parts: list[str]) -> int:
    """Per part and line text: blame's versions (sorted) are never later than git's, and
    the same where the version before git's held fewer copies of the line."""
    order = {v: i for i, v in enumerate(repo.order)}
    equal = 0
    for part in parts:
        ours: dict[str, list[int]] = defaultdict(list)
        for line in history.blame(part, version).lines:
            ours[line.text].append(order[line.version])
        theirs: dict[str, list[tuple[int, str | None]]] = defaultdict(list)
        for text, introduced, before in repo.blame(version, f"{part}.md"):
            theirs[text].append((order[introduced], before))
        assert ours.keys() == theirs.keys(), part
        # Where blame follows a rename that git does not see (git's rename detection
        # compares lines, catalog diff's word shingles), git starts the file afresh.
        renamed = {order[e.version] for e in history.log(part).entries if e.change == "renamed"}
        for text, dated in theirs.items():
            dated.sort(key=lambda item: item[0])
            mine = sorted(ours[text])
            for copy, ((since, before), found) in enumerate(zip(dated, mine, strict=True), 1):
                assert found <= since, (part, text)
                if before == "?" or (before is None and since in renamed):
                    continue
                held = 0 if before is None else Counter(lines(before))[text]
                if held < copy:
                    assert found == since, (part, text)
                    equal += 1
    return equal


def check_grep(
    history: CatalogHistory,
    repo: GitHistory,
    text: str,
    *,
    regex: str | None = None,
    ignore_case: bool = False,
) -> None:
    """``grep`` of ``text`` (a pattern when ``regex`` is git's same pattern) finds what
    ``git grep`` finds in each version."""
    found = history.grep(text, ignore_case=ignore_case, pattern=regex is not None).matches
    options = ["-i"] if ignore_case else []
    options += ["-E", regex] if regex is not None else ["-F", text]
    theirs = repo.grep(*options)
    counts = Counter(version for match in found for version in match.versions)
    assert counts == Counter({v: len(files) for v, files in theirs.items() if files})
    # A part that kept its id is one file (an id taken again after a rename: two parts).
    renamed = {part for match in found if len(match.ids) > 1 for part in match.ids}
    by_id: dict[str, set[str]] = defaultdict(set)
    for match in found:
        if match.part not in renamed:
            by_id[match.part].update(match.versions)
    for part, versions in by_id.items():
        assert versions == {v for v, files in theirs.items() if f"{part}.md" in files}, part


def changed_parts(history: CatalogHistory, version: str, limit: int) -> list[str]:
    """Parts of ``version`` whose body changed most often, up to ``limit``."""
    changes = Counter(e.id for e in every_entry(history) if e.change in BODY_CHANGES)
    present = set(history.parts(version))
    return sorted((p for p in changes if p in present), key=lambda p: (-changes[p], p))[:limit]


def test_a_hand_written_history_agrees_with_git(tmp_path: Path) -> None:
    write_history(tmp_path / "catalogs", STORY, "story")
    catalog_path = CatalogPath([tmp_path / "catalogs"], use_env=False)
    history = open_history("story", catalog_path=catalog_path, cache=False)
    repo = GitHistory(tmp_path / "git", catalog_path, "story")
    assert check_log(history, repo) == 6
    assert check_follow(history, repo) == 1
    # No line moved and none repeated: blame and git blame say the same of every line.
    for version in history.versions:
        for part in history.parts(version):
            mine = [(b.text, b.version) for b in history.blame(part, version).lines]
            assert mine == [(text, since) for text, since, _ in repo.blame(version, f"{part}.md")]
    check_grep(history, repo, "Rule")
    check_grep(history, repo, "be brief", ignore_case=True)


def test_where_blame_and_git_blame_differ(tmp_path: Path) -> None:
    """A line moved: git dates it from the move, blame from when it was first there.
    A copy of a repeated line added above the first: git dates the new copy, blame the
    later copy in the text."""
    bodies = ["one\ntwo\nthree\n", "two\nthree\none\n", "x\ntwo\nthree\none\n", "x\ntwo\nx\n"]
    story = {f"1.{n}.0": [{"id": "p", "body": body}] for n, body in enumerate(bodies)}
    write_history(tmp_path / "catalogs", story, "moves")
    catalog_path = CatalogPath([tmp_path / "catalogs"], use_env=False)
    history = open_history("moves", catalog_path=catalog_path, cache=False)
    repo = GitHistory(tmp_path / "git", catalog_path, "moves")
    assert [(b.text, b.version) for b in history.blame("p", "1.2.0").lines] == [
        ("x", "1.2.0"), ("two", "1.0.0"), ("three", "1.0.0"), ("one", "1.0.0")
    ]  # fmt: skip
    assert [(t, v) for t, v, _ in repo.blame("1.2.0", "p.md")][3] == ("one", "1.1.0")
    assert [(b.text, b.version) for b in history.blame("p", "1.3.0").lines] == [
        ("x", "1.2.0"), ("two", "1.0.0"), ("x", "1.3.0")
    ]  # fmt: skip
    assert check_blame(history, repo, "1.3.0", ["p"]) >= 1


def test_a_synthetic_messy_history_agrees_with_git_and_diff(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream"
    build_messy_history(upstream, releases=18, max_parts=120, seed=5)
    import_releases(read_history(upstream), name="syn", out=tmp_path / "out")
    catalog_path = CatalogPath([tmp_path / "out"], use_env=False)
    history = open_history("syn", catalog_path=catalog_path, cache=False)
    assert assert_log_agrees_with_diff(history, catalog_path) > 100
    changes = {entry.change for entry in every_entry(history)}
    assert {"renamed", "whitespace", "placeholders", "metadata", "prose"} <= changes
    repo = GitHistory(tmp_path / "git", catalog_path, "syn")
    assert check_log(history, repo) > 100
    assert check_follow(history, repo) >= 1
    newest = history.versions[-1]
    assert check_blame(history, repo, newest, changed_parts(history, newest, 40)) > 100
    check_grep(history, repo, "${IS_BASH")
    check_grep(history, repo, "review commit", ignore_case=True)
    check_grep(history, repo, "Agent*tool", regex="Agent.*tool")


@pytest.mark.slow
def test_the_fixture_releases_agree_with_git_and_diff(
    claude_code_releases: Path, tmp_path: Path
) -> None:
    upstream = tmp_path / "upstream"
    history_from_folders(upstream, claude_code_releases.iterdir())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        patch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
        import_releases(read_history(upstream), name="claude-code", out=tmp_path / "out")
    catalog_path = CatalogPath([tmp_path / "out"], use_env=False)
    history = open_history("claude-code", catalog_path=catalog_path, cache=False)
    assert assert_log_agrees_with_diff(history, catalog_path) > 1000
    repo = GitHistory(tmp_path / "git", catalog_path, "claude-code")
    assert check_log(history, repo) > 700
    assert check_follow(history, repo) >= 10
    newest = history.versions[-1]
    assert check_blame(history, repo, newest, changed_parts(history, newest, 60)) > 500
    for text in ("TodoWrite", "IMPORTANT:", "<system-reminder>", "git commit"):
        check_grep(history, repo, text)
    check_grep(history, repo, "plan mode", ignore_case=True)
    check_grep(history, repo, "Read*tool", regex="Read.*tool")
