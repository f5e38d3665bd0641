"""Reading one catalog version directory into a compiled :class:`~catalog.compiled.Catalog`.

Works on anything ``importlib.resources`` hands out (a directory, a wheel, a
zip) as well as on plain paths. Every body named by the manifest is read,
checked against its sha256 and compiled; nothing else is read. A version
with a ``base`` (an overlay) loads its base catalog first and takes the
bodies of its ``from`` parts from there. A version with ``[[parts_from]]``
takes part records from shared parts files, each checked against its sha256
like a body, before its own ``[[part]]`` tables.

Bodies are shared in memory: loading many versions that use one body (an
imported history) keeps one string for it, found by its sha256, for as long
as any loaded catalog holds it.
"""

from __future__ import annotations

import copy
import difflib
import posixpath
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import ValidationError

from catalog._textfile import read_text
from catalog.compiled import Catalog, CompiledPart, body_sha256, compile_catalog
from catalog.errors import CatalogError, ManifestError
from catalog.manifest.models import (
    ALL_AGENTS,
    MAIN_AGENT,
    Manifest,
    PartDecl,
    locate_key,
    parse_manifest,
    parse_parts_file,
)

__all__ = [
    "MANIFEST_NAME",
    "BaseResolver",
    "VersionDir",
    "load_base",
    "load_dir",
    "load_version",
    "manifest_text",
    "read_body",
    "read_manifest",
]

MANIFEST_NAME = "catalog.toml"


@dataclass(frozen=True)
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

    def resolve(self, file: str) -> Traversable | None:
        """The body file ``file`` names, or None when it would leave the catalog folder."""
        normal = posixpath.normpath(posixpath.join(self.name, file.replace("\\", "/")))
        if normal.startswith("../") or normal == ".." or posixpath.isabs(normal):
            return None
        target = self.catalog_dir
        for segment in normal.split("/"):
            target = target.joinpath(segment)
        return target


def manifest_text(where: VersionDir) -> str:
    """The text of a version's manifest: LF line endings, without a byte order mark
    (as some editors write one)."""
    return read_text(
        where.manifest_path,
        ManifestError,
        "the manifest",
        f"give the folder of one catalog version, the one holding {MANIFEST_NAME}",
    )


def read_manifest(where: VersionDir) -> tuple[Manifest, str]:
    """Read and validate only the manifest of a version (no part bodies)."""
    text = manifest_text(where)
    return parse_manifest(text, str(where.manifest_path)), text


BaseResolver = Callable[[str, str | None], Catalog]
"""Loads the base catalog ``(name, spec)`` of an overlay (see ``CatalogPath.load``)."""


