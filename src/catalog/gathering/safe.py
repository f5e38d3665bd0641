"""Reading a project folder that may be hostile: the link rule, bounded reads, safe YAML.

A gathered folder may come from anyone (an unpacked archive, a cloned
repository). Every gatherer reads it through these three primitives, so the
same promises hold for instruction files, texts, skills, persona files and
``file:`` references:

* :func:`allowed_path` applies the link rule: a path that reaches its file
  through a symbolic link must land inside the allowed roots of its reader
  (for a file of the project, the project root; for the user's own files,
  the home folder too: see :mod:`catalog.gathering._reach`) unless the caller
  asked to follow links; loops are skipped.
* :func:`read_bounded` reads at most a fixed number of bytes of a *regular*
  file: FIFOs, devices and sockets are skipped without being read, so nothing
  hangs or reads forever.
* :func:`load_yaml` (from :mod:`catalog.io.yamltext`) reads YAML without
  anchors or aliases (no "billion laughs"), with bounded nesting and size.

Problems are :class:`SourceWarning` warnings naming the file; the file is
skipped and the rest of the context is still gathered.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from catalog.gathering._files import warn
from catalog.io.textfile import clean_text, read_capped
from catalog.io.yamltext import MAX_YAML_BYTES, MAX_YAML_DEPTH, YamlError, load_yaml

__all__ = [
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "ReadRules",
    "YamlError",
    "allowed_path",
    "foreign_owner",
    "load_yaml",
    "read_bounded",
    "within_roots",
]

_FOLLOW_HINT: Final = "pass --follow-links (follow_links=True) to read it anyway"


@dataclass(frozen=True, slots=True)
class ReadRules:
    """Where gathered reads may land and how much they read.

    ``roots`` are resolved folders (the project root, the home folder): a path
    reached through a symbolic link must resolve inside one of them unless
    ``follow_links``. ``limit`` is the most bytes read of one file. ``where``
    says what the roots are, for messages ("the project root /p").
    """

    roots: tuple[Path, ...]
    follow_links: bool = False
    limit: int = 256 * 1024
    where: str = ""

    @classmethod
    def of(
        cls, roots: Iterable[Path], *, follow_links: bool, limit: int, where: str = ""
    ) -> ReadRules:
        """Rules with each root resolved (a root given through a link is its target)."""
        return cls(tuple(_resolve(root) or root for root in roots), follow_links, limit, where)

    @property
    def place(self) -> str:
        """The roots in words: ``where``, else the folders joined with "and"."""
        return self.where or " and ".join(str(root) for root in self.roots)


def _resolve(path: Path) -> Path | None:
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL character
        return None


def _own_uids() -> frozenset[int] | None:
    """The user ids whose files are this user's: the effective one, and for root run
    through ``sudo`` the caller's (``SUDO_UID``), as git allows; None where there are
    no user ids (Windows)."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        return None
    euid: int = geteuid()
    sudo = os.environ.get("SUDO_UID", "")
    return frozenset({euid, int(sudo)}) if euid == 0 and sudo.isdigit() else frozenset({euid})


def foreign_owner(path: Path) -> int | None:
    """The user id owning ``path`` (the entry itself, a link not followed) when it is
    not the current user's; None when it is, or when it cannot be told.

    A ``.git`` planted by another user in a shared folder above the project
    (``/tmp/.git``) would otherwise make that folder the project root and give the
    project its branch and status: git refuses such a repository ("dubious
    ownership", CVE-2022-24765), and so does gathering."""
    uids = _own_uids()
    if uids is None:
        return None
    try:
        owner = path.lstat().st_uid
    except (OSError, ValueError):
        return None
    return None if owner in uids else owner


def within_roots(real: Path, rules: ReadRules) -> bool:
    """Whether the resolved path ``real`` lies inside one of ``rules.roots``."""
    return any(real == root or real.is_relative_to(root) for root in rules.roots)


def allowed_path(path: Path, rules: ReadRules, *, by: str = "") -> Path | None:
    """The real path of ``path`` when the link rule lets it be read; None (warned) else.

    A path whose real location is where it is written (no link on the way) is
    allowed; one that goes through a symbolic link must resolve inside
    ``rules.roots`` unless ``rules.follow_links``. A link loop warns; a missing
    path gives None silently. ``by`` names what referred to the path (a file
    and line), put before the warning.
    """
    prefix = f"{by}: " if by else ""
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        return None
    except RuntimeError:  # Python < 3.13 reports a loop this way
        warn(f"{prefix}{path}: skipped, a symbolic link loop")
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            warn(f"{prefix}{path}: skipped, a symbolic link loop")
        elif exc.errno != errno.ENOTDIR:
            warn(f"{prefix}{path}: skipped, {exc.strerror or exc}")
        return None
    except ValueError:
        warn(f"{prefix}{path}: skipped, the path holds a NUL character")
        return None
    if rules.follow_links or real == Path(os.path.abspath(path)) or within_roots(real, rules):
        return real
    warn(f"{prefix}{path}: skipped, a link to {real}, outside {rules.place}; {_FOLLOW_HINT}")
    return None


def read_bounded(path: Path, rules: ReadRules, *, real: Path | None = None) -> str | None:
    """The text of ``path`` under the link rule, at most ``rules.limit`` bytes of it.

    ``real`` is the path's real location when the caller has already applied
    the link rule (:func:`allowed_path`), so that it is not resolved twice.

    A longer file is cut with a marker (and a warning); undecodable bytes
    become U+FFFD, CRLF becomes LF, a leading byte order mark is dropped. A
    file the rule refuses, a FIFO, device or socket, or an unreadable file
    warns and gives None.
    """
    if real is None:
        real = allowed_path(path, rules)
        if real is None:
            return None
    limit = rules.limit
    try:
        raw, size = read_capped(real, limit)
    except OSError as exc:
        warn(f"{path}: skipped, {exc.strerror or exc}")
        return None
    cut = len(raw) > limit
    text = clean_text(raw[:limit].decode("utf-8", errors="replace"))
    if cut:
        # A multi-byte character split by the limit decodes as U+FFFD: drop it.
        text = text.rstrip("\ufffd")
        warn(f"{path}: cut at {limit} bytes (the file has {size})")
        text += f"\n\n[... cut: {path.name} is longer than {limit} bytes ...]"
    return text
