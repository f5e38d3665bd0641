"""Reading one catalog version directory into a compiled :class:`~catalog.engine.catalog.Catalog`.

Works on anything ``importlib.resources`` hands out (a directory, a wheel, a
zip) as well as on plain paths. Every body named by the manifest is read,
checked against its sha256 and compiled; nothing else is read. A version
with a ``base`` (an overlay) is given its base catalog by the caller (the
catalog path, which alone resolves ``NAME@SPEC``) and takes the bodies of
its ``from`` parts from there. A version with ``[[parts_from]]`` takes part
records from shared parts files, each checked against its sha256 like a
body, before its own ``[[part]]`` tables.

The parts files read last (up to 20,000
records) are kept parsed, by sha256, so versions loaded together share their
records too; a parts file is read and hash-checked again only when a stat
finds it changed (its inode, size or times), or written in the last seconds.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from catalog.cache import BoundedCache
from catalog.engine.catalog import Catalog
from catalog.engine.compile import body_sha256, compile_catalog
from catalog.engine.plan import CompiledPart
from catalog.errors import CatalogError, ManifestError, RecordError
from catalog.io.manifests import MANIFEST_NAME, body_changed, parse_manifest, parse_parts_file
from catalog.io.positions import key_columns, key_lines
from catalog.io.textfile import read_text
from catalog.schema import validate
from catalog.schema.manifest import Manifest, PartDecl, PartsFile
from catalog.text.suggest import guess

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "MANIFEST_NAME",
    "VersionDir",
    "VersionManifest",
    "check_folder_names",
    "load_version",
    "manifest_text",
    "merged_manifest",
    "read_body",
    "read_manifest",
    "version_folder",
]


@dataclass(frozen=True, slots=True)
class VersionDir:
    """Where one catalog version lives: its catalog folder and version folder name.

    Bodies may be shared between versions of one catalog (``../_blobs/x.md``),
    so a part's path is resolved inside the catalog folder, never outside it.
    """

    catalog_dir: Traversable
    name: str
    source: str = "path"

    @property
    def path(self) -> Traversable:
        """The version folder."""
        return self.catalog_dir.joinpath(self.name)

    @property
    def manifest_path(self) -> Traversable:
        """The version's ``catalog.toml``."""
        return self.path.joinpath(MANIFEST_NAME)

    def inside(self, file: str) -> str | None:
        """``file`` (relative to the version folder) as a ``/``-separated path relative
        to the catalog folder, or None when its path leaves the catalog folder."""
        if "\0" in file:  # names no file: the system calls raise ValueError for it
            return None
        normal = posixpath.normpath(posixpath.join(self.name, file.replace("\\", "/")))
        if normal.startswith("../") or normal in ("..", ".") or posixpath.isabs(normal):
            return None
        return normal

    def resolve(self, file: str) -> Traversable | None:
        """The body file ``file`` names, or None when it would leave the catalog folder,
        by its path or (on disk) through a symbolic link."""
        normal = self.inside(file)
        if normal is None:
            return None
        if isinstance(self.catalog_dir, Path):  # one join, not one per segment
            on_disk = self.catalog_dir / normal
            # Lexically inside (a Windows drive in ``file`` would restart the path),
            # and no link on the way that could lead out: no need to resolve anything.
            inside = os.fspath(on_disk).startswith(os.path.join(os.fspath(self.catalog_dir), ""))
            if inside and not _through_link(self.catalog_dir, normal):
                return on_disk
            root = os.path.realpath(self.catalog_dir)
            return on_disk if os.path.realpath(on_disk).startswith(root + os.sep) else None
        target = self.catalog_dir
        for segment in normal.split("/"):
            target = target.joinpath(segment)
        return target


def _through_link(root: Path, relative: str) -> bool:
    """Whether a folder or the file on the way from ``root`` to ``root/relative`` (a
    normalised ``/``-separated path) is a symbolic link, or on Windows another
    reparse point such as a junction. A part that does not exist is no link."""
    path = os.fspath(root)
    for segment in relative.split("/"):
        path = os.path.join(path, segment)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        attributes = getattr(info, "st_file_attributes", 0)
        if stat.S_ISLNK(info.st_mode) or attributes & stat.FILE_ATTRIBUTE_REPARSE_POINT:
            return True
    return False


