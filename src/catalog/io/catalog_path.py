"""Where catalogs live, and choosing a version.

Sources are searched in this order, and the first one that has a folder
``name`` provides all of that catalog's versions, as ``PATH`` does for
commands (a version only a later source has is hidden): what a user names
explicitly shadows what is installed under the same name (a bundled catalog
copied into a ``--path`` folder and edited there is the one used, even where
the bundle has a newer version of it):

1. the folders given explicitly (``--path DIR``, ``paths=``), in order,
2. the folders in ``CATALOG_PATH`` (``os.pathsep``-separated), in order,
3. packages registered under the entry-point group ``catalog.catalogs``: the
   entry point's value names a package whose resources hold
   ``<name>/<version>/catalog.toml``,
4. the catalogs bundled in this package (``importlib.resources``).

Every source has the same layout: ``<root>/<name>/<version>/catalog.toml``.
Choosing a version lists folder names only; loading reads just the chosen
version, so it costs the same however many versions are installed.

A catalog name is a name, never a path: :func:`check_name` is the one rule,
applied to every name given to this module (``NAME@SPEC``, an overlay's
``base``, a lock file's catalog), before anything on disk is looked at, so
a refused name gets the same answer whatever exists at that path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING, Final

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from catalog.cache import BoundedCache
from catalog.engine.catalog import Catalog
from catalog.errors import BadReferenceError, CatalogError, ManifestError, NotFoundError
from catalog.io.loader import (
    MANIFEST_NAME,
    VersionDir,
    VersionManifest,
    load_version,
    merged_manifest,
    read_manifest,
    version_folder,
)
from catalog.io.textfile import NotRegularFileError, read_capped
from catalog.schema.manifest import NAME_RULE, Manifest, is_catalog_name
from catalog.text.suggest import did_you_mean

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "ENTRY_POINT_GROUP",
    "ENV_VAR",
    "CatalogPath",
    "CatalogSource",
    "VersionRef",
    "check_name",
    "is_folder_ref",
    "load_dir",
    "parse_ref",
    "parse_spec",
]

ENTRY_POINT_GROUP = "catalog.catalogs"
ENV_VAR = "CATALOG_PATH"
_MAX_SPEC_LENGTH = 500
_ENTRY_POINTS_BYTES = 1024 * 1024  # largest entry_points.txt read (they hold a few lines)


def check_name(name: str) -> str:
    """``name`` when it is a catalog name; :class:`NotFoundError` otherwise.

    The one rule for every name the package is given (library, command line,
    server, lock files, an overlay's ``base``): lowercase letters, digits,
    ``.``, ``_`` and ``-``, starting with a letter or a digit, at most
    :data:`~catalog.schema.manifest.MAX_NAME_LENGTH` characters. It is checked before any folder is
    looked at, so a path (``../x``, ``/etc``) is refused with the same words
    whether or not something exists there.
    """
    if is_catalog_name(name):
        return name
    raise BadReferenceError(
        f"{_shown(name)!r} is not a catalog name ({NAME_RULE})", hint=_name_hint(name)
    )


_SPEC_START = "=<>!~"
"""The characters a PEP 440 specifier's operator is made of."""


def _name_hint(name: str) -> str:
    """What was likely meant by ``name``, which is not a catalog name: a version written
    without its ``@`` (``mybot==1.0.0``), upper case (``MyBot``), else a folder."""
    start = next((i for i, c in enumerate(name) if c in _SPEC_START), None)
    if start and is_catalog_name(name[:start].strip()):
        ref = f"{name[:start].strip()}@{name[start:].strip()}"
        return f"a version follows an '@': write {_shown(ref)!r}"
    if is_catalog_name(name.lower()):
        return f"catalog names are lower case: did you mean {name.lower()!r}?"
    return f"a name never names a folder: add folders of catalogs with --path, {ENV_VAR} or paths="


def _shown(text: str) -> str:
    """``text`` cut for a message: a refused name may be any length."""
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True, slots=True)
class CatalogSource:
    """One root folder of catalogs and where it came from."""

    label: str
    root: Traversable


