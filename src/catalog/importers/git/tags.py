"""Which tags are releases, and of which version: the tag without its prefix.

A repository tags each release with its version behind a prefix of its own
(``v1.3.4``, ``rust-v0.46.0``): the version is the tag with everything before
its first digit removed, read as a PEP 440 version. A tag that gives none
(``nightly``, ``v1.x``, a version longer than :data:`MAX_VERSION_CHARS`, which
no folder could be named after) is skipped, as is a pre-release unless asked
for, and a tag naming no commit (a tree or a blob, as git allows); all are
counted, so that the import can say how many it left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from packaging.version import InvalidVersion, Version

from catalog.errors import ImporterError
from catalog.text.globs import Glob, GlobError

__all__ = [
    "MAX_VERSION_CHARS",
    "ReleaseTag",
    "TagChoice",
    "choose_tags",
    "tag_matcher",
    "tag_version",
]

MAX_VERSION_CHARS: Final = 64
"""Longest version (normalised) a tag may give: it names the version's folder."""


@dataclass(frozen=True, slots=True)
class ReleaseTag:
    """A tag taken as a release: its name, version and commit."""

    tag: str
    version: Version
    commit: str


@dataclass(frozen=True, slots=True)
class TagChoice:
    """The tags taken, oldest version first, and how many matching tags were left out
    for each reason."""

    releases: tuple[ReleaseTag, ...]
    not_versions: tuple[str, ...] = ()
    pre_releases: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    not_commits: tuple[str, ...] = ()


def tag_version(tag: str) -> Version | None:
    """The version tag ``tag`` names (``rust-v0.46.0`` -> ``0.46.0``), or None."""
    digit = next((i for i, char in enumerate(tag) if char.isascii() and char.isdigit()), None)
    if digit is None:
        return None
    try:
        version = Version(tag[digit:])
    except InvalidVersion:
        return None
    return version if len(str(version)) <= MAX_VERSION_CHARS else None


def tag_matcher(globs: Iterable[str]) -> Callable[[str], bool]:
    """Whether a tag's name matches one of ``globs`` (each anchored at the start)."""
    patterns = []
    for glob in globs:
        try:
            patterns.append(Glob("/" + glob.lstrip("/")))
        except GlobError as exc:
            raise ImporterError(
                f"--tags {glob!r} is not a glob: {exc}", hint="give a glob like 'v*'"
            ) from None
    return lambda name: any(pattern.match(name) for pattern in patterns)


def choose_tags(tags: Mapping[str, str], globs: Iterable[str], *, pre: bool) -> TagChoice:
    """The releases among ``tags`` (name -> commit) whose name matches one of ``globs``,
    in version order. Of two tags giving equal versions (``v1.0`` and ``v1.0.0``), the
    later in name order is taken and the other counted as a duplicate."""
    matches = tag_matcher(globs)
    chosen: dict[Version, ReleaseTag] = {}
    not_versions: list[str] = []
    pre_releases: list[str] = []
    duplicates: list[str] = []
    for name in sorted(tags):
        if not matches(name):
            continue
        version = tag_version(name)
        if version is None:
            not_versions.append(name)
        elif version.is_prerelease and not pre:
            pre_releases.append(name)
        else:
            if version in chosen:
                duplicates.append(chosen[version].tag)
            chosen[version] = ReleaseTag(name, version, tags[name])
    releases = tuple(chosen[version] for version in sorted(chosen))
    return TagChoice(releases, tuple(not_versions), tuple(pre_releases), tuple(duplicates))