_VERSION_FOLDER_HINT = f"give the folder of one catalog version, the one holding {MANIFEST_NAME}"


def version_folder(given: str | Path) -> Path:
    """The version folder a user named on the command line, checked to be one.

    A path that does not exist, a file (the manifest itself, say) and a folder
    without a manifest (a catalog's folder rather than one of its versions)
    are each refused in their own words, the same for every command, with
    the folder to give when one can be told.
    """
    folder = Path(given).expanduser()
    if not os.path.lexists(folder):
        problem, hint = "this folder does not exist", _VERSION_FOLDER_HINT
    elif not folder.is_dir():
        problem = "a file, not a folder"
        hint = (
            f"give the folder holding it: {folder.parent}"
            if folder.name == MANIFEST_NAME
            else _VERSION_FOLDER_HINT
        )
    elif not os.path.lexists(folder / MANIFEST_NAME):  # else the reader says what it is
        problem = f"no {MANIFEST_NAME} in this folder"
        versions = sorted(found.parent.name for found in folder.glob(f"*/{MANIFEST_NAME}"))
        hint = (
            f"this is a catalog's folder: give one of its versions, e.g. {folder / versions[-1]}"
            if versions
            else _VERSION_FOLDER_HINT
        )
    else:
        return folder
    raise ManifestError(problem, file=str(folder), hint=hint)


def manifest_text(where: VersionDir) -> str:
    """The text of a version's manifest: LF line endings, without a byte order mark
    (as some editors write one)."""
    return read_text(
        where.manifest_path,
        ManifestError,
        "the manifest",
        f"give the folder of one catalog version, the one holding {MANIFEST_NAME}",
    )


@dataclass(frozen=True, slots=True)
class VersionManifest:
    """One version's manifest, read and validated: what loading the version starts from.

    Reading it first lets the caller see ``manifest.catalog.base`` and load
    an overlay's base before the version itself (see :func:`load_version`).
    """

    where: VersionDir
    manifest: Manifest
    text: str = field(repr=False)

    @property
    def file(self) -> str:
        """The manifest's path, as errors name it."""
        return str(self.where.manifest_path)

    def locate(self, error: CatalogError, key: tuple[str | int, ...] | None = None) -> CatalogError:
        """``error`` (about ``key``, or its own key path) placed in this manifest at its line."""
        return error.located(
            file=self.file, key=key, lines=key_lines(self.text), columns=key_columns(self.text)
        )


def read_manifest(where: VersionDir) -> VersionManifest:
    """Read and validate only the manifest of a version (no part bodies)."""
    text = manifest_text(where)
    return VersionManifest(where, parse_manifest(text, str(where.manifest_path)), text)


def merged_manifest(version: VersionManifest) -> Manifest:
    """The version's manifest with the records of its ``[[parts_from]]`` files in
    ``part``, checked as loading checks them, without reading any body."""
    if not version.manifest.parts_from:
        return version.manifest
    sites = _PartSites(version, len(version.manifest.part))
    try:
        return _merge_parts_files(version, version.manifest, sites)
    except CatalogError as exc:
        raise sites.locate(exc) from None


def load_version(
    version: VersionManifest,
    *,
    base: Catalog | None = None,
    check_folder_name: bool = True,
    check_hashes: bool = True,
) -> Catalog:
    """Read, verify and compile one catalog version whose manifest has been read.

    A version with ``[catalog] base`` (an overlay) needs that ``base``
    catalog, loaded by the caller (the catalog path resolves ``NAME@SPEC``);
    each ``from`` part then takes its body from the base part it names.
    ``check_hashes=False`` loads a body that no longer matches its manifest's
    sha256 as it is, and a body file that does not exist as an empty body
    marked ``missing``, for a caller that compares the bodies themselves
    (:func:`catalog.io.lockfile.verify` reports each one).
    """
    manifest = version.manifest
    sites = _PartSites(version, len(manifest.part))
    try:
        if check_folder_name:
            check_folder_names(version)
        if manifest.parts_from:
            manifest = _merge_parts_files(version, manifest, sites)
        if manifest.catalog.base is not None and base is None:
            raise ManifestError(
                f"this catalog is an overlay of {manifest.catalog.base}, which was not given",
                key=("catalog", "base"),
                hint="load it through a catalog path (catalog.load, catalog.load_dir, "
                "CatalogPath), which finds the base",
            )
        bodies = [
            _body(version.where, index, part, base, check_hashes)
            for index, part in enumerate(manifest.part)
        ]
    except CatalogError as exc:
        raise sites.locate(exc) from None
    if base is not None:
        manifest = manifest.model_copy(update={"part": tuple(body.decl for body in bodies)})
    try:
        return compile_catalog(
            manifest,
            {body.decl.id: body.text for body in bodies},
            manifest_text=version.text,
            manifest_file=version.file,
            locate=version.locate,
            body_files={body.decl.id: body.path for body in bodies},
            location=str(version.where.path),
            source=version.where.source,
            missing={body.decl.id for body in bodies if body.missing},
        )
    except CatalogError as exc:
        raise sites.locate(exc) from None


