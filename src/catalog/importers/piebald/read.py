"""Read releases from a checkout or from the git history of the upstream repository."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from catalog.errors import ImporterError
from catalog.importers.gitrepo import GitRepo
from catalog.importers.piebald.parse import (
    PROMPTS_DIR,
    UPSTREAM,
    Readme,
    UpstreamPart,
    parse_prompt_file,
    parse_readme,
    release_version,
)
from catalog.io.catalog_path import parse_spec
from catalog.io.textfile import decode_utf8

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


def read_checkout(src: str | Path, version: str | None = None) -> Release:
    """Read a checkout (or an extracted copy) of the repository: one release.

    The version is ``version``, else the release the README names.
    """
    folder = Path(src).expanduser()
    if not folder.is_dir():
        raise ImporterError(
            "no such folder",
            file=str(folder),
            hint=f"give a checkout of {UPSTREAM} (or --git REPO for its history)",
        )
    prompts = folder / PROMPTS_DIR
    if not prompts.is_dir():
        raise ImporterError(
            f"no {PROMPTS_DIR}/ folder here",
            file=str(folder),
            hint=f"give a checkout of {UPSTREAM} (or --git REPO for its history)",
        )
    parts = tuple(
        parse_prompt_file(_read(path), str(path))
        for path in sorted(prompts.iterdir())
        if path.suffix == ".md" and path.is_file()
    )
    readme_path = folder / "README.md"
    readme = parse_readme(_read(readme_path)) if readme_path.is_file() else Readme(None, {})
    chosen = version or readme.version
    if chosen is None:
        raise ImporterError(
            "cannot tell which release this is: README.md names none",
            file=str(readme_path),
            hint="give it with --version, e.g. --version 2.1.37",
        )
    license_path = folder / "LICENSE"
    license_text = _read(license_path) if license_path.is_file() else None
    return Release(_checked_version(chosen), parts, readme, None, license_text)


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImporterError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
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
    when several name the same release, the latest wins. Each file is read and
    parsed once however many releases contain it.
    """
    specifier = parse_spec(versions) if versions is not None else None
    with GitRepo(repo) as git:
        found: dict[str, str] = {}
        for entry in git.log(rev):
            version = release_version(entry.subject)
            if version is not None:
                found[version] = entry.oid
        chosen = found
        if specifier is not None:
            chosen = {v: c for v, c in found.items() if specifier.contains(v, prereleases=True)}
        if not chosen:
            hint = "release commits have subjects like 'v2.1.37 (+0 tokens)'"
            if found:
                ordered = sorted(found, key=Version)
                hint = f"the history has {len(ordered)} release(s), {ordered[0]} to {ordered[-1]}"
            raise ImporterError(
                "no release commits found"
                + (f" for versions {str(specifier)!r}" if specifier is not None else ""),
                file=str(git.path),
                hint=hint,
            )
        files: dict[tuple[str, str], UpstreamPart] = {}
        readmes: dict[str, Readme] = {}
        for version in sorted(chosen, key=Version):
            commit = chosen[version]
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
    entries = git.tree(f"{commit}:{PROMPTS_DIR}")
    if entries is None:
        raise ImporterError(f"no {PROMPTS_DIR}/ folder", file=str(git.path))
    parts = []
    for entry in entries:
        if not (entry.is_file and entry.name.endswith(".md")):
            continue
        key = (entry.oid, entry.name)
        if key not in files:
            where = f"{commit[:12]}:{PROMPTS_DIR}/{entry.name}"
            files[key] = parse_prompt_file(
                _object_text(git, entry.oid, where), where, source=entry.oid
            )
        parts.append(files[key])
    readme = Readme(None, {})
    found = git.read(f"{commit}:README.md")
    if found is not None:
        if found[0] not in readmes:
            readmes[found[0]] = parse_readme(_decode(found[2], f"{commit[:12]}:README.md"))
        readme = readmes[found[0]]
    license_blob = git.read(f"{commit}:LICENSE")
    license_text = _decode(license_blob[2], f"{commit[:12]}:LICENSE") if license_blob else None
    return Release(version, tuple(parts), readme, commit, license_text)


def _in_release(error: ImporterError, version: str, commit: str) -> ImporterError:
    """``error`` about release ``version``, with the way to leave that release out
    (history cannot be fixed where it is read)."""
    located = copy.copy(error)
    located.message = f"release {version} (commit {commit[:12]}): {error.message}"
    skip = f"leave the release out with --versions '!={version}'"
    located.hint = f"{error.hint}; or {skip}" if error.hint else skip
    return located


def _object_text(git: GitRepo, oid: str, where: str) -> str:
    found = git.read(oid)
    if found is None:
        raise ImporterError(f"git object {oid} is missing", file=where)
    return _decode(found[2], where)


def _decode(raw: bytes, where: str) -> str:
    # Not normalised here: parse_prompt_file does that for part files.
    return decode_utf8(
        raw, where, ImporterError, "upstream files are UTF-8; re-check out or re-extract the file"
    )
