"""Git facts read from a repository's files: the git program never runs.

A gathered folder may carry a hostile git configuration (``core.fsmonitor``,
hooks, aliases, pagers, filters, includes, a ``.git`` file pointing
elsewhere). Running ``git`` there runs what it names, so the branch and a
short status are read here from the files themselves, with bounded work:

* the branch from ``HEAD`` (``ref: refs/heads/NAME``; a detached head is
  ``HEAD``), only when the ref obeys git's ref-name rules (else none, with a
  warning);
* the status as ``git status --short`` writes its second column: `` M`` for a
  tracked file whose working copy differs from the index (size, type,
  executable bit, or content hashed as git does), `` D`` for one that is gone,
  then ``??`` for untracked files and folders, ignoring what ``.gitignore``
  files and ``.git/info/exclude`` ignore. Changes staged in the index are not
  compared with the last commit (that needs the object store), so the first
  column is always blank; content filters and line-ending conversion are not
  applied (they are programs and settings of the repository).

Nothing in the configuration is obeyed; the environment's ``GIT_DIR`` and
``GIT_WORK_TREE`` are ignored. A ``.git`` file (``gitdir: PATH``, as in
worktrees and submodules) is followed under the link rule of
:mod:`catalog.gathering.safe`.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import os
import stat
import string
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from catalog.gathering._files import warn
from catalog.gathering._gitignore import MAX_IGNORE_STEPS, Ignores
from catalog.gathering._refname import ref_problem
from catalog.gathering.safe import ReadRules, allowed_path, foreign_owner, within_roots
from catalog.io.textfile import read_capped
from catalog.text.globs import GlobBudgetError

__all__ = ["git_facts"]

MAX_INDEX_BYTES: Final = 64 * 1024 * 1024
"""Largest index file read; a larger one gives no status."""
MAX_HASH_BYTES: Final = 64 * 1024 * 1024
"""Most bytes hashed to tell a touched file from a changed one (past it: changed)."""
MAX_UNTRACKED_ENTRIES: Final = 50_000
"""Most folder entries looked at for untracked files."""
MAX_FOLDER_DEPTH: Final = 64
"""Deepest folder looked into for untracked files (the walk is recursive)."""
MAX_INDEX_ENTRIES: Final = 500_000
"""Most index entries read; a larger index gives no status."""
MAX_STATUS_LINES: Final = 500
"""Most status lines kept; a final line says how many more there were."""

_SMALL: Final = 4096


@dataclass(frozen=True, slots=True)
class _Entry:
    path: str
    mode: int
    oid: bytes
    size: int
    mtime: tuple[int, int]


def git_facts(cwd: Path, rules: ReadRules) -> dict[str, Any]:
    """``is_git_repo``, ``git_branch`` and ``git_status``; empty outside a repository."""
    found = _find_repository(cwd, rules)
    if found is None:
        return {}
    top, gitdir = found
    if gitdir is None:
        return {"is_git_repo": True}
    return {
        "is_git_repo": True,
        "git_branch": _branch(gitdir),
        "git_status": _status(top, gitdir, _common_dir(gitdir, rules)),
    }


def _common_dir(gitdir: Path, rules: ReadRules) -> Path:
    """Where a worktree's shared files are (``commondir``: config, ``info/exclude``),
    under the link rule; the git folder itself otherwise."""
    text = _small(gitdir / "commondir")
    if not text or not text.strip():
        return gitdir
    target = Path(text.strip())
    try:
        real = (target if target.is_absolute() else gitdir / target).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL character
        return gitdir
    return real if rules.follow_links or within_roots(real, rules) else gitdir


def _small(path: Path) -> str | None:
    """The text of a small regular file, None when absent, too large or unreadable."""
    try:
        raw, _ = read_capped(path, _SMALL)
    except OSError:
        return None
    return raw.decode("utf-8", errors="replace") if len(raw) <= _SMALL else None


def _find_repository(cwd: Path, rules: ReadRules) -> tuple[Path, Path | None] | None:
    """``(work tree top, git folder)`` for ``cwd``; the git folder None when refused."""
    for folder in (cwd, *cwd.parents):
        dotgit = folder / ".git"
        try:
            info = dotgit.lstat()
        except OSError:
            continue
        if _dubious(dotgit, folder):
            return None
        if stat.S_ISDIR(info.st_mode):
            return (folder, dotgit) if (dotgit / "HEAD").is_file() else None
        if stat.S_ISLNK(info.st_mode):
            real = allowed_path(dotgit, rules)
            return (folder, real if real is not None and real.is_dir() else None)
        if stat.S_ISREG(info.st_mode):
            return folder, _linked_gitdir(dotgit, rules)
        return None
    return None


def _dubious(*paths: Path) -> bool:
    """Whether one of ``paths`` (a ``.git``, its work tree, the folder a ``.git`` file
    names) belongs to another user: git refuses such a repository ("detected dubious
    ownership", CVE-2022-24765), and so do the git facts, with a warning."""
    for path in paths:
        owner = foreign_owner(path)
        if owner is not None:
            warn(
                f"{path}: git facts left out, it belongs to user id {owner}, not to you "
                "(git refuses such a repository too: 'dubious ownership')"
            )
            return True
    return False


def _linked_gitdir(dotgit: Path, rules: ReadRules) -> Path | None:
    """The folder a ``.git`` file names (``gitdir: PATH``), under the link rule."""
    text = _small(dotgit)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    target = target if target.is_absolute() else dotgit.parent / target
    try:
        real = target.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL character
        return None
    if not rules.follow_links and not within_roots(real, rules):
        warn(
            f"{dotgit}: git facts left out, it points to {real}, outside "
            f"{' and '.join(map(str, rules.roots))}; pass --follow-links to read it"
        )
        return None
    if _dubious(real):
        return None
    return real if (real / "HEAD").is_file() else None


def _branch(gitdir: Path) -> str:
    """The branch ``HEAD`` names, ``HEAD`` for a detached head, "" (warned) when what
    it holds is neither a valid ref name (:mod:`._refname`) nor an object id."""
    path = gitdir / "HEAD"
    head = (_small(path) or "").strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        problem = ref_problem(ref)
        if problem is None:
            return ref.removeprefix("refs/heads/")
        warn(f"{path}: git branch left out, {ref[:80]!r} is not a valid ref name: {problem}")
        return ""
    if len(head) in (40, 64) and all(char in string.hexdigits for char in head):
        return "HEAD"
    if head:
        warn(f"{path}: git branch left out, it holds neither a ref nor an object id")
    return ""


# -- the index


def _read_index(gitdir: Path, oid_size: int) -> list[_Entry] | None:
    """The stage-0 entries of ``gitdir/index`` (none for a repository without one)."""
    path = gitdir / "index"
    try:
        raw, size = read_capped(path, MAX_INDEX_BYTES)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if len(raw) > MAX_INDEX_BYTES:
        warn(f"{path}: git status left out, the index has {size} bytes")
        return None
    try:
        return _parse_index(raw, oid_size)
    except _TooLarge as exc:
        warn(f"{path}: git status left out, {exc}")
    except (ValueError, struct.error, IndexError):
        warn(f"{path}: git status left out, the index is not one this reader knows")
    return None


class _TooLarge(Exception):
    """An index with more entries than are read."""


def _oid_size(gitdir: Path) -> int:
    config = (_small(gitdir / "config") or "").lower().replace(" ", "")
    return 32 if "objectformat=sha256" in config else 20


def _parse_index(raw: bytes, oid_size: int) -> list[_Entry]:
    """Entries of an index file (versions 2, 3 and 4), unmerged and skip-worktree ones left out."""
    signature, version, count = struct.unpack_from(">4sII", raw, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise ValueError("not an index")
    if count > MAX_INDEX_ENTRIES:
        raise _TooLarge(f"the index has {count} entries, more than {MAX_INDEX_ENTRIES}")
    entries: list[_Entry] = []
    offset = 12
    previous = b""
    fixed = 40 + oid_size + 2
    for _ in range(count):
        start = offset
        _, _, mtime_s, mtime_ns, _, _, mode, _, _, size = struct.unpack_from(">10I", raw, offset)
        oid = raw[offset + 40 : offset + 40 + oid_size]
        (flags,) = struct.unpack_from(">H", raw, offset + 40 + oid_size)
        offset += fixed
        extended = 0
        if flags & 0x4000:
            (extended,) = struct.unpack_from(">H", raw, offset)
            offset += 2
        if version == 4:
            strip, offset = _varint(raw, offset)
            end = raw.index(b"\0", offset)
            if strip > len(previous):
                raise ValueError("bad prefix")
            name = previous[: len(previous) - strip] + raw[offset:end]
            offset = end + 1
        else:
            end = raw.index(b"\0", offset)
            name = raw[offset:end]
            offset = start + ((end - start + 8) // 8) * 8
        previous = name
        stage = (flags >> 12) & 3
        if stage == 0 and not extended & 0x4000:  # 0x4000: skip-worktree
            path = os.fsdecode(name)
            entries.append(_Entry(path, mode, oid, size, (mtime_s, mtime_ns)))
    return entries


def _varint(raw: bytes, offset: int) -> tuple[int, int]:
    """Git's offset varint (index v4 path prefixes) at ``offset``; returns (value, next offset)."""
    byte = raw[offset]
    value = byte & 0x7F
    offset += 1
    while byte & 0x80:
        byte = raw[offset]
        value = ((value + 1) << 7) | (byte & 0x7F)
        offset += 1
    return value, offset


# -- status


def _safe_name(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and all(p not in ("", ".", "..") for p in parts)


class _Hasher:
    """Content checks within a total byte budget."""

    def __init__(self, oid_size: int) -> None:
        self.left = MAX_HASH_BYTES
        self.algorithm = "sha256" if oid_size == 32 else "sha1"

    def same(self, data: bytes, oid: bytes) -> bool:
        digest = hashlib.new(self.algorithm, b"blob %d\0" % len(data))
        digest.update(data)
        return digest.digest() == oid

    def file_matches(self, path: Path, entry: _Entry) -> bool:
        if entry.size > self.left:
            return False
        try:
            data, _ = read_capped(path, entry.size)
        except OSError:
            return False
        self.left -= len(data)
        return len(data) == entry.size and self.same(data, entry.oid)


class _RealFolders:
    """Which folders of the work tree are real folders, not links (remembered per folder).

    Git never looks at a tracked file through a link in its leading path (``lnk/id_rsa``
    with ``lnk -> ~/.ssh`` is gone, `` D``); neither does this reader, so a work tree's
    links cannot make it hash files outside the project and tell whether they match."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.known: dict[str, bool] = {"": True}

    def real(self, folder: str) -> bool:
        """Whether ``folder`` (relative, ``/``-separated) and each folder above it is a
        real folder of the work tree.

        Folders not yet known are looked at from the top down, each once, in a loop
        (paths may be thousands of folders deep), so the cost is one ``lstat`` per
        folder of the tree, whatever the index names."""
        chain: list[str] = []
        current = folder
        while current not in self.known:
            chain.append(current)
            current = current.rpartition("/")[0]
        answer = self.known[current]
        for name in reversed(chain):
            if answer:
                try:
                    answer = stat.S_ISDIR((self.top / name).lstat().st_mode)
                except OSError:
                    answer = False
            self.known[name] = answer
        return answer


def _changed(top: Path, entry: _Entry, hasher: _Hasher, folders: _RealFolders) -> str | None:
    """`` M``, `` D`` or None for one tracked file (`` D`` behind a link, as git says)."""
    path = top / entry.path
    try:
        info = path.lstat()
    except FileNotFoundError:
        return " D"
    except OSError:
        return None
    if not folders.real(entry.path.rpartition("/")[0]):
        return " D"
    kind = entry.mode & 0o170000
    if kind in (0o160000, 0o040000):  # a submodule, or a sparse index's folder entry
        return None
    if kind == 0o120000:
        if not stat.S_ISLNK(info.st_mode):
            return " M"
        try:
            target = os.fsencode(os.readlink(path))
        except OSError:
            return None
        return None if hasher.same(target, entry.oid) else " M"
    if not stat.S_ISREG(info.st_mode):
        return " M"
    if info.st_size != entry.size or (info.st_mode & 0o100) != (entry.mode & 0o100):
        return " M"
    if (int(info.st_mtime), info.st_mtime_ns % 1_000_000_000) == entry.mtime:
        return None
    return None if hasher.file_matches(path, entry) else " M"


def _status(top: Path, gitdir: Path, common: Path) -> str:
    entries = _read_index(gitdir, _oid_size(common))
    if entries is None:
        return ""
    hasher = _Hasher(_oid_size(common))
    folders = _RealFolders(top)
    lines: list[str] = []
    tracked: set[str] = set()
    for entry in sorted(entries, key=lambda e: e.path):
        if not _safe_name(entry.path) or entry.path.split("/")[0] == ".git":
            continue
        tracked.add(entry.path)
        change = _changed(top, entry, hasher, folders)
        if change is not None:
            lines.append(f"{change} {_quoted(entry.path)}")
    untracked = _Untracked(top, common, tracked)
    lines.extend(f"?? {_quoted(name)}" for name in sorted(untracked.names()))
    if untracked.costly:
        warn(
            f"{top}: git status lists untracked files only until its ignore patterns "
            f"(.gitignore, .git/info/exclude) have cost {MAX_IGNORE_STEPS} matching steps; "
            "the rest are left out"
        )
        lines.append(
            f"[... more untracked files: stopped after {MAX_IGNORE_STEPS} steps "
            "of matching ignore patterns]"
        )
    elif untracked.stopped:
        lines.append(f"[... more untracked files: stopped after {MAX_UNTRACKED_ENTRIES} entries]")
    elif untracked.too_deep:
        lines.append(
            f"[... more untracked files: folders deeper than {MAX_FOLDER_DEPTH} not looked into]"
        )
    if len(lines) > MAX_STATUS_LINES:
        more = len(lines) - MAX_STATUS_LINES
        lines = [*lines[:MAX_STATUS_LINES], f"[... {more} more lines]"]
    return "\n".join(lines)


_ESCAPES: Final = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}


def _quoted(path: str) -> str:
    """``path`` as git's short status writes it: quoted, with C escapes, when it holds
    a space, a control character, a quote, a backslash or a byte past ASCII."""
    raw = os.fsencode(path)
    if all(0x20 < byte < 0x7F and byte not in b'"\\' for byte in raw):
        return path
    out = []
    for byte in raw:
        if byte in _ESCAPES:
            out.append(_ESCAPES[byte])
        elif byte in b'"\\':
            out.append("\\" + chr(byte))
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


class _Untracked:
    """Untracked, not ignored files and folders, as ``git status`` lists them."""

    def __init__(self, top: Path, common: Path, tracked: set[str]) -> None:
        self.top = top
        self.tracked = tracked
        self.in_order = sorted(tracked)
        self.ignores = Ignores.root(common)
        self.seen = 0
        self.stopped = False
        self.too_deep = False
        self.costly = False

    def _ignored(self, ignores: Ignores, name: str, is_dir: bool) -> bool:
        """Whether ``name`` is ignored; once the matching budget is spent, every name
        is (and the walk stops), so a hostile ``.gitignore`` cannot stall the status."""
        if self.costly:
            return True
        try:
            return ignores.ignored(name, is_dir)
        except GlobBudgetError:
            self.costly = self.stopped = True
            return True

    def _scan(self, folder: Path) -> list[os.DirEntry[str]]:
        if self.stopped:
            return []
        room = MAX_UNTRACKED_ENTRIES - self.seen
        try:
            with os.scandir(folder) as found:
                entries = list(itertools.islice(found, room + 1))
        except OSError:
            return []
        self.seen += len(entries)
        if self.seen > MAX_UNTRACKED_ENTRIES:
            self.stopped = True
            return []
        return sorted(entries, key=lambda e: e.name)

    def names(self, folder: str = "", ignores: Ignores | None = None) -> Iterator[str]:
        """Untracked names under ``folder`` (relative, ``/``-separated; folders end in ``/``)."""
        if folder.count("/") >= MAX_FOLDER_DEPTH:
            self.too_deep = True  # not `stopped`: folders beside it are still listed
            return
        base = self.top / folder if folder else self.top
        ignores = (ignores or self.ignores).entering(base, folder)
        for entry in self._scan(base):
            name = f"{folder}/{entry.name}" if folder else entry.name
            if entry.name == ".git" or name in self.tracked:
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if self._ignored(ignores, name, is_dir):
                continue
            if not is_dir:
                yield name
            elif self._holds_tracked(name):
                yield from self.names(name, ignores)
            elif self._has_file(name, ignores):
                yield f"{name}/"

    def _holds_tracked(self, folder: str) -> bool:
        """Whether a tracked file lies under ``folder``: one search in the sorted paths
        (every folder of every tracked path, listed in advance, cost the square of
        a path's depth: an index of deep paths took a minute)."""
        prefix = folder + "/"
        index = bisect.bisect_left(self.in_order, prefix)
        return index < len(self.in_order) and self.in_order[index].startswith(prefix)

    def _has_file(self, folder: str, ignores: Ignores) -> bool:
        """Whether an untracked folder holds a file that is not ignored (or a repository)."""
        if folder.count("/") >= MAX_FOLDER_DEPTH:
            return True  # deeper than looked into: counted as holding something
        base = self.top / folder
        inner = ignores.entering(base, folder)
        for entry in self._scan(base):
            name = f"{folder}/{entry.name}"
            is_dir = entry.is_dir(follow_symlinks=False)
            if entry.name == ".git" or self._ignored(inner, name, is_dir):
                if entry.name == ".git":
                    return True
                continue
            if not is_dir or self._has_file(name, inner):
                return True
        return False