def check_folder_names(version: VersionManifest) -> None:
    """Refuse a manifest whose version is not its folder's name, or whose catalog name is
    not its catalog folder's: the catalog is found (and locked, and verified) by them.

    Every reader that takes a folder for a version applies this one rule (loading,
    and a part's history, which reads the manifests alone), so that no command
    lists a version that another refuses to load. The error names the manifest
    and the line of the key.
    """
    info, where = version.manifest.catalog, version.where
    if info.version != where.name:
        raise version.locate(
            ManifestError(
                f"version {info.version!r} does not match its folder {where.name!r}",
                key=("catalog", "version"),
                hint="rename the folder or fix the version",
            )
        )
    if info.name != where.catalog_dir.name:
        raise version.locate(
            ManifestError(
                f"name {info.name!r} does not match its catalog folder "
                f"{where.catalog_dir.name!r} (found by the folder's name, it would be loaded, "
                f"locked and verified as {info.name!r})",
                key=("catalog", "name"),
                hint=f'set name = "{where.catalog_dir.name}", or move the version into a '
                f"folder named {info.name!r}",
            )
        )


@dataclass(frozen=True, slots=True)
class _Body:
    """A part's body as loaded, with the declaration it ends up with (a ``from`` part
    takes what it leaves out from its base part)."""

    decl: PartDecl
    text: str
    path: str
    missing: bool = False


def _body(
    where: VersionDir, index: int, part: PartDecl, base: Catalog | None, check_hashes: bool
) -> _Body:
    """The body of ``part[index]``, from its file or its base part, checked against its sha256."""
    if part.from_ is not None and base is not None:
        source = _base_part(base, part, index)
        body = _Body(_inherit(part, source.decl, index), source.body, source.path, source.missing)
        what = f"base part {part.from_!r} of {base.name} {base.version}"
    elif not check_hashes and (absent := _absent_body(where, str(part.file))) is not None:
        return _Body(part, "", absent, missing=True)
    else:
        body = _Body(part, *read_body(where, part.id, str(part.file), index))
        what = str(part.file)
    digest = body_sha256(body.text)
    if check_hashes and digest != part.sha256:
        raise body_changed(
            part.id, what, digest, part.sha256, where.path, key=("part", index, "sha256")
        )
    return body


_PART_KEY = re.compile(r"^part\[(\d+)\](.*)$")
_MERGED_HINT = "see `catalog schema manifest` for the format of a part"


class _PartSites:
    """Where each part of a merged manifest was written: the manifest itself, or a
    ``[[part]]`` of a shared parts file (its path, text and index there), so an
    error about ``part[N]`` is placed where that part is written."""

    def __init__(self, version: VersionManifest, count: int) -> None:
        self.version = version
        self._sites: list[tuple[str, str, int]] = [
            (version.text, version.file, index) for index in range(count)
        ]

    def site(self, index: int) -> tuple[str, str, int]:
        """``(text, file, index there)`` of the merged manifest's ``part[index]``."""
        return self._sites[index]

    def reorder(self, sites: list[tuple[str, str, int]]) -> None:
        """Set the sites, one per part of the merged manifest, in its order."""
        self._sites = sites

    def locate(self, exc: CatalogError) -> CatalogError:
        """``exc`` placed in the manifest, or in the parts file of the ``part[N]`` it names."""
        found = _PART_KEY.match(exc.key or "") if exc.file is None else None
        if found is not None:
            text, file, index = self._sites[int(found.group(1))]
            if file != self.version.file:
                moved = copy.copy(exc)
                moved.key = f"part[{index}]{found.group(2)}"
                return moved.located(file=file, lines=key_lines(text), columns=key_columns(text))
        return self.version.locate(exc)


