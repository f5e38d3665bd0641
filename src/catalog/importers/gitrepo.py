"""Reading a repository's history and objects with the ``git`` command.

One ``git log`` lists the commits; one long-running ``git cat-file --batch``
then serves every tree and blob, so reading hundreds of releases costs two
processes, not one per file or per commit. Objects are addressed by git's own
ids, which lets an importer parse a file once however many commits contain it.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from catalog.errors import ImporterError

__all__ = ["Commit", "GitRepo", "TreeEntry"]


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit on the first-parent line of history: its id and subject line."""

    oid: str
    subject: str


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One entry of a tree object."""

    mode: str
    name: str
    oid: str

    @property
    def is_file(self) -> bool:
        """A regular file (not a folder, a symbolic link or a submodule)."""
        return self.mode.startswith("100")


class GitRepo:
    """A local git repository, read through the ``git`` command (a context manager)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        if not self.path.is_dir():
            raise ImporterError(
                "the git repository folder does not exist", file=str(self.path), hint="check --git"
            )
        self._run("rev-parse", "--git-dir")
        self._batch: subprocess.Popen[bytes] | None = None

    def _run(self, *args: str, may_fail: bool = False) -> str | None:
        """The output of ``git ARGS``; on failure None if ``may_fail``, else an error."""
        try:
            done = subprocess.run(
                ["git", "-C", str(self.path), *args], capture_output=True, check=False
            )
        except FileNotFoundError:
            raise ImporterError(
                "the git command is not installed", hint="install git to import from history"
            ) from None
        if done.returncode != 0:
            if may_fail:
                return None
            message = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
            raise ImporterError(
                f"git {args[0]} failed: {message}",
                file=str(self.path),
                hint="give a clone of the repository (a folder holding .git)",
            )
        return done.stdout.decode("utf-8", "replace")

    def log(self, rev: str = "HEAD") -> list[Commit]:
        """The first-parent commits leading to ``rev``, oldest first."""
        if (
            self._run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", may_fail=True)
            is None
        ):
            raise ImporterError(
                f"{rev} is not a commit here"
                + (": the repository has no commits yet" if rev == "HEAD" else ""),
                file=str(self.path),
                hint="give a clone of the repository with its history",
            )
        out = self._run("log", "--first-parent", "--reverse", "--format=%H%x00%s", rev, "--")
        commits = []
        for line in (out or "").splitlines():
            oid, _, subject = line.partition("\0")
            commits.append(Commit(oid, subject))
        return commits

    def __enter__(self) -> Self:
        self._batch = subprocess.Popen(
            ["git", "-C", str(self.path), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._batch is not None:
            _stream(self._batch.stdin).close()
            self._batch.wait()
            _stream(self._batch.stdout).close()
            self._batch = None

    def read(self, spec: str) -> tuple[str, str, bytes] | None:
        """``(oid, type, content)`` of an object (``"<commit>:<path>"``, an id...), or None."""
        if self._batch is None:
            raise RuntimeError("use GitRepo as a context manager to read objects")
        stdin, stdout = _stream(self._batch.stdin), _stream(self._batch.stdout)
        stdin.write(spec.encode("utf-8") + b"\n")
        stdin.flush()
        header = stdout.readline().decode("utf-8", "replace").split()
        if len(header) != 3:
            if header[-1:] in (["missing"], ["ambiguous"]):
                return None
            raise ImporterError(f"git cat-file gave an unexpected answer for {spec!r}: {header}")
        oid, kind, size = header
        content = stdout.read(int(size))
        stdout.read(1)  # the newline after each object
        return oid, kind, content

    def tree(self, spec: str) -> list[TreeEntry] | None:
        """The entries of the tree ``spec`` (``"<commit>:<folder>"``), or None if absent."""
        found = self.read(spec)
        if found is None or found[1] != "tree":
            return None
        oid, _, raw = found
        width = len(oid) // 2  # 20 bytes for SHA-1 repositories, 32 for SHA-256
        entries = []
        position = 0
        while position < len(raw):
            space = raw.index(b" ", position)
            nul = raw.index(b"\0", space)
            mode = raw[position:space].decode("ascii")
            name = raw[space + 1 : nul].decode("utf-8", "surrogateescape")
            entries.append(TreeEntry(mode, name, raw[nul + 1 : nul + 1 + width].hex()))
            position = nul + 1 + width
        return entries


def _stream(stream: IO[bytes] | None) -> IO[bytes]:
    if stream is None:  # pragma: no cover - Popen was given PIPE
        raise RuntimeError("git cat-file has no pipe")
    return stream