def load_version(
    where: VersionDir,
    *,
    check_folder_name: bool = True,
    resolve_base: BaseResolver | None = None,
    check_hashes: bool = True,
) -> Catalog:
    """Read, verify and compile one catalog version.

    A version with ``[catalog] base`` gets its base through ``resolve_base``
    (by default a :class:`~catalog.catalog_path.CatalogPath` with the bundled catalogs,
    entry points and ``CATALOG_PATH``); each ``from`` part then takes its body
    from the base part it names. ``check_hashes=False`` loads a body that no
    longer matches its manifest's sha256 as it is, and a body file that does
    not exist as an empty body marked ``missing``, for a caller that compares
    the bodies themselves (:func:`catalog.lock.verify` reports each one).
    """
    manifest, text = read_manifest(where)
    manifest_file = str(where.manifest_path)
    if check_folder_name and manifest.catalog.version != where.name:
        raise ManifestError(
            f"version {manifest.catalog.version!r} does not match its folder {where.name!r}",
            file=manifest_file,
            line=locate_key(text, ("catalog", "version")),
            key="catalog.version",
            hint="rename the folder or fix the version",
        )
    sites = _PartSites(text, manifest_file, len(manifest.part))
    if manifest.parts_from:
        manifest = _merge_parts_files(where, manifest, sites)
    base = None
    if manifest.catalog.base is not None:
        base = load_base(manifest.catalog.base, text, manifest_file, resolve_base)
    bodies: dict[str, str] = {}
    files: dict[str, str] = {}
    parts: list[PartDecl] = []
    missing: set[str] = set()
    for index, part in enumerate(manifest.part):
        site_text, site_file, site_index = sites.site(index)
        if part.from_ is not None and base is not None:
            source = _base_part(base, part, site_index, site_text, site_file)
            part = _inherit(part, source.decl, site_index, site_text, site_file)
            body, files[part.id] = source.body, source.path
            what = f"base part {part.from_!r} of {base.name} {base.version}"
            if source.missing:
                missing.add(part.id)
        elif not check_hashes and (absent := _absent_body(where, str(part.file))) is not None:
            body, files[part.id] = "", absent
            missing.add(part.id)
        else:
            body, files[part.id] = read_body(
                where, part.id, str(part.file), site_index, site_text, site_file
            )
            what = str(part.file)
        digest = body_sha256(body)
        if check_hashes and digest != part.sha256:
            raise ManifestError(
                f"part {part.id!r}: {what} has sha256 {digest[:12]}..., "
                f"the manifest says {part.sha256[:12]}...",
                file=site_file,
                line=locate_key(site_text, ("part", site_index, "sha256")),
                key=f"part[{site_index}].sha256",
                hint="the body changed since the manifest was written: review it, then run "
                "`catalog stamp` on the folder to record the new hash",
            )
        bodies[part.id] = _shared_text(digest, body)
        parts.append(part)
    if base is not None:
        manifest = manifest.model_copy(update={"part": tuple(parts)})
    try:
        return compile_catalog(
            manifest,
            bodies,
            manifest_text=text,
            manifest_file=manifest_file,
            body_files=files,
            location=str(where.path),
            source=where.source,
            missing=missing,
        )
    except CatalogError as exc:
        raise sites.relocate(exc) from None


class _SharedText(str):
    """A body string that a weak reference can point at (plain ``str`` cannot)."""

    __slots__ = ("__weakref__",)


_TEXTS: weakref.WeakValueDictionary[str, _SharedText] = weakref.WeakValueDictionary()


def _shared_text(digest: str, text: str) -> str:
    """The one string in memory for the body with sha256 ``digest`` (``text`` itself
    the first time), so versions sharing a body share the object."""
    found = _TEXTS.get(digest)
    if found is None:
        found = _TEXTS[digest] = _SharedText(text)
    return found


_PART_KEY = re.compile(r"^part\[(\d+)\](.*)$")


class _PartSites:
    """Where each part of a merged manifest was written: the manifest itself, or
    a ``[[part]]`` of a shared parts file (its path, text and index there)."""

    def __init__(self, text: str, file: str, count: int) -> None:
        self.text, self.file = text, file
        self._sites: list[tuple[str, str, int]] = [(text, file, i) for i in range(count)]

    def site(self, index: int) -> tuple[str, str, int]:
        """``(text, file, index in that file)`` of the merged manifest's ``part[index]``."""
        return self._sites[index]

    def reorder(self, sites: list[tuple[str, str, int]]) -> None:
        """Set the sites, one per part of the merged manifest, in its order."""
        self._sites = sites

    def relocate(self, exc: CatalogError) -> CatalogError:
        """``exc`` pointed at the parts file a ``part[N]`` it names came from."""
        found = _PART_KEY.match(exc.key or "") if exc.file == self.file else None
        if found is None:
            return exc
        text, file, index = self._sites[int(found.group(1))]
        if file == self.file:
            return exc
        moved = copy.copy(exc)
        moved.key = f"part[{index}]{found.group(2)}"
        moved.file = file
        moved.line = locate_key(text, _key_path(index, found.group(2)))
        return moved


def _key_path(index: int, rest: str) -> tuple[str | int, ...]:
    return ("part", index, *(name for name in rest.split(".") if name))


