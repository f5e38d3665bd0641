"""Read releases from a checkout or from the git history of the upstream repository."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from catalog.errors import ImporterError
from catalog.importers.entrynames import check_entry_names
from catalog.importers.piebald.parse import (
    PROMPTS_DIR,
    UPSTREAM,
    Readme,
    UpstreamPart,
    check_part_ids,
    parse_prompt_file,
    parse_readme,
    release_version,
)
from catalog.io.catalog_path import (
    parse_spec,
)
from catalog.io.textfile import (
    MAX_FILE_BYTES,
    decode_utf8,
    read_capped,
)

if TYPE_CHECKING:
    from catalog.importers.gitrepo import GitRepo, TreeEntry

__all__ = [
    "Release",
    "read_checkout",
    "read_history",
]


@dataclass(frozen=True, slots=True)
class Release:
    """One release's data: its version, part files, README and where it came from."""

    version: str
    parts: tuple[UpstreamPart, ...]
    readme: Readme
    commit: str | None = None
    license: str | None = field(default=None, repr=False)


_RENAME = "rename or remove it in the checkout: upstream names are plain file names"


def read_checkout(src: str | Path, version: str | None = None) -> Release:
    """Read a checkout (or an extracted copy) of the repository: one release.

    The version is ``version``, else the release the README names. Only the
    checkout's own regular files are read, each up to the size the loader
    reads (:func:`_read_inside`). The names in ``system-prompts/`` follow the
    rule of a release's tree (:mod:`catalog.importers.entrynames`: no ``.git``,
    no backslash), and no two of them give one part id.
    """
    folder = Path(src).expanduser()
    if not folder.is_dir():
        raise ImporterError(
            "no such folder",
            file=str(folder),
            hint=f"give a checkout of {UPSTREAM} (or --git REPO for its history)",
        )
    root = folder.resolve()
    prompts = folder / PROMPTS_DIR
    if not prompts.is_dir():
        raise ImporterError(
            f"no {PROMPTS_DIR}/ folder here",
            file=str(folder),
            hint=f"give a checkout of {UPSTREAM} (or --git REPO for its history)",
        )
    _inside(root, prompts)
    paths = sorted(prompts.iterdir())
    check_entry_names((path.name for path in paths), str(prompts), _RENAME)
    parts = []
    for path in paths:
        text = _read_inside(root, path) if path.suffix == ".md" else None
        if text is not None:
            parts.append(parse_prompt_file(text, str(path)))
    check_part_ids((part.file for part in parts), file=str(prompts))
    readme_path = folder / "README.md"
    readme_text = _read_inside(root, readme_path)
    readme = parse_readme(readme_text) if readme_text is not None else Readme(None, {})
    chosen = version or readme.version
    if chosen is None:
        raise ImporterError(
            "cannot tell which release this is: README.md names none",
            file=str(readme_path),
            hint="give it with --version, e.g. --version 2.1.37",
        )
    license_text = _read_inside(root, folder / "LICENSE")
    return Release(_checked_version(chosen), tuple(parts), readme, None, license_text)


