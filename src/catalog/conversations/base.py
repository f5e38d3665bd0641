"""What every prompt store shares: the stored records, the store protocol and bounded retries.

A store keeps three things: the prompt of each conversation (constructed once,
replaced at each rebuild with an exact revision), the user templates of the
catalogs that accept one (one text per catalog name), and the releases (a
label naming a catalog version and maybe a canary, with every change kept in
order; see :mod:`catalog.conversations.releases`). Every write is one atomic
transaction, so processes and servers sharing a store lose nothing.
Every store refuses the same texts alike (:func:`check_texts`): SQLite would keep a
NUL character that PostgreSQL refuses, and neither encodes a lone surrogate.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import (
    dataclass,
)
from typing import (
    Any,
    Final,
    Literal,
    Protocol,
    TypeVar,
    runtime_checkable,
)

from packaging.version import InvalidVersion, Version

from catalog.conversations.urls import scrub
from catalog.engine.prompt import MAX_PROMPT_CHARS, check_prompt_size
from catalog.errors import (
    StoreUnavailableError,
    UsageError,
)
from catalog.schema.manifest import NAME_RULE, is_catalog_name
from catalog.schema.text import text_problem

__all__ = [
    "COLUMNS",
    "LOCAL",
    "MAX_PROMPT_CHARS",
    "RELEASE_COLUMNS",
    "RETRY_SECONDS",
    "Canary",
    "PromptStore",
    "Release",
    "ReleaseStore",
    "ReleaseTarget",
    "StoredPrompt",
    "check_label",
    "check_prompt",
    "check_prompt_size",
    "check_release",
    "check_texts",
    "check_who",
    "schema",
    "with_retries",
]

RETRY_SECONDS = 30.0
"""How long a store retries an operation that finds the database busy before giving up."""

_T = TypeVar("_T")

COLUMNS = (
    "conversation_id, text, catalog, version, agent, fingerprint, revision, created, release_label"
)
"""The columns of the prompts table, in :class:`StoredPrompt`'s field order."""

RELEASE_COLUMNS = (
    "label, catalog, version, canary_version, canary_percent, number, changed, who, action"
)
"""The columns of the releases table and of its history, in :meth:`Release.row` order."""

LOCAL: Final = "local"
"""Who made a change through the library or the command line (a server names its token)."""

_MAX_WHO = 100


def schema(prefix: str, real: str) -> tuple[str, ...]:
    """``CREATE TABLE IF NOT EXISTS`` statements for the tables every SQL store keeps:
    ``prompts``, ``templates``, ``releases`` (each label as it stands) and
    ``release_history`` (every change, appended), each name after ``prefix``, with
    ``real`` the database's floating-point type.

    A prompts table made before releases existed lacks ``release_label``: each store
    adds it when it opens one (its own statement: SQLite has no ``IF NOT EXISTS`` there).
    """
    release = f"""
    label TEXT NOT NULL,
    catalog TEXT NOT NULL,
    version TEXT NOT NULL,
    canary_version TEXT,
    canary_percent {real},
    number INTEGER NOT NULL,
    changed {real} NOT NULL,
    who TEXT NOT NULL,
    action TEXT NOT NULL"""
    return (
        f"""CREATE TABLE IF NOT EXISTS {prefix}prompts (
    conversation_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    catalog TEXT NOT NULL,
    version TEXT NOT NULL,
    agent TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    revision INTEGER NOT NULL,
    created {real} NOT NULL,
    release_label TEXT
)""",
        f"""CREATE TABLE IF NOT EXISTS {prefix}templates (
    catalog TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    updated {real} NOT NULL
)""",
        f"CREATE TABLE IF NOT EXISTS {prefix}releases ({release},\n    PRIMARY KEY (label)\n)",
        f"CREATE TABLE IF NOT EXISTS {prefix}release_history ({release},\n"
        "    PRIMARY KEY (label, number)\n)",
    )


@dataclass(frozen=True, slots=True)
class StoredPrompt:
    """The persisted prompt of one conversation.

    ``revision`` is 0 when constructed and grows by exactly one at every
    rebuild; ``created`` is the time (seconds since the epoch) it was last written;
    ``release`` the label of the release that chose the version, or None when the
    catalog was named.
    """

    conversation_id: str
    text: str
    catalog: str
    version: str
    agent: str
    fingerprint: str
    revision: int = 0
    created: float = 0.0
    release: str | None = None


@dataclass(frozen=True, slots=True)
class Canary:
    """A candidate version of the release's catalog for ``percent`` of new conversations
    (more than 0, at most 100)."""

    version: str
    percent: float