def _merge_parts_files(version: VersionManifest, manifest: Manifest, sites: _PartSites) -> Manifest:
    """``manifest`` with the records of its ``[[parts_from]]`` files merged into ``part``
    (a later file's or the manifest's own part replacing one with the same id)."""
    merged: dict[str, tuple[PartDecl, tuple[str, str, int]]] = {}
    for number, source in enumerate(manifest.parts_from):
        text, file = _read_parts_file(version, number, source.file, source.sha256)
        records = _parsed_parts_file(source.sha256, text, file)
        omitted = set(source.omit)
        unknown = omitted - {part.id for part in records.part}
        if unknown:
            raise ManifestError(
                f"parts_from[{number}] omits {sorted(unknown)[0]!r}, "
                f"which {source.file} does not hold",
                key=("parts_from", number, "omit"),
                hint="remove the id from `omit`",
            )
        for index, part in enumerate(records.part):
            if part.id not in omitted:
                merged[part.id] = (part, (text, file, index))
    for index, part in enumerate(manifest.part):
        merged[part.id] = (part, sites.site(index))
    sites.reorder([site for _, site in merged.values()])
    # The merged manifest is checked by the model's own rules (an unknown agent, a
    # `from` without a base...), each error then placed where its part is written.
    fields = {name: getattr(manifest, name) for name in Manifest.model_fields}
    fields.update(part=tuple(part for part, _ in merged.values()), parts_from=())
    try:
        return validate(Manifest, fields)
    except RecordError as exc:
        raise exc.as_error(ManifestError, _MERGED_HINT) from None


_PARSED_LIMIT = 20_000  # records kept parsed, over all the files kept
_PARSED: Final[BoundedCache[str, PartsFile]] = BoundedCache(64, weight=_PARSED_LIMIT)


def _parsed_parts_file(digest: str, text: str, file: str) -> PartsFile:
    """``text`` (whose sha256 was checked to be ``digest``) parsed, once for the last
    few parts files: versions loaded together share one base, and its records."""
    found = _PARSED.get(digest)
    if found is None:
        found = parse_parts_file(text, file)
        _PARSED.put(digest, found, len(found.part))
    return found


# A parts file found, read and checked for one version is the same file for the next
# version that names it while its inode, size and times are unchanged: an imported
# history names each one from dozens of versions, and each would resolve, read and hash
# it again. Keyed by the catalog folder, the file's path in it and the expected sha256.
_VERIFIED_CHARS = 32 * 1024 * 1024  # characters kept, over all the files kept
# (catalog folder, file, sha256) -> (signature, text, path), weighing the text's length
_VERIFIED: Final[BoundedCache[tuple[str, str, str], tuple[tuple[int, ...], str, str]]] = (
    BoundedCache(512, weight=_VERIFIED_CHARS)
)
# A file written this recently is read every time: a coarse clock could give a change
# made just after it was read the same times (git's "racy" files). Any later change of
# the file, backdated or not, changes its inode's change time, which the signature holds.
_RACY_NS = 2_000_000_000


