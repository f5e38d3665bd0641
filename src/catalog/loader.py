"""Reading one catalog version directory into a compiled :class:`~catalog.compiled.Catalog`.

Works on anything ``importlib.resources`` hands out (a directory, a wheel, a
zip) as well as on plain paths. Every body named by the manifest is read,
checked against its sha256 and compiled; nothing else is read.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from catalog.compiled import Catalog, body_sha256, compile_catalog
from catalog.errors import ManifestError
from catalog.manifest import Manifest, locate_key, parse_manifest

__all__ = ["MANIFEST_NAME", "VersionDir", "load_dir", "load_version", "read_manifest"]

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
        return self.catalog_dir.joinpath(self.name)

    @property
    def manifest_path(self) -> Traversable:
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


def _read_text(resource: Traversable, what: str, hint: str) -> str:
    try:
        raw = resource.read_bytes()
    except FileNotFoundError:
        raise ManifestError(f"{what} does not exist", file=str(resource), hint=hint) from None
    except OSError as exc:
        raise ManifestError(
            f"cannot read {what}: {exc.strerror or exc}", file=str(resource), hint=hint
        ) from None
    try:
        return raw.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise ManifestError(
            f"{what} is not UTF-8 text (bad byte at offset {exc.start})",
            file=str(resource),
            hint="save the file as UTF-8",
        ) from None


def read_manifest(where: VersionDir) -> tuple[Manifest, str]:
    """Read and validate only the manifest of a version (no part bodies)."""
    file = where.manifest_path
    text = _read_text(file, "the manifest", f"a catalog version folder holds {MANIFEST_NAME}")
    manifest = parse_manifest(text, str(file))
    return manifest, text


def load_version(where: VersionDir, *, check_folder_name: bool = True) -> Catalog:
    """Read, verify and compile one catalog version."""
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
    bodies: dict[str, str] = {}
    files: dict[str, str] = {}
    for index, part in enumerate(manifest.part):
        line = locate_key(text, ("part", index, "file"))
        resource = where.resolve(part.file)
        if resource is None:
            raise ManifestError(
                f"file {part.file!r} points outside the catalog folder",
                file=manifest_file,
                line=line,
                key=f"part[{index}].file",
                hint="keep part files inside the catalog's own folder",
            )
        files[part.id] = str(resource)
        if not resource.is_file():
            raise ManifestError(
                f"part {part.id!r}: file {part.file!r} does not exist",
                file=manifest_file,
                line=line,
                key=f"part[{index}].file",
                hint=f"create {resource} or fix the path",
            )
        body = _read_text(resource, f"the body of part {part.id!r}", "check the file")
        digest = body_sha256(body)
        if digest != part.sha256:
            raise ManifestError(
                f"part {part.id!r}: {part.file} has sha256 {digest[:12]}..., "
                f"the manifest says {part.sha256[:12]}...",
                file=manifest_file,
                line=locate_key(text, ("part", index, "sha256")),
                key=f"part[{index}].sha256",
                hint="the body changed since the manifest was written: review it, then run "
                "`catalog stamp` on the folder to record the new hash",
            )
        bodies[part.id] = body
    return compile_catalog(
        manifest,
        bodies,
        manifest_text=text,
        manifest_file=manifest_file,
        body_files=files,
        location=str(where.path),
        source=where.source,
    )


def load_dir(path: str | Path) -> Catalog:
    """Load the catalog version in folder ``path`` (the folder holding ``catalog.toml``)."""
    folder = Path(path).expanduser().resolve()
    if not folder.joinpath(MANIFEST_NAME).is_file():
        raise ManifestError(
            f"no {MANIFEST_NAME} in this folder",
            file=str(folder),
            hint="give the folder of one catalog version, e.g. parts/coding-agent/1.0.0",
        )
    return load_version(VersionDir(folder.parent, folder.name), check_folder_name=False)
