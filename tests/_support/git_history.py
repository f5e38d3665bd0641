"""Git histories built in a temporary folder with dulwich, object by object.

Faster than running git once per commit: objects are kept until :meth:`History.save`
writes them as one pack, so that a history of a thousand tags takes a second
or two to build. The repository is an ordinary one that git reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tag, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

__all__ = ["History"]

Files = Mapping[str, "str | bytes | tuple[int, bytes]"]
"""path -> text, or (mode, content): ``(0o120000, b"target")`` is a symbolic link."""


class History:
    """A repository at ``path``: commits of whole file sets, branches and tags; call
    :meth:`save` before reading it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.repo = Repo.init(str(path), mkdir=True)
        self._time = 1_700_000_000
        self._objects: dict[ObjectID, ShaFile] = {}
        self._refs: dict[Ref, ObjectID] = {}
        self.commits: dict[str, str] = {}  # tag -> the commit it names

    def save(self) -> Path:
        """Write the objects made so far (one pack) and the refs (``packed-refs``);
        the repository's path."""
        if self._objects:
            self.repo.object_store.add_objects([(o, None) for o in self._objects.values()])
            self._objects.clear()
        if self._refs:
            self.repo.refs.add_packed_refs(self._refs)
            self._refs.clear()
        self.repo.close()
        return self.path

    def _add(self, item: ShaFile) -> None:
        self._objects.setdefault(item.id, item)

    def commit(self, files: Files, parent: str | None = None, message: str = "c") -> str:
        """A commit holding exactly ``files`` (path -> text), after ``parent``."""
        commit = Commit()
        commit.tree = self._tree(files)
        commit.parents = [ObjectID(parent.encode())] if parent else []
        commit.author = commit.committer = b"Test <test@example.com>"
        self._time += 60
        commit.author_time = commit.commit_time = self._time
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = message.encode() + b"\n"
        self._add(commit)
        return commit.id.decode()

    def branch(self, name: str, commit: str) -> None:
        """Point branch ``name`` (and HEAD, for ``main``) at ``commit``."""
        self._refs[Ref(f"refs/heads/{name}".encode())] = ObjectID(commit.encode())

    def tag(self, name: str, commit: str, *, annotated: bool = False) -> None:
        """Tag ``commit`` as ``name`` (a lightweight tag, or an annotated one)."""
        self.commits[name] = commit
        target = ObjectID(commit.encode())
        if annotated:
            tag = Tag()
            tag.name = name.encode()
            tag.object = (Commit, target)
            tag.tagger = b"Test <test@example.com>"
            tag.tag_time = self._time
            tag.tag_timezone = 0
            tag.message = b"release\n"
            self._add(tag)
            target = tag.id
        self._refs[Ref(f"refs/tags/{name}".encode())] = target

    def _tree(self, files: Files) -> ObjectID:
        folders: dict[str, dict[str, str | bytes | tuple[int, bytes]]] = {}
        here: dict[str, str | bytes | tuple[int, bytes]] = {}
        for path, text in files.items():
            head, _, rest = path.partition("/")
            if rest:
                folders.setdefault(head, {})[rest] = text
            else:
                here[path] = text
        tree = Tree()
        for name, text in here.items():
            mode, content = text if isinstance(text, tuple) else (0o100644, text)
            blob = Blob.from_string(content.encode() if isinstance(content, str) else content)
            self._add(blob)
            tree.add(name.encode(), mode, blob.id)
        for name, inner in folders.items():
            tree.add(name.encode(), 0o040000, self._tree(inner))
        self._add(tree)
        return tree.id

    def raw_tree(self, entries: list[tuple[bytes, int, bytes]]) -> ObjectID:
        """A tree of exactly ``entries`` (name, mode, object id), in that order, however
        odd the names: a forged tree git itself would not write."""
        tree = Tree()
        raw = b"".join(
            b"%o %s\x00%s" % (mode, name, bytes.fromhex(oid.decode()))
            for name, mode, oid in entries
        )
        tree.set_raw_string(raw)
        self._add(tree)
        return tree.id

    def blob(self, content: bytes) -> ObjectID:
        """The id of a blob of ``content``."""
        blob = Blob.from_string(content)
        self._add(blob)
        return blob.id

    def commit_tree(self, tree: ObjectID) -> str:
        """A commit of tree ``tree``, without parents."""
        commit = Commit()
        commit.tree = tree
        commit.parents = []
        commit.author = commit.committer = b"Test <test@example.com>"
        commit.author_time = commit.commit_time = self._time
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"forged\n"
        self._add(commit)
        return commit.id.decode()

    def ref(self, name: str, oid: bytes) -> None:
        """Point ``refs/tags/<name>`` at any object ``oid``."""
        self._refs[Ref(f"refs/tags/{name}".encode())] = ObjectID(oid)
