"""Releases: a label (``production``, ``staging``) that chooses the catalog version of
each new conversation, with a canary, a rollback and the history of every change.

A release points at one version of one catalog, and maybe at a *canary*: another
version of the same catalog for a share of new conversations. Which share is
fixed by the conversation id: :func:`canary_share` places each id at a point
from 0 to 100 by the SHA-256 of the label and the id, the same on every server
and every time, and the ids below the canary's percent get the canary. The
version is chosen when a conversation is constructed and stored with its
prompt (with the release's label); a rebuild chooses again with the release as
it stands then, so a rollback reaches old conversations at their next
compaction.

The releases live in the prompt store, beside the conversations, so every
server sharing the store agrees. :class:`Releases` reads a release for a
construction at most :data:`RELEASE_CACHE_SECONDS` after it was read from the
store: a change made anywhere is used by every construction that starts more
than that after the change. Setting a release to a version that cannot be
loaded here is refused; constructing for a release whose version cannot be
loaded here is refused too (:class:`~catalog.errors.SessionError`, naming the
version), never answered with another version::

    releases = Releases(store)
    releases.set("production", "coding-agent", "1.2.0", Canary("1.3.0", 10))
    prompt, new = releases.construct("production", "conv-1", context)
    releases.rollback("production")
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from catalog.cache import BoundedCache
from catalog.conversations.base import (
    LOCAL,
    Canary,
    Release,
    ReleaseStore,
    ReleaseTarget,
    StoredPrompt,
    check_label,
    check_release,
)
from catalog.conversations.sessions import Sessions, owned
from catalog.engine.catalog import Catalog
from catalog.errors import CatalogError, NotFoundError, SessionError, UsageError
from catalog.io.catalog_path import CatalogPath
from catalog.schema.context import Context
from catalog.schema.manifest import MAIN_AGENT

__all__ = [
    "RELEASE_CACHE_SECONDS",
    "Loader",
    "ReleaseCache",
    "Releases",
    "canary_share",
    "catalog_path_loader",
    "version_for",
]

RELEASE_CACHE_SECONDS: Final = 1.0
"""The longest a release read from the store is used for constructions (seconds)."""

_CACHED_LABELS = 256

Loader = Callable[[str, str], Catalog]
"""Loads catalog ``name`` at exactly ``version``: ``load(name, version)``."""


def canary_share(label: str, conversation_id: str) -> float:
    """Where ``conversation_id`` falls for release ``label``: a point from 0 (included)
    to 100 (excluded), the first 8 bytes of the SHA-256 of the label, a newline and
    the id (UTF-8) read as a big-endian number over 2**64, times 100."""
    digest = hashlib.sha256(f"{label}\n{conversation_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 * 100


def version_for(release: Release, conversation_id: str) -> str:
    """The version ``release`` chooses for ``conversation_id``: the canary's when the
    id's :func:`canary_share` is below the canary's percent, else the release's."""
    canary = release.target.canary
    if canary is not None and canary_share(release.label, conversation_id) < canary.percent:
        return canary.version
    return release.target.version


def catalog_path_loader(paths: Iterable[str | Path] = ()) -> Loader:
    """A :data:`Loader` finding versions on the catalog path (``paths`` first, as
    ``--path``), keeping the 32 versions used last compiled."""
    catalog_path = CatalogPath(paths)
    kept: BoundedCache[tuple[str, str], Catalog] = BoundedCache(32)

    def load(name: str, version: str) -> Catalog:
        found = kept.get((name, version))
        if found is None:
            found = catalog_path.find(name, f"=={version}").load()
            kept.put((name, version), found)
        return found

    return load


class ReleaseCache:
    """Releases as read from a store, each used for at most ``max_age`` seconds after
    it was read; the :data:`_CACHED_LABELS` labels used last are kept. Safe to share
    between threads (a server shares one between its requests)."""

    def __init__(self, max_age: float = RELEASE_CACHE_SECONDS) -> None:
        self.max_age = max_age
        self._kept: BoundedCache[str, tuple[float, Release]] = BoundedCache(_CACHED_LABELS)
        self._lock = threading.Lock()  # a newer change is never replaced by an older read

    def get(self, label: str, read: Callable[[], Release | None]) -> Release | None:
        """Release ``label`` as kept, or as ``read`` gives it when older than the bound
        (an unknown label is not kept: it is read again next time)."""
        now = time.monotonic()
        kept = self._kept.get(label)
        if kept is not None and now - kept[0] < self.max_age:
            return kept[1]
        release = read()
        if release is not None:
            self._keep(release, now)
        return release

    def put(self, release: Release) -> None:
        """Keep ``release`` as it stands now (this process just changed it)."""
        self._keep(release, time.monotonic())

    def _keep(self, release: Release, read_at: float) -> None:
        with self._lock:
            kept = self._kept.get(release.label)
            if kept is not None and kept[1].number > release.number:
                return  # a read that started earlier ended later: keep the newer change
            self._kept.put(release.label, (read_at, release))