def _inside(root: Path, path: Path) -> Path:
    """Where ``path`` leads, links resolved, which must be inside the checkout ``root``."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # a link to nothing, or a loop of links
        raise ImporterError(
            f"cannot read: {getattr(exc, 'strerror', None) or exc}",
            file=str(path),
            hint="replace the link by the file it should name",
        ) from None
    if not real.is_relative_to(root):
        raise ImporterError(
            f"a link to {real}, outside the checkout: the importer reads only the "
            "checkout's own files",
            file=str(path),
            hint="replace the link by a copy of the file, if it belongs in the catalog",
        )
    return real


def _read_inside(root: Path, path: Path) -> str | None:
    """The text of the checkout's file ``path``; None when there is none (or a folder).

    A link leading out of the checkout, a named pipe, a device, a socket or a
    file over the loader's limit (:data:`~catalog._textfile.MAX_FILE_BYTES`) is
    refused, before anything is read from it.
    """
    if not os.path.lexists(path):
        return None
    real = _inside(root, path)
    if real.is_dir():
        return None
    try:
        raw, size = read_capped(real, MAX_FILE_BYTES)
    except OSError as exc:
        raise ImporterError(
            f"cannot read: {exc.strerror or exc}",
            file=str(path),
            hint="the importer reads regular files only; replace it by one",
        ) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ImporterError(
            f"the file is {size} bytes, more than the {MAX_FILE_BYTES} bytes the catalog "
            "loader reads",
            file=str(path),
            hint="a part this large would import but never load; remove it from the checkout",
        )
    return _decode(raw, str(path))


def _checked_version(version: str) -> str:
    try:
        Version(version)
    except InvalidVersion:
        raise ImporterError(
            f"{version!r} is not a PEP 440 version", hint="write it like 2.1.37"
        ) from None
    return version


def read_history(
    repo: str | Path, versions: str | SpecifierSet | None = None, *, rev: str = "HEAD"
) -> Iterator[Release]:
    """Every release commit of a clone, oldest release first (filtered by ``versions``).

    Release commits are those whose subject names a release (:func:`release_version`);
    when several name equal releases (``v1.0`` and ``v1.0.0``), the latest wins.
    Each file is read and parsed once however many releases contain it. The
    repository is read with dulwich (:mod:`catalog.importers.gitrepo`): nothing
    it configures runs, and a symbolic link in a release's tree is refused,
    never followed.
    """
    # Here, not at the top: dulwich takes a tenth of a second to import, and a
    # checkout's import does not need it.
    from catalog.importers.gitrepo import GitRepo

    specifier = parse_spec(versions) if versions is not None else None
    with GitRepo(repo) as git:
        found: dict[Version, tuple[str, str]] = {}
        for entry in git.log(rev):
            version = release_version(entry.subject)
            if version is not None:
                found[Version(version)] = (version, entry.oid)
        chosen = found
        if specifier is not None:
            chosen = {v: c for v, c in found.items() if specifier.contains(v, prereleases=True)}
        if not chosen:
            hint = "release commits have subjects like 'v2.1.37 (+0 tokens)'"
            if found:
                ordered = [found[v][0] for v in sorted(found)]
                hint = f"the history has {len(ordered)} release(s), {ordered[0]} to {ordered[-1]}"
            raise ImporterError(
                "no release commits found"
                + (f" for versions {str(specifier)!r}" if specifier is not None else ""),
                file=str(git.path),
                hint=hint,
            )
        files: dict[tuple[str, str], UpstreamPart] = {}
        readmes: dict[str, Readme] = {}
        for key in sorted(chosen):
            version, commit = chosen[key]
            try:
                release = _read_release(git, version, commit, files, readmes)
            except ImporterError as exc:
                raise _in_release(exc, version, commit) from None
            yield release


def _read_release(
    git: GitRepo,
    version: str,
    commit: str,
    files: dict[tuple[str, str], UpstreamPart],
    readmes: dict[str, Readme],
) -> Release:
    """Release ``version`` from ``commit``: its part files (each parsed once, kept in
    ``files`` by blob and name), README (kept in ``readmes``) and LICENSE. Every tree
    read is checked for names git refuses (:meth:`GitRepo.entries`) and the part
    files for two names giving one id, before any part is read."""
    top = {entry.name: entry for entry in git.tree(commit)}
    prompts = top.get(PROMPTS_DIR)
    if prompts is None or not prompts.is_folder:
        raise ImporterError(f"no {PROMPTS_DIR}/ folder", file=str(git.path))
    listing = f"{commit[:12]}:{PROMPTS_DIR}/"
    part_files = [
        entry
        for entry in git.entries(prompts.oid, listing)
        if entry.name.endswith(".md") and _regular(entry, listing + entry.name)
    ]
    check_part_ids((entry.name for entry in part_files), file=listing)
    parts = []
    for entry in part_files:
        where = listing + entry.name
        key = (entry.oid, entry.name)
        if key not in files:
            files[key] = parse_prompt_file(
                _decode(git.blob(entry.oid, where), where), where, source=entry.oid
            )
        parts.append(files[key])
    readme = Readme(None, {})
    found = _text(git, top.get("README.md"), f"{commit[:12]}:README.md")
    if found is not None:
        oid, text = found
        if oid not in readmes:
            readmes[oid] = parse_readme(text)
        readme = readmes[oid]
    license_file = _text(git, top.get("LICENSE"), f"{commit[:12]}:LICENSE")
    license_text = license_file[1] if license_file is not None else None
    return Release(version, tuple(parts), readme, commit, license_text)


def _regular(entry: TreeEntry, where: str) -> bool:
    """Whether a tree entry is a file to read: a symbolic link is refused (it is
    never followed), a folder or a submodule is not a file."""
    if entry.is_link:
        raise ImporterError(
            "a symbolic link: the importer never follows links",
            file=where,
            hint="upstream files are regular files",
        )
    return entry.is_file


def _text(git: GitRepo, entry: TreeEntry | None, where: str) -> tuple[str, str] | None:
    """The blob id and text of a top-level file, or None when it is absent or no file."""
    if entry is None or not _regular(entry, where):
        return None
    return entry.oid, _decode(git.blob(entry.oid, where), where)


def _in_release(error: ImporterError, version: str, commit: str) -> ImporterError:
    """``error`` about release ``version``, with the way to leave that release out
    (history cannot be fixed where it is read)."""
    located = copy.copy(error)
    located.message = f"release {version} (commit {commit[:12]}): {error.message}"
    skip = f"leave the release out with --versions '!={version}'"
    located.hint = f"{error.hint}; or {skip}" if error.hint else skip
    return located


def _decode(raw: bytes, where: str) -> str:
    # Not normalised here: parse_prompt_file does that for part files.
    return decode_utf8(
        raw, where, ImporterError, "upstream files are UTF-8; re-check out or re-extract the file"
    )