@dataclass(frozen=True, slots=True)
class VersionRef:
    """A version found in a source, not loaded yet."""

    name: str
    version: Version
    where: VersionDir
    source: str
    catalog_path: CatalogPath | None = field(default=None, repr=False, compare=False)

    def manifest(self) -> Manifest:
        """Read this version's manifest only (with the records of its shared parts
        files, no bodies)."""
        return merged_manifest(read_manifest(self.where))

    def load(self, *, check_hashes: bool = True) -> Catalog:
        """Read, verify and compile this version (an overlay's base comes from the same
        catalog path).

        ``check_hashes=False``: see :func:`~catalog.io.loader.load_version`.
        """
        return (self.catalog_path or CatalogPath()).load_manifest(
            read_manifest(self.where), chain=(self.label,), check_hashes=check_hashes
        )

    @property
    def label(self) -> str:
        """``NAME@VERSION``."""
        return f"{self.name}@{self.version}"


def parse_spec(spec: str | SpecifierSet | None) -> SpecifierSet:
    """A PEP 440 specifier; a bare version ``1.0.0`` means ``==1.0.0``."""
    if spec is None:
        return SpecifierSet()
    if isinstance(spec, SpecifierSet):
        return spec
    if len(spec) > _MAX_SPEC_LENGTH:
        raise BadReferenceError(
            f"the version specifier is {len(spec)} characters long, more than {_MAX_SPEC_LENGTH}",
            hint="write e.g. 1.0.0, ==1.1.0, ~=1.1 or >=1,<2",
        )
    text = spec.strip()
    if text and text[0].isdigit():
        text = f"=={text}"
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise BadReferenceError(
            f"{spec!r} is not a PEP 440 version specifier",
            hint="write e.g. 1.0.0, ==1.1.0, ~=1.1 or >=1,<2",
        ) from None


def is_folder_ref(ref: str) -> bool:
    """Whether a command-line reference names a version folder rather than ``NAME@SPEC``.

    A path (with a separator, or starting with ``.``) or a folder here that
    holds a manifest; catalog names never contain a slash.
    """
    if "/" in ref or os.sep in ref or ref.startswith("."):
        return True
    return os.path.isfile(os.path.join(ref, MANIFEST_NAME))  # False for a name too long


def parse_ref(ref: str) -> tuple[str, str | None]:
    """Split ``NAME@SPEC`` into the name, checked by :func:`check_name`, and the
    specifier (None when absent)."""
    name, sep, spec = ref.partition("@")
    if not name:
        raise BadReferenceError(f"{_shown(ref)!r} names no catalog", hint="write NAME or NAME@SPEC")
    checked = check_name(name)
    if sep and not spec.strip():
        raise BadReferenceError(
            f"{_shown(ref)!r} has no version after its '@'",
            hint=f"write {checked!r} for the newest version, or e.g. '{checked}@1.0.0' or "
            f"'{checked}@~=1.1'",
        )
    return checked, (spec if sep else None)


# The installed entry points, found once a process (until :func:`catalog.clear_caches`).
_ENTRY_POINTS: Final[BoundedCache[str, tuple[CatalogSource, ...]]] = BoundedCache(1)


def _entry_point_sources() -> tuple[CatalogSource, ...]:
    """The catalog sources installed distributions declare, found once (see above)."""
    found = _ENTRY_POINTS.get(ENTRY_POINT_GROUP)
    if found is None:
        found = _find_entry_point_sources()
        _ENTRY_POINTS.put(ENTRY_POINT_GROUP, found)
    return found


def _find_entry_point_sources() -> tuple[CatalogSource, ...]:
    if not _may_have_entry_points():
        return ()
    # Costly to import (about as long as loading a catalog): only when one may be declared.
    from importlib import metadata, resources

    found = []
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            root = resources.files(ep.value)
        except (ImportError, TypeError, ValueError) as exc:
            raise CatalogError(
                f"entry point {ep.name!r} in group {ENTRY_POINT_GROUP!r} names "
                f"{ep.value!r}, which cannot be imported: {exc}",
                hint="its value must be an importable package holding <name>/<version>/ folders",
            ) from None
        found.append(CatalogSource(f"entry point {ep.name} ({ep.value})", root))
    return tuple(found)