class Releases:
    """The releases of ``store``: change them, read them, construct and rebuild
    conversations for them (see the module docstring).

    ``load`` loads the versions releases name (default: :func:`catalog_path_loader`
    on the default catalog path); ``cache`` keeps releases for constructions (default:
    one of this object's own, bounded by :data:`RELEASE_CACHE_SECONDS`).
    """

    def __init__(
        self,
        store: ReleaseStore,
        *,
        load: Loader | None = None,
        cache: ReleaseCache | None = None,
    ) -> None:
        if not isinstance(store, ReleaseStore):
            raise UsageError(
                f"the prompt store {store.location} keeps no releases",
                hint="use a store of the package (open_store), or implement ReleaseStore",
            )
        self.store = store
        self.load = load or catalog_path_loader()
        self.cache = cache or ReleaseCache()

    def _loadable(self, catalog: str, version: str, key: str) -> Catalog:
        """Catalog ``catalog`` at ``version``; a :class:`UsageError` at ``key`` naming it
        when it cannot be loaded here."""
        try:
            return self.load(catalog, version)
        except CatalogError as exc:
            raise UsageError(
                f"catalog {catalog} {version} cannot be loaded here: {exc.message}",
                key=key,
                hint=exc.hint or "install that version here (and on every server) first",
            ) from None

    def _checked(self, label: str, target: ReleaseTarget, who: str) -> ReleaseTarget:
        target = check_release(label, target, who)
        self._loadable(target.catalog, target.version, "version")
        if target.canary is not None:
            self._loadable(target.catalog, target.canary.version, "canary.version")
        return target

    def set(
        self,
        label: str,
        catalog: str,
        version: str,
        canary: Canary | None = None,
        *,
        who: str = LOCAL,
    ) -> Release:
        """Point release ``label`` at ``catalog`` ``version`` with ``canary`` (None: no
        canary); a version that cannot be loaded here is refused (:class:`UsageError`
        naming it). Atomic; the change is appended to the history."""
        target = self._checked(label, ReleaseTarget(catalog, version, canary), who)
        release = self.store.set_release(label, target, who)
        self.cache.put(release)
        return release

    def rollback(self, label: str, *, who: str = LOCAL) -> Release:
        """Put release ``label`` back as it was before its latest change (a change of its
        own in the history); refused when that state names a version that cannot be
        loaded here, and when another change came after the history was read (the
        store writes only while the change checked here is still the latest)."""
        history = self.history(label)
        if len(history) > 1:
            self._checked(label, history[-2].target, who)
        release = self.store.rollback_release(label, who, expected=history[-1].number)
        self.cache.put(release)
        return release

    def get(self, label: str) -> Release:
        """Release ``label`` as it stands in the store (:class:`NotFoundError` if none)."""
        release = self.store.get_release(check_label(label))
        if release is None:
            raise _unknown(label)
        return release

    def all(self) -> list[Release]:
        """Every release as it stands in the store, by label."""
        return self.store.list_releases()

    def history(self, label: str) -> list[Release]:
        """Every change of release ``label``, oldest first (:class:`NotFoundError` if none)."""
        changes = self.store.release_history(check_label(label))
        if not changes:
            raise _unknown(label)
        return changes

    def current(self, label: str) -> Release:
        """Release ``label`` as constructions use it: read from the store at most
        :data:`RELEASE_CACHE_SECONDS` ago (:class:`NotFoundError` if none)."""
        check_label(label, key="release")
        release = self.cache.get(label, lambda: self.store.get_release(label))
        if release is None:
            raise _unknown(label)
        return release

    def load_version(self, release: Release, version: str) -> Catalog:
        """``version`` of the release's catalog; a :class:`SessionError` naming it when it
        cannot be loaded here (never another version instead)."""
        catalog = release.target.catalog
        try:
            return self.load(catalog, version)
        except CatalogError as exc:
            raise SessionError(
                f"release {release.label} chose catalog {catalog} {version}, which cannot be "
                f"loaded here: {exc.message}",
                hint=f"install {catalog} {version} on every server before a release names it",
            ) from None

    def construct(
        self,
        label: str,
        conversation_id: str,
        context: Context | Mapping[str, Any] | None = None,
        *,
        agent: str = MAIN_AGENT,
    ) -> tuple[StoredPrompt, bool]:
        """Construct the prompt of a new conversation with the version release ``label``
        chooses for it (:func:`version_for`), recording the label; a conversation that
        has a prompt keeps it (the first writer wins). Returns the stored prompt and
        whether this call stored it. A conversation of another catalog or agent is
        refused (:class:`SessionError`)."""
        release = self.current(label)
        catalog = release.target.catalog
        stored = self.store.get(conversation_id)
        if stored is not None:
            asked = f"release {label} of catalog {catalog}"
            return owned(stored, catalog, agent, asked=asked, location=self.store.location), False
        chosen = self.load_version(release, version_for(release, conversation_id))
        return Sessions(chosen, self.store, agent=agent, release=label).construct_new(
            conversation_id, context
        )

    def sessions(self, conversation_id: str) -> Sessions:
        """The :class:`Sessions` that rebuilds a conversation constructed for a release:
        the version the release chooses for it now, its agent, its label. Refused for a
        conversation never constructed (:class:`NotFoundError`) or constructed for a
        catalog rather than a release (:class:`SessionError`)."""
        stored = self.store.get(conversation_id)
        if stored is None:
            raise NotFoundError(
                f"conversation {conversation_id!r} has no prompt",
                hint="construct it first, for a release or a catalog",
            )
        if stored.release is None:
            raise SessionError(
                f"conversation {conversation_id!r} was constructed for catalog "
                f"{stored.catalog} {stored.version}, not for a release",
                hint="rebuild it with its catalog",
            )
        release = self.current(stored.release)
        chosen = self.load_version(release, version_for(release, conversation_id))
        return Sessions(chosen, self.store, agent=stored.agent, release=stored.release)


def _unknown(label: str) -> NotFoundError:
    return NotFoundError(
        f"there is no release {label}",
        hint=f"set it first (catalog release set {label} NAME@VERSION, or PUT /releases/{label})",
    )