def _signature(path: str) -> tuple[int, ...] | None:
    """What identifies the bytes of regular file ``path`` while they do not change (None
    for a file that is not one, or changed too recently to tell)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or time.time_ns() - info.st_mtime_ns < _RACY_NS:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _read_parts_file(
    version: VersionManifest, number: int, file: str, sha256: str
) -> tuple[str, str]:
    """The text and path of ``parts_from[number]``, checked to lie inside the catalog
    folder and to have the sha256 the manifest records (once while the file is
    unchanged)."""
    where = version.where
    key = (str(where.catalog_dir), where.inside(file) or file, sha256)
    found = _VERIFIED.get(key)
    if found is not None and _signature(found[2]) == found[0]:
        return found[1], found[2]
    text, path = _read_new_parts_file(version, number, file, sha256)
    signature = _signature(path)
    if signature is not None:
        _VERIFIED.put(key, (signature, text, path), len(text))
    return text, path


def _read_new_parts_file(
    version: VersionManifest, number: int, file: str, sha256: str
) -> tuple[str, str]:
    """:func:`_read_parts_file` for a file not read before, or changed since."""
    resource = version.where.resolve(file)
    if resource is None or not _exists(resource):
        problem = (
            "points (or links) outside the catalog folder" if resource is None else "does not exist"
        )
        raise ManifestError(
            f"parts file {file!r} {problem}",
            key=("parts_from", number, "file"),
            hint="keep shared parts files inside the catalog's own folder",
        )
    text = read_text(resource, ManifestError, "the parts file", "check the file")
    digest = body_sha256(text)
    if digest != sha256:
        line = key_lines(version.text)(("parts_from", number, "sha256"))
        raise ManifestError(
            f"this shared parts file has sha256 {digest[:12]}..., but "
            f"{version.file}{f':{line}' if line else ''} says {sha256[:12]}...: "
            "it was changed after the versions naming it were written",
            file=str(resource),
            hint="restore the file (import the versions again), or write the parts "
            "you changed into the version's own manifest",
        )
    return text, str(resource)


def _exists(resource: Traversable) -> bool:
    """Whether there is anything at ``resource``: a file, and also a folder, a pipe or a
    dangling link, which the reader then refuses in its own words (never "does not
    exist", which would send the user looking for a file that is there)."""
    if isinstance(resource, Path):
        return os.path.lexists(resource)
    return resource.is_file() or resource.is_dir()


def _absent_body(where: VersionDir, file: str) -> str | None:
    """The path of body ``file`` when it lies inside the catalog folder but does not exist."""
    resource = where.resolve(file)
    return None if resource is None or _exists(resource) else str(resource)


def read_body(where: VersionDir, part_id: str, file: str, index: int) -> tuple[str, str]:
    """The text of ``part[index]``'s body ``file`` and the path it was read from.

    A file that is missing or outside the catalog folder is an error at the
    part's ``file`` key (to be placed in the manifest by the caller); one that
    cannot be read or decoded names the body file itself.
    """
    if "\0" in file:
        raise ManifestError(
            f"file {file!r} holds a NUL character, which no path can",
            key=("part", index, "file"),
            hint="fix the path: name the body file relative to the version folder",
        )
    resource = where.resolve(file)
    if resource is None:
        raise ManifestError(
            f"file {file!r} points (or links) outside the catalog folder",
            key=("part", index, "file"),
            hint="keep part files inside the catalog's own folder, as files, not links out of it",
        )
    try:
        # The body's sha256 has always covered a byte order mark: keep it.
        what = f"the body of part {part_id!r}"
        body = read_text(resource, ManifestError, what, "check the file", keep_bom=True)
    except ManifestError:
        if _exists(resource):  # there, but unreadable: the reader's message says why
            raise
        raise ManifestError(
            f"part {part_id!r}: file {file!r} does not exist",
            key=("part", index, "file"),
            hint=f"create {resource} or fix the path",
        ) from None
    return body, str(resource)


def _base_part(base: Catalog, part: PartDecl, index: int) -> CompiledPart:
    wanted = str(part.from_)
    for candidate in base.parts:
        if candidate.id == wanted:
            return candidate
    hint = guess(wanted, (p.id for p in base.parts)) or "`catalog show` lists the base's parts"
    raise ManifestError(
        f"part {part.id!r}: the base catalog {base.name} {base.version} has no part {wanted!r}",
        key=("part", index, "from"),
        hint=hint,
    )


# What a ``from`` part takes from its base part when it does not set it itself.
_INHERITED = (
    "kind",
    "name",
    "description",
    "template",
    "placeholders",
    "reference_tokens",
    "meta",
)


def _inherit(part: PartDecl, source: PartDecl, index: int) -> PartDecl:
    data = part.model_dump(by_alias=True, exclude_unset=True)
    for key in _INHERITED:
        if key not in part.model_fields_set:
            data[key] = getattr(source, key)
    if data["kind"] != "tool" and "name" not in part.model_fields_set:
        data.pop("name")
    try:
        return validate(PartDecl, data)
    except RecordError as exc:
        message = exc.problems[0].message
        raise ManifestError(
            f"part {part.id!r} with what it takes from base part {source.id!r}: {message}",
            key=("part", index),
            hint="set the key on the part itself",
        ) from None