def _may_have_entry_points() -> bool:
    """Whether an installed distribution may declare :data:`ENTRY_POINT_GROUP`.

    Looks where :mod:`importlib.metadata` would, cheaply: the
    ``entry_points.txt`` of each ``*.dist-info`` and ``*.egg-info`` folder on
    ``sys.path`` (and an ``.egg``'s ``EGG-INFO``). When unsure, it answers
    yes: a zip file on the path, or another finder of distributions.

    Only regular files are read, at most 1 MiB each, without blocking: a FIFO
    or a device named ``entry_points.txt`` (in the current folder, say, which
    ``python -m`` puts on ``sys.path``) is passed over. :mod:`importlib.metadata`
    would open such a file and wait for ever, so when the group is declared
    somewhere and such a file is on the path too, this is an error naming it.
    """
    # Another finder of distributions, or a zip on the path: importlib.metadata must be
    # asked. The scan goes on all the same, for files it must not be sent to.
    declared = any(
        finder is not PathFinder and hasattr(finder, "find_distributions")
        for finder in sys.meta_path
    )
    group = ENTRY_POINT_GROUP.encode()
    unsafe: str | None = None
    for entry in sys.path:
        if not isinstance(entry, str):
            declared = True
            continue
        try:
            children = os.listdir(entry or ".")
        except (FileNotFoundError, PermissionError):
            continue
        except OSError:  # a file: a zip of packages, read only by importlib.metadata
            declared = True
            continue
        egg = entry.lower().endswith(".egg")
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")) or (egg and low == "egg-info"):
                path = os.path.join(entry or ".", child, "entry_points.txt")
                try:
                    raw, size = read_capped(path, _ENTRY_POINTS_BYTES)
                except NotRegularFileError:
                    # importlib.metadata passes over a folder; it would block on the rest.
                    unsafe = unsafe or (None if os.path.isdir(path) else path)
                    continue
                except OSError:
                    continue
                if size > _ENTRY_POINTS_BYTES:
                    unsafe = unsafe or path
                declared = declared or group in raw
    if declared and unsafe is not None:
        raise CatalogError(
            "this entry_points.txt is not a regular file of at most 1 MiB: reading the "
            f"entry points of group {ENTRY_POINT_GROUP!r} would block or never end",
            file=unsafe,
            hint="remove it (or the folder holding it from sys.path: run the command "
            "from another folder)",
        )
    return declared


def _bundled_source() -> CatalogSource:
    folder = Path(__file__).parent / "parts"
    if folder.is_dir():  # what importlib.resources gives for a package on disk
        return CatalogSource("bundled", folder)
    # Costly to import: only for a package that is not on disk (a zip).
    from importlib import resources

    return CatalogSource("bundled", resources.files("catalog").joinpath("parts"))