def _merge_parts_files(where: VersionDir, manifest: Manifest, sites: _PartSites) -> Manifest:
    """``manifest`` with the records of its ``[[parts_from]]`` files merged into ``part``
    (a later file's or the manifest's own part replacing one with the same id)."""
    merged: dict[str, tuple[PartDecl, tuple[str, str, int]]] = {}
    known_agents = {MAIN_AGENT, ALL_AGENTS} | {a.name for a in manifest.agent}
    for number, source in enumerate(manifest.parts_from):
        text, file = _read_parts_file(where, number, source.file, source.sha256, sites)
        records = parse_parts_file(text, file)
        omitted = set(source.omit)
        missing = omitted - {part.id for part in records.part}
        if missing:
            raise ManifestError(
                f"parts_from[{number}] omits {sorted(missing)[0]!r}, "
                f"which {source.file} does not hold",
                file=sites.file,
                line=locate_key(sites.text, ("parts_from", number, "omit")),
                key=f"parts_from[{number}].omit",
                hint="remove the id from `omit`",
            )
        for index, part in enumerate(records.part):
            if part.id in omitted:
                continue
            _check_record(part, index, text, file, manifest, known_agents)
            merged[part.id] = (part, (text, file, index))
    for index, part in enumerate(manifest.part):
        merged[part.id] = (part, sites.site(index))
    sites.reorder([site for _, site in merged.values()])
    return manifest.model_copy(
        update={"part": tuple(part for part, _ in merged.values()), "parts_from": ()}
    )


def _read_parts_file(
    where: VersionDir, number: int, file: str, sha256: str, sites: _PartSites
) -> tuple[str, str]:
    """The text and path of ``parts_from[number]``, checked to lie inside the catalog
    folder and to have the sha256 the manifest records."""
    resource = where.resolve(file)
    key = f"parts_from[{number}].file"
    if resource is None or not resource.is_file():
        problem = "points outside the catalog folder" if resource is None else "does not exist"
        raise ManifestError(
            f"parts file {file!r} {problem}",
            file=sites.file,
            line=locate_key(sites.text, ("parts_from", number, "file")),
            key=key,
            hint="keep shared parts files inside the catalog's own folder",
        )
    text = read_text(resource, ManifestError, "the parts file", "check the file")
    digest = body_sha256(text)
    if digest != sha256:
        line = locate_key(sites.text, ("parts_from", number, "sha256"))
        raise ManifestError(
            f"this shared parts file has sha256 {digest[:12]}..., but "
            f"{sites.file}{f':{line}' if line else ''} says {sha256[:12]}...: "
            "it was changed after the versions naming it were written",
            file=str(resource),
            hint="restore the file (import the versions again), or write the parts "
            "you changed into the version's own manifest",
        )
    return text, str(resource)


def _check_record(
    part: PartDecl,
    index: int,
    text: str,
    file: str,
    manifest: Manifest,
    known_agents: set[str],
) -> None:
    """What :class:`Manifest` checks for its own parts, for a part of a parts file."""
    problem = None
    if part.from_ is not None and manifest.catalog.base is None:
        key, problem = (
            "from",
            "`from` names a part of the base catalog, but [catalog] has no `base`",
        )
    for agent in part.agents:
        if agent not in known_agents:
            key, problem = "agents", f"unknown agent {agent!r}: add an [[agent]] table"
    if problem is not None:
        raise ManifestError(
            f"part {part.id!r}: {problem}",
            file=file,
            line=locate_key(text, ("part", index, key)),
            key=f"part[{index}].{key}",
            hint="fix the part, or the manifest naming this parts file",
        )


def _absent_body(where: VersionDir, file: str) -> str | None:
    """The path of body ``file`` when it lies inside the catalog folder but does not exist."""
    resource = where.resolve(file)
    return None if resource is None or resource.is_file() else str(resource)