@dataclass(frozen=True, slots=True)
class ReleaseTarget:
    """What a release points at: a catalog version and maybe a canary."""

    catalog: str
    version: str
    canary: Canary | None = None


@dataclass(frozen=True, slots=True)
class Release:
    """A release as change ``number`` left it: the latest change is the release as it
    stands, and its history is every change in order (``number`` 1, 2, 3...).

    ``changed`` is when (seconds since the epoch), ``who`` who made it (a server's
    token fingerprint, or ``"local"``), ``action`` ``"set"`` or ``"rollback"``.
    """

    label: str
    target: ReleaseTarget
    number: int
    changed: float
    who: str
    action: Literal["set", "rollback"]

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Release:
        """The release of a row of :data:`RELEASE_COLUMNS`."""
        label, catalog, version, canary_version, canary_percent, number, changed, who, action = row
        canary = None if canary_version is None else Canary(canary_version, float(canary_percent))
        return cls(
            label, ReleaseTarget(catalog, version, canary), int(number), float(changed), who, action
        )

    def row(self) -> tuple[Any, ...]:
        """The values of :data:`RELEASE_COLUMNS`."""
        canary = self.target.canary
        return (
            self.label,
            self.target.catalog,
            self.target.version,
            None if canary is None else canary.version,
            None if canary is None else canary.percent,
            self.number,
            self.changed,
            self.who,
            self.action,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the server and the command line give: ``label``, ``catalog``,
        ``version``, ``canary`` (``{"version", "percent"}`` or null), ``change`` (its
        number), ``changed``, ``who``, ``action``."""
        canary = self.target.canary
        return {
            "label": self.label,
            "catalog": self.target.catalog,
            "version": self.target.version,
            "canary": None
            if canary is None
            else {"version": canary.version, "percent": canary.percent},
            "change": self.number,
            "changed": self.changed,
            "who": self.who,
            "action": self.action,
        }


def check_texts(**texts: str) -> None:
    """Refuse any of ``texts`` (a field name and its text each) that some store could not
    keep: a NUL character or a lone surrogate (:class:`~catalog.errors.UsageError`
    naming the field), so every store answers the same."""
    for name, text in texts.items():
        problem = text_problem(text, nul=True)
        if problem is not None:
            raise UsageError(problem.message, key=name, hint=problem.hint)


def check_prompt(prompt: StoredPrompt) -> StoredPrompt:
    """``prompt``, when every store can keep it (see :func:`check_texts` and
    :func:`check_prompt_size`)."""
    check_prompt_size(prompt.text)
    check_texts(
        conversation_id=prompt.conversation_id,
        text=prompt.text,
        catalog=prompt.catalog,
        version=prompt.version,
        agent=prompt.agent,
        release=prompt.release or "",
    )
    return prompt


def check_label(label: str, *, key: str = "label") -> str:
    """``label`` when it is a release label (the rule of catalog names); else a
    :class:`~catalog.errors.UsageError` at ``key``."""
    if not is_catalog_name(label):
        shown = label if len(label) <= 60 else label[:57] + "..."
        raise UsageError(
            f"{shown!r} is not a release label ({NAME_RULE})",
            key=key,
            hint="name releases like catalogs, e.g. production or staging",
        )
    return label


def check_who(who: str) -> str:
    """``who`` when it may name who made a change: 1 to 100 characters a store keeps."""
    check_texts(who=who)
    if not who or len(who) > _MAX_WHO:
        raise UsageError(
            f"who made the change must be named in 1 to {_MAX_WHO} characters", key="who"
        )
    return who


def _version(version: str, key: str) -> str:
    """``version`` in its normal form (``1.0-alpha1`` is ``1.0a1``), as the catalogs give it."""
    check_texts(**{key: version})
    try:
        return str(Version(version))
    except InvalidVersion:
        shown = version if len(version) <= 60 else version[:57] + "..."
        raise UsageError(
            f"{shown!r} is not a version", key=key, hint="give a catalog version, e.g. 1.2.0"
        ) from None


def check_release(label: str, target: ReleaseTarget, who: str) -> ReleaseTarget:
    """``target`` with its versions in their normal form, when a store may keep it for
    ``label``: names and versions that are names and versions, a canary of another
    version for more than 0 and at most 100 percent; else a
    :class:`~catalog.errors.UsageError` naming the field."""
    check_label(label)
    if not is_catalog_name(target.catalog):
        raise UsageError(
            f"{target.catalog[:60]!r} is not a catalog name ({NAME_RULE})", key="catalog"
        )
    check_who(who)
    version = _version(target.version, "version")
    canary = target.canary
    if canary is None:
        return ReleaseTarget(target.catalog, version)
    canary_version = _version(canary.version, "canary.version")
    if Version(canary_version) == Version(version):  # 1.0 is 1.0.0
        raise UsageError(
            f"the canary is version {version}, which the release names already",
            key="canary.version",
            hint="give another version, or no canary",
        )
    percent = canary.percent
    if isinstance(percent, bool) or not isinstance(percent, int | float):
        raise UsageError("the canary's percent must be a number", key="canary.percent")
    if not (math.isfinite(percent) and 0 < percent <= 100):
        raise UsageError(
            f"the canary's percent must be more than 0 and at most 100, not {percent!r}",
            key="canary.percent",
            hint="give e.g. 10 to send 10% of new conversations to the canary",
        )
    return ReleaseTarget(target.catalog, version, Canary(canary_version, float(percent)))


@runtime_checkable
class PromptStore(Protocol):
    """Where :class:`~catalog.conversations.Sessions` keeps prompts and user templates.

    Implement it to plug in another shared store; each method must be atomic.
    """

    location: str
    """Where the store is (a file, a URL without its password), for messages."""

    def get(self, conversation_id: str) -> StoredPrompt | None:
        """The stored prompt of a conversation, or None."""

    def add(self, prompt: StoredPrompt) -> StoredPrompt:
        """Store ``prompt`` unless its conversation has one; return what is stored."""

    def replace(self, prompt: StoredPrompt) -> StoredPrompt:
        """Store ``prompt`` as the conversation's next revision and return what is stored.

        The revision written is the stored one plus one (0 when there is none),
        whatever ``prompt.revision`` says. When the stored prompt belongs to
        another catalog name or agent, nothing is written and it is returned.
        """

    def get_template(self, catalog: str) -> str | None:
        """The user template stored for catalog ``catalog``, or None."""

    def set_template(self, catalog: str, text: str) -> None:
        """Store ``text`` as catalog ``catalog``'s user template."""

    def close(self) -> None:
        """Release connections; closing twice does nothing."""


@runtime_checkable
class ReleaseStore(PromptStore, Protocol):
    """A :class:`PromptStore` that keeps releases too, for
    :class:`~catalog.conversations.Releases` (both stores of the package do).

    Each method must be atomic.
    """

    def get_release(self, label: str) -> Release | None:
        """The release ``label`` as it stands (its latest change), or None."""

    def list_releases(self) -> list[Release]:
        """Every release as it stands, by label."""

    def release_history(self, label: str) -> list[Release]:
        """Every change of release ``label``, oldest first (empty for an unknown label)."""

    def set_release(self, label: str, target: ReleaseTarget, who: str = LOCAL) -> Release:
        """Point release ``label`` at ``target`` (checked by :func:`check_release`) and
        append the change to its history, both at once; return the release.

        Concurrent changes each get their own number, none lost. A release keeps
        its catalog: ``target`` naming another is refused (:class:`SessionError`).
        """

    def rollback_release(
        self, label: str, who: str = LOCAL, *, expected: int | None = None
    ) -> Release:
        """Put release ``label`` back as it was before its latest change, appended to
        its history as a change of its own (a second rollback undoes the first).

        :class:`~catalog.errors.NotFoundError` for an unknown label,
        :class:`SessionError` for a release changed once only (nothing before it), or,
        with ``expected``, whose latest change is no longer number ``expected``: the
        check and the write are one transaction.
        """


def with_retries(
    operation: Callable[[], _T],
    *,
    retryable: Callable[[Exception], bool],
    location: str,
    seconds: float = RETRY_SECONDS,
    secrets: Iterable[str] = (),
) -> _T:
    """Run ``operation``, again after a short growing pause while it fails with an error
    ``retryable`` accepts, for at most ``seconds``; then :class:`StoreUnavailableError`,
    whose message masks each of ``secrets`` (the store URL's passwords).

    Each run must be a whole transaction that did nothing when it failed.
    """
    deadline = time.monotonic() + seconds
    pause = 0.002
    while True:
        try:
            return operation()
        except Exception as exc:
            if not retryable(exc):
                raise
            if time.monotonic() + pause > deadline:
                how = (
                    f"stayed busy or unreachable for {seconds:g}s"
                    if seconds > 0
                    else "is busy or unreachable"
                )
                reason = scrub(" ".join(str(exc).split()), secrets)  # drivers write lines
                raise StoreUnavailableError(
                    f"the prompt store {how}: {reason}",
                    file=location,
                    hint="retry later; check that the database is up and not locked "
                    "by a long transaction",
                ) from None
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 2, 0.1)