class CatalogPath:
    """The catalogs visible from the given folders, entry points and bundle."""

    def __init__(
        self,
        paths: Iterable[str | Path] = (),
        *,
        use_env: bool = True,
        use_entry_points: bool = True,
        use_bundled: bool = True,
    ) -> None:
        folders: list[str | Path] = list(paths)
        if use_env:
            folders.extend(p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p)
        sources = [CatalogSource(f"path {path}", path) for path in map(_folder, folders)]
        if use_entry_points:
            sources.extend(_entry_point_sources())
        if use_bundled:
            sources.append(_bundled_source())
        self.sources: tuple[CatalogSource, ...] = tuple(sources)

    def names(self) -> list[str]:
        """Every catalog name, sorted: the folders of the sources named by the rule of
        :func:`check_name` (any other folder is not a catalog)."""
        found: set[str] = set()
        for source in self.sources:
            found.update(filter(is_catalog_name, _child_names(source.root)))
        return sorted(found)

    def versions(self, name: str) -> list[VersionRef]:
        """Every version of ``name`` that has a manifest, oldest first; reads no manifest."""
        return [ref for ref in self._candidates(name) if _has_manifest(ref)]

    def _candidates(self, name: str) -> list[VersionRef]:
        """Folders of ``name`` named like a version, oldest first; looks at names only,
        but for two folders of one version (``1.0`` and ``1.0.0``), an error when both
        hold a manifest (see :func:`_version_folders`)."""
        source = self.source_of(name)
        if source is None:
            return []
        folder = source.root.joinpath(name)
        refs: dict[Version, VersionRef] = {}
        for child, version in _version_folders(folder, _child_names(folder)):
            where = VersionDir(folder, child, source.label)
            refs[version] = VersionRef(name, version, where, source.label, self)
        return [refs[v] for v in sorted(refs)]

    def source_of(self, name: str) -> CatalogSource | None:
        """The first source that has a catalog folder ``name``: the one that provides it.

        ``name`` must be a catalog name (:func:`check_name`)."""
        check_name(name)
        return next((s for s in self.sources if s.root.joinpath(name).is_dir()), None)

    def shadowed(self, name: str) -> list[CatalogSource]:
        """The later sources that also have ``name`` and are hidden by :meth:`source_of`."""
        check_name(name)
        having = [s for s in self.sources if s.root.joinpath(name).is_dir()]
        return having[1:]

    def find(self, name: str, spec: str | SpecifierSet | None = None) -> VersionRef:
        """The newest version of ``name`` that satisfies ``spec``.

        Only the chosen folder is checked for a manifest, so finding a version
        costs the same however many versions are installed (a folder without
        a manifest is passed over for the next newest).
        """
        refs = self._candidates(name)
        by_version = {ref.version: ref for ref in refs}
        # An empty specifier takes final releases, or pre-releases when there is nothing else.
        specifier = parse_spec(spec)
        chosen = sorted(specifier.filter(by_version, prereleases=None), reverse=True)
        for version in chosen:
            if _has_manifest(by_version[version]):
                return by_version[version]
        available = [ref for ref in refs if _has_manifest(ref)]
        if not available and refs:
            folders = ", ".join(ref.where.name for ref in refs[:5])
            raise NotFoundError(
                f"catalog {name!r} has no version: none of its version folders ({folders}"
                f"{', ...' if len(refs) > 5 else ''}) holds a {MANIFEST_NAME} file",
                file=str(refs[0].where.catalog_dir),
                hint=f"each version folder needs its {MANIFEST_NAME}, a regular file",
            )
        if not available:
            known = did_you_mean(name, self.names(), what="available catalogs")
            raise NotFoundError(
                f"no catalog named {name!r}",
                hint=f"{known}; add folders with --path or {ENV_VAR}",
            )
        hidden = "".join(
            f"; {name!r} in {source.label} is hidden by {available[0].source}"
            for source in self.shadowed(name)
        )
        raise NotFoundError(
            f"no version of {name!r} satisfies {str(parse_spec(spec))!r}",
            hint=f"available versions: {', '.join(str(r.version) for r in available)}{hidden}",
        )

    def select(self, name: str, spec: str | SpecifierSet | None = None) -> list[VersionRef]:
        """Every version of ``name`` that satisfies ``spec``, oldest first (pre-releases as
        :meth:`find` takes them); none is the error :meth:`find` gives."""
        refs = self.versions(name)
        selected = set(parse_spec(spec).filter((ref.version for ref in refs), prereleases=None))
        chosen = [ref for ref in refs if ref.version in selected]
        if not chosen:
            self.find(name, spec)  # raises, saying why: no such catalog, no version, none fits
        return chosen

    def load(self, name: str, spec: str | SpecifierSet | None = None) -> Catalog:
        """Load the newest version of ``name`` satisfying ``spec``."""
        return self.find(name, spec).load()

    def load_ref(self, ref: str) -> Catalog:
        """Load ``NAME@SPEC``, or a version folder when ``ref`` is an existing path.

        A folder's version must be its name, as for a catalog found by name.
        """
        if is_folder_ref(ref):
            return load_dir(ref, catalog_path=self, check_folder_name=True)
        name, spec = parse_ref(ref)
        return self.load(name, spec)

    def load_manifest(
        self,
        read: VersionManifest,
        *,
        chain: tuple[str, ...] = (),
        check_hashes: bool = True,
        check_folder_name: bool = True,
    ) -> Catalog:
        """Load the version whose manifest is ``read``, an overlay's base first.

        The base (``[catalog] base = "NAME@SPEC"``) is looked up here, in this
        catalog path; ``chain`` lists the versions being loaded
        (``NAME@VERSION``), so a base that leads back to one of them is an
        error. Any problem finding or loading the base is reported at the
        ``base`` line of the overlay's manifest (or where it lies in the base).
        """
        base = None
        ref = read.manifest.catalog.base
        if ref is not None:
            try:
                found = self.find(*parse_ref(ref))
                if found.label in chain:
                    raise ManifestError(
                        f"base {found.label} leads back to itself: "
                        f"{' -> '.join((*chain, found.label))}",
                        hint="a catalog's base must not depend on the catalog",
                    )
                base = self.load_manifest(
                    read_manifest(found.where),
                    chain=(*chain, found.label),
                    check_hashes=check_hashes,
                )
            except CatalogError as exc:
                raise read.locate(exc, key=("catalog", "base")) from None
        return load_version(
            read, base=base, check_hashes=check_hashes, check_folder_name=check_folder_name
        )


