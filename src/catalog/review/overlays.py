"""Which versions change only through their base: an overlay follows its base catalog.

An overlay (``[catalog] base = "NAME@SPEC"``) takes parts from its base, so a
change to the base alone may change every prompt the overlay assembles while
its own files stay as they were. :class:`Bases` tells, for a version whose own
files did not change, whether its base (directly or down a chain of bases)
changed: the base's spec resolves to another version (or source) on the two
sides, or it resolves to a version of a catalog of the reviewed folder whose
files changed. It reads manifests only, each at most once, and resolves each
spec at most once a side; a cycle of bases is followed once round and stops.
A base outside the reviewed folder (installed or bundled) is the same on both
sides: only where its own base leads back into the folder can it differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from catalog.errors import CatalogError
from catalog.io.catalog_path import CatalogPath, VersionRef, parse_ref
from catalog.io.loader import read_manifest

__all__ = ["BaseChange", "Bases", "Files", "own_changed", "shared_changed"]

Files = tuple[dict[str, str], dict[str, str]]
"""A catalog folder's files on each side: path to content id."""

_Key = tuple[str, str, str]  # where (the reviewed folder, or a source's label), name, version
_Pair = tuple[VersionRef | None, VersionRef | None]


@dataclass(frozen=True, slots=True)
class BaseChange:
    """Why a version whose own files did not change is reviewed: its ``base`` (``NAME
    OLD -> NEW``, or ``NAME VERSION`` when that version's files changed), and, ``depth``
    bases down (1: the base itself), the base that ``changed``."""

    base: str
    changed: str
    depth: int = 1

    @property
    def sentence(self) -> str:
        """``through its base lib 1.0.0 -> 2.0.0`` (and, down a chain, the base that
        changed and how far down it is)."""
        if self.depth == 1:
            return f"through its base {self.base}"
        if self.depth == 2:
            return f"through its base {self.base}, whose base {self.changed} changed"
        return f"through its base {self.base}, down to {self.changed} ({self.depth} bases down)"


def own_changed(files: Files, old: VersionRef, new: VersionRef) -> bool:
    """Whether the files of version folder ``old`` (before) differ from those of ``new``."""
    return _own(files[0], old) != _own(files[1], new)


def _own(files: dict[str, str], ref: VersionRef) -> dict[str, str]:
    prefix = f"{ref.where.name}/"
    return {path: key for path, key in files.items() if path.startswith(prefix)}


def shared_changed(files: Files, refs: list[VersionRef]) -> bool:
    """Whether a file outside the version folders (shared bodies, parts files) changed or
    went: one that only came cannot change a version that loaded without it."""
    folders = tuple(f"{ref.where.name}/" for ref in refs)
    old, new = files
    return any(not path.startswith(folders) and new.get(path) != key for path, key in old.items())


@dataclass
class Bases:
    """The bases of the versions of one reviewed folder, followed on both sides.

    ``paths`` are the two sides' catalog paths (the reviewed folder first);
    ``changed`` the files of every catalog of the folder whose files differ."""

    paths: tuple[CatalogPath, CatalogPath]
    changed: Mapping[str, Files]
    _through: dict[_Key, BaseChange | None] = field(default_factory=dict)
    _found: dict[tuple[int, str], VersionRef | None] = field(default_factory=dict)
    _shared: dict[str, bool] = field(default_factory=dict)

    def change(self, old: VersionRef, new: VersionRef) -> BaseChange | None:
        """How the version ``old``/``new`` (whose own files are the same on both sides)
        changes through its base; None when no base of its chain changed."""
        pair: _Pair = (old, new)
        walk: list[tuple[_Key, str]] = []  # each version of the chain, and its base's label
        on_walk: set[_Key] = set()
        below: BaseChange | None = None
        while pair[0] is not None and pair[1] is not None:
            key = self._key(pair[1])
            if key in self._through or key in on_walk:
                below = self._through.get(key)  # a cycle: no base of it changed (yet)
                break
            spec = self._base_of(pair[1])
            if spec is None:
                self._through[key] = None
                break
            base = (self._find(0, spec), self._find(1, spec))
            label = _label(spec, base)
            if self._differs(base):
                below = self._through[key] = BaseChange(label, label)
                break
            walk.append((key, label))
            on_walk.add(key)
            pair = base
        for key, label in reversed(walk):
            if below is not None:
                below = BaseChange(label, below.changed, below.depth + 1)
            self._through[key] = below
        return self._through.get(self._key(new))

    def _key(self, ref: VersionRef) -> _Key:
        return (self._where(1, ref), ref.name, str(ref.version))

    def _where(self, side: int, ref: VersionRef) -> str:
        """``""`` for the reviewed folder (whose label names the side), else the source."""
        return "" if ref.source == self.paths[side].sources[0].label else ref.source

    def _base_of(self, ref: VersionRef) -> str | None:
        """The ``base`` its manifest names (None for a manifest that does not read: it
        fails alike on both sides)."""
        try:
            return read_manifest(ref.where).manifest.catalog.base
        except CatalogError:
            return None

    def _find(self, side: int, spec: str) -> VersionRef | None:
        """The version ``spec`` resolves to on ``side`` (None when it resolves to none:
        loading says why)."""
        if (side, spec) not in self._found:
            try:
                found: VersionRef | None = self.paths[side].find(*parse_ref(spec))
            except CatalogError:
                found = None
            self._found[side, spec] = found
        return self._found[side, spec]

    def _differs(self, pair: _Pair) -> bool:
        """Whether the base resolves differently on the two sides, or to a version of a
        changed catalog of the reviewed folder that may differ."""
        old, new = pair
        if old is None or new is None:
            return old is not new
        if (self._where(0, old), old.version) != (self._where(1, new), new.version):
            return True
        files = self.changed.get(new.name)
        if self._where(1, new) or files is None:
            return False
        return self._shared_changed(new.name, files) or own_changed(files, old, new)

    def _shared_changed(self, name: str, files: Files) -> bool:
        if name not in self._shared:
            try:
                refs = [*self.paths[0].versions(name), *self.paths[1].versions(name)]
            except CatalogError:  # two folders of one version: reviewed (an error) as such
                self._shared[name] = True
            else:
                self._shared[name] = shared_changed(files, refs)
        return self._shared[name]


def _label(spec: str, pair: _Pair) -> str:
    """``NAME OLD -> NEW`` (``none`` on a side where ``spec`` resolves to no version), or
    ``NAME VERSION`` when it is one version on both sides."""
    name = spec.partition("@")[0].strip()
    old, new = (str(ref.version) if ref else "none" for ref in pair)
    return f"{name} {new}" if old == new else f"{name} {old} -> {new}"