def read_body(
    where: VersionDir, part_id: str, file: str, index: int, text: str, manifest_file: str
) -> tuple[str, str]:
    """The text of ``part[index]``'s body ``file`` and the path it was read from.

    ``text`` is the manifest's text: a file that is missing or outside the
    catalog folder is an error at the part's ``file`` key in ``manifest_file``.
    """
    resource = where.resolve(file)
    if resource is None:
        problem = ManifestError(
            f"file {file!r} points outside the catalog folder",
            hint="keep part files inside the catalog's own folder",
        )
    elif not resource.is_file():
        problem = ManifestError(
            f"part {part_id!r}: file {file!r} does not exist",
            hint=f"create {resource} or fix the path",
        )
    else:
        what = f"the body of part {part_id!r}"
        # The body's sha256 has always covered a byte order mark: keep it.
        body = read_text(resource, ManifestError, what, "check the file", keep_bom=True)
        return body, str(resource)
    raise problem.located(
        file=manifest_file,
        line=locate_key(text, ("part", index, "file")),
        key=f"part[{index}].file",
    )


def load_base(
    ref: str, text: str, manifest_file: str, resolve_base: BaseResolver | None = None
) -> Catalog:
    """The base catalog ``ref`` (``NAME@SPEC``) that the manifest ``text`` names in
    ``[catalog] base``; an error points at that line of ``manifest_file``."""
    from catalog.catalog_path import (  # the store loads versions: import it late
        CatalogPath,
        parse_ref,
    )

    try:
        return (resolve_base or CatalogPath().load)(*parse_ref(ref))
    except CatalogError as exc:
        raise exc.located(
            file=manifest_file,
            line=locate_key(text, ("catalog", "base")),
            key="catalog.base",
        ) from None


def _base_part(
    base: Catalog, part: PartDecl, index: int, text: str, manifest_file: str
) -> CompiledPart:
    wanted = str(part.from_)
    for candidate in base.parts:
        if candidate.id == wanted:
            return candidate
    close = difflib.get_close_matches(wanted, [p.id for p in base.parts], n=3)
    hint = f"did you mean {', '.join(close)}?" if close else "`catalog show` lists the base's parts"
    raise ManifestError(
        f"part {part.id!r}: the base catalog {base.name} {base.version} has no part {wanted!r}",
        file=manifest_file,
        line=locate_key(text, ("part", index, "from")),
        key=f"part[{index}].from",
        hint=hint,
    )


# What a ``from`` part takes from its base part when it does not set it itself.
_INHERITED = ("kind", "name", "description", "template", "reference_tokens", "meta")


def _inherit(
    part: PartDecl, source: PartDecl, index: int, text: str, manifest_file: str
) -> PartDecl:
    data = part.model_dump(by_alias=True, exclude_unset=True)
    for key in _INHERITED:
        if key not in part.model_fields_set:
            data[key] = getattr(source, key)
    if data["kind"] != "tool" and "name" not in part.model_fields_set:
        data.pop("name")
    try:
        return PartDecl.model_validate(data)
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise ManifestError(
            f"part {part.id!r} with what it takes from base part {source.id!r}: {message}",
            file=manifest_file,
            line=locate_key(text, ("part", index)),
            key=f"part[{index}]",
            hint="set the key on the part itself",
        ) from None


def load_dir(
    path: str | Path,
    *,
    resolve_base: BaseResolver | None = None,
    check_folder_name: bool = False,
) -> Catalog:
    """Load the catalog version in folder ``path`` (the folder holding ``catalog.toml``).

    ``check_folder_name=True`` refuses a version that differs from the
    folder's name, as loading by name does (the command line asks for it).
    """
    folder = Path(path).expanduser().resolve()
    if not folder.joinpath(MANIFEST_NAME).is_file():
        raise ManifestError(
            f"no {MANIFEST_NAME} in this folder",
            file=str(folder),
            hint="give the folder of one catalog version, e.g. parts/coding-agent/1.0.0",
        )
    return load_version(
        VersionDir(folder.parent, folder.name),
        check_folder_name=check_folder_name,
        resolve_base=resolve_base,
    )