def load_dir(
    path: str | Path,
    *,
    catalog_path: CatalogPath | None = None,
    check_folder_name: bool = False,
) -> Catalog:
    """Load the catalog version in folder ``path`` (the folder holding ``catalog.toml``).

    An overlay's base is found in ``catalog_path`` (by default the bundled
    catalogs, entry points and ``CATALOG_PATH``). ``check_folder_name=True``
    refuses a version that differs from the folder's name, a catalog name
    that differs from its parent folder's name, and a sibling folder of the
    same version, as loading by name does (the command line asks for it).
    """
    folder = version_folder(path).resolve()
    if check_folder_name:  # as when found by name: one folder per version
        _version_folders(folder.parent, _child_names(folder.parent))
    read = read_manifest(VersionDir(folder.parent, folder.name))
    if read.manifest.catalog.base is None:
        return load_version(read, check_folder_name=check_folder_name)
    return (catalog_path or CatalogPath()).load_manifest(read, check_folder_name=check_folder_name)


def _folder(given: str | Path) -> Path:
    """A catalog folder of ``--path`` or ``CATALOG_PATH``, checked to be one."""
    path = Path(given).expanduser()
    if not path.is_dir():
        if path.is_file():
            what = "is a file, not a folder"
        else:
            what = "is not a folder" if path.exists() else "does not exist"
        raise NotFoundError(
            f"catalog folder {str(path)!r} {what}",
            file=str(path),
            hint=f"give --path (or {ENV_VAR}) a folder holding <name>/<version>/catalog.toml",
        )
    return path


def _has_manifest(ref: VersionRef) -> bool:
    return ref.where.manifest_path.is_file()


def _version_folders(folder: Traversable, names: Iterable[str]) -> list[tuple[str, Version]]:
    """The folders among ``names`` (sub-folders of catalog folder ``folder``) named like a
    PEP 440 version, each with its version.

    Two folders of one version (``1.0`` and ``1.0.0``, or ``1.0.0.0``) would
    leave the choice between them to their names' order: when both hold a
    manifest it is an error naming both; a folder without one is passed over.
    """
    found: dict[Version, str] = {}
    for child in names:
        try:
            version = Version(child)
        except InvalidVersion:
            continue
        other = found.setdefault(version, child)
        if other == child:
            continue
        first, second = (folder.joinpath(n, MANIFEST_NAME).is_file() for n in (other, child))
        if first and second:
            raise ManifestError(
                f"folders {other!r} and {child!r} hold the same version {version} "
                "(equal under PEP 440): which one is meant cannot be told",
                file=str(folder),
                hint="remove or rename one of the two folders",
            )
        if second:
            found[version] = child
    return [(child, version) for version, child in found.items()]


def _child_names(folder: Traversable) -> list[str]:
    """Names of the sub-folders of ``folder`` that may hold catalogs or versions, sorted.

    Plain folders are scanned with :func:`os.scandir`, which knows each
    entry's type without a ``stat`` per entry; other resources (a zip) go
    through the ``Traversable`` API.
    """
    try:
        if isinstance(folder, Path):
            with os.scandir(folder) as entries:
                names = [e.name for e in entries if e.is_dir()]
        else:
            names = [c.name for c in folder.iterdir() if c.is_dir()]
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n for n in names if not n.startswith(("_", ".")))
