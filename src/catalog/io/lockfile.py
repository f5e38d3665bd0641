"""Lock files: pin a catalog version to the exact bytes of its parts and prompts.

``catalog lock`` writes a TOML file naming the catalog and its exact version,
the sha256 of every part body (as the manifest records it: UTF-8, LF line
endings), the sha256 of the manifest's content and, for each context given,
the fingerprint of the prompt assembled from it, with the context itself
embedded so verification needs nothing but the lock file and the catalog.

The manifest hash covers its validated content (every key and value, as
canonical JSON), not its layout: a comment or a re-ordered key changes no
prompt, and a bundled catalog read from a wheel has no file path to re-read.

:func:`verify` compares an installed catalog with a lock and reports each
difference with the lock-file line it concerns; ``catalog.load(...,
lock=...)`` uses it to refuse a catalog that does not match.
"""

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomli_w
from packaging.version import Version

from catalog.engine.catalog import Catalog
from catalog.engine.compile import body_sha256
from catalog.errors import CatalogError, ContextError, LockError, RecordError
from catalog.io.catalog_path import CatalogPath, parse_spec
from catalog.io.positions import TomlPositions, key_lines
from catalog.io.textfile import parse_toml, read_text
from catalog.schema import validate
from catalog.schema.context import Context, coerce_context
from catalog.schema.lock import LOCK_FORMAT, Lock, LockedCatalog, LockedPrompt
from catalog.schema.manifest import (
    MAIN_AGENT,
    Manifest,
)

__all__ = [
    "Mismatch",
    "ReadLock",
    "dump_lock",
    "load_locked",
    "make_lock",
    "manifest_sha256",
    "parse_lock",
    "read_lock",
    "verify",
    "verify_report",
]

_HEADER = "# Written by `catalog lock`; check with `catalog verify`. Do not edit by hand.\n"


@dataclass(frozen=True, slots=True)
class ReadLock:
    """A lock read from a file, with its text for pointing at lines."""

    lock: Lock
    file: str
    text: str

    def line(self, *key: str | int) -> int | None:
        """The line of a key path such as ``("parts", "intro")`` in the file (the file
        is indexed once, on the first question)."""
        return TomlPositions.of(self.text).line(key)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One way the installed catalog differs from the lock."""

    kind: Literal[
        "missing-catalog",
        "version",
        "manifest",
        "changed",
        "missing",
        "missing-file",
        "added",
        "prompt",
    ]
    subject: str
    message: str
    line: int | None = None


def manifest_sha256(manifest: Manifest) -> str:
    """sha256 of the manifest's validated content as canonical JSON (layout excluded)."""
    data = manifest.model_dump(mode="json")
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _without_none(value: Any) -> Any:
    """TOML has no null: drop None values (an absent key means the default here)."""
    if isinstance(value, Mapping):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_without_none(v) for v in value]
    return value


def make_lock(
    catalog: Catalog,
    contexts: Iterable[tuple[str, Context | Mapping[str, Any]]] = (),
    agents: Sequence[str] = (MAIN_AGENT,),
) -> Lock:
    """The lock of ``catalog``; ``contexts`` are (label, context) pairs, assembled per agent."""
    prompts = []
    for label, raw in contexts:
        context = coerce_context(raw, source=label)
        data = _without_none(context.model_dump(mode="json", exclude_defaults=True))
        for agent in agents:
            fingerprint = catalog.assemble(context, agent=agent).fingerprint
            prompts.append(
                LockedPrompt(context=label, agent=agent, fingerprint=fingerprint, data=data)
            )
    return Lock(
        catalog=LockedCatalog(
            name=catalog.name,
            version=catalog.manifest.catalog.version,
            manifest_sha256=manifest_sha256(catalog.manifest),
        ),
        parts={part.id: part.decl.sha256 for part in catalog.parts},
        prompt=tuple(prompts),
    )


def dump_lock(lock: Lock) -> str:
    """The lock as TOML, with a header comment."""
    return _HEADER + tomli_w.dumps(lock.model_dump(mode="json"))


def read_lock(path: str | Path) -> ReadLock:
    """Read and validate a lock file; every problem is a :class:`LockError` with the line."""
    text = read_text(
        Path(path), LockError, "the lock file", "write one with `catalog lock NAME@VERSION -o FILE`"
    )
    return parse_lock(text, str(path))


def parse_lock(text: str, file: str) -> ReadLock:
    """Validate the text of a lock (``file`` names it in messages), as :func:`read_lock` does."""
    data = parse_toml(
        text, file, LockError, "fix the syntax or write the lock again with `catalog lock`"
    )
    if data.get("lock", LOCK_FORMAT) != LOCK_FORMAT:
        raise LockError(
            f"lock format {data['lock']!r} is not supported (this version reads {LOCK_FORMAT})",
            file=file,
            line=key_lines(text)(("lock",)),
            hint="upgrade agent-prompt-catalog, or write the lock again with `catalog lock`",
        )
    try:
        lock = validate(Lock, data)
    except RecordError as exc:
        raise _invalid(exc, file, text) from None
    for index, prompt in enumerate(lock.prompt):
        try:
            coerce_context(prompt.data)
        except ContextError as exc:
            raise LockError(
                f"the recorded context is not valid: {exc.message}",
                key=exc.key,
                hint="write the lock again with `catalog lock`",
            ).located(file=file, key=("prompt", index, "data"), lines=key_lines(text)) from None
    return ReadLock(lock, file, text)


def _invalid(exc: RecordError, file: str, text: str) -> LockError:
    """A lock file's validation problems, at the line of the first, in plain words."""
    hint = "write the lock again with `catalog lock`"
    return exc.as_error(LockError, hint).located(file=file, lines=key_lines(text))


def _compare(catalog: Catalog, read: ReadLock) -> list[Mismatch]:
    """Every way ``catalog`` differs from the lock, in the order of the lock file's lines.

    The manifest's hash is compared only when the version and every part
    match: otherwise its change says nothing new.
    """
    found = [*_version_change(catalog, read), *_part_changes(catalog, read)]
    if not found:
        found += _manifest_change(catalog, read)
    found += _prompt_changes(catalog, read)
    return sorted(found, key=lambda m: (m.line or 0, m.subject))


def _version_change(catalog: Catalog, read: ReadLock) -> list[Mismatch]:
    locked = read.lock.catalog.version
    if catalog.version == Version(locked):
        return []
    message = f"locked version {locked} is not installed; compared with {catalog.version} instead"
    return [Mismatch("version", catalog.name, message, read.line("catalog", "version"))]


def _part_changes(catalog: Catalog, read: ReadLock) -> list[Mismatch]:
    """Parts missing, whose body file is missing, changed, or not in the lock."""
    found: list[Mismatch] = []
    locked = read.lock.parts
    # The bodies as read, not the manifest's record of them: an edited file counts.
    current = {part.id: body_sha256(part.body) for part in catalog.parts}
    recorded = {part.id: part.decl.sha256 for part in catalog.parts}
    absent = {part.id: part.path for part in catalog.parts if part.missing}
    for part_id, digest in locked.items():
        line = read.line("parts", part_id)
        if part_id not in current:
            found.append(Mismatch("missing", part_id, f"part {part_id!r} is missing", line))
        elif part_id in absent:
            message = f"part {part_id!r}: its body file {absent[part_id]} is missing"
            found.append(Mismatch("missing-file", part_id, message, line))
        elif current[part_id] != digest:
            edited = current[part_id] != recorded[part_id]
            note = " (edited in place: its manifest still records the old hash)" if edited else ""
            message = (
                f"part {part_id!r} changed: sha256 {digest[:12]}... is now "
                f"{current[part_id][:12]}...{note}"
            )
            found.append(Mismatch("changed", part_id, message, line))
    for part_id in current.keys() - locked.keys():
        message = f"part {part_id!r} is not in the lock"
        found.append(Mismatch("added", part_id, message, read.line("parts")))
    return found


def _manifest_change(catalog: Catalog, read: ReadLock) -> list[Mismatch]:
    if manifest_sha256(catalog.manifest) == read.lock.catalog.manifest_sha256:
        return []
    message = "the manifest changed (order, conditions, agents or other settings)"
    return [Mismatch("manifest", catalog.name, message, read.line("catalog", "manifest_sha256"))]


def _prompt_changes(catalog: Catalog, read: ReadLock) -> list[Mismatch]:
    """Locked prompts that assemble differently now, or no longer assemble."""
    found: list[Mismatch] = []
    for index, prompt in enumerate(read.lock.prompt):
        what = f"the prompt for {prompt.context} (agent {prompt.agent})"
        try:
            fingerprint = catalog.assemble(prompt.data, agent=prompt.agent).fingerprint
        except CatalogError as exc:
            # An agent, variable or slot the installed version lacks, or a budget it exceeds.
            message = f"{what} can no longer be assembled: {exc.message}"
        else:
            if fingerprint == prompt.fingerprint:
                continue
            message = (
                f"{what} changed: fingerprint {prompt.fingerprint[:12]}... "
                f"is now {fingerprint[:12]}..."
            )
        subject = f"{prompt.context} ({prompt.agent})"
        found.append(
            Mismatch("prompt", subject, message, read.line("prompt", index, "fingerprint"))
        )
    return found


def verify(
    read: ReadLock, catalog_path: CatalogPath | None = None
) -> tuple[Catalog | None, list[Mismatch]]:
    """Compare the installed catalog with a lock: (the catalog compared, the differences).

    When the locked version is not installed, the newest installed version of
    the catalog is compared instead, so the report also shows what differs.
    Bodies are compared as they are on disk: one edited in place or a body
    file that is missing (either would stop the catalog from loading) is
    reported as a difference of its part.
    """
    catalog_path = catalog_path or CatalogPath()
    lock = read.lock
    refs = catalog_path.versions(lock.catalog.name)
    if not refs:
        return None, [
            Mismatch(
                "missing-catalog",
                lock.catalog.name,
                f"no catalog named {lock.catalog.name!r} is installed (a catalog kept in a "
                "folder is found with --path or CATALOG_PATH, in Python with paths=)",
                read.line("catalog", "name"),
            )
        ]
    locked = Version(lock.catalog.version)
    ref = next((r for r in refs if r.version == locked), refs[-1])
    catalog = ref.load(check_hashes=False)
    return catalog, _compare(catalog, read)


def verify_report(
    read: ReadLock, catalog: Catalog | None, problems: Sequence[Mismatch]
) -> dict[str, Any]:
    """What :func:`verify` found, JSON-ready (``catalog verify --format json``)."""
    return {
        "file": read.file,
        "catalog": read.lock.catalog.name,
        "locked_version": read.lock.catalog.version,
        "installed_version": None if catalog is None else str(catalog.version),
        "ok": not problems,
        "problems": [
            {"kind": p.kind, "subject": p.subject, "message": p.message, "line": p.line}
            for p in problems
        ],
    }


def load_locked(
    name: str, spec: str | None, lock_path: str | Path, catalog_path: CatalogPath | None = None
) -> Catalog:
    """Load the version ``lock_path`` pins, refusing any difference (:class:`LockError`)."""
    read = read_lock(lock_path)
    lock = read.lock
    if lock.catalog.name != name:
        raise LockError(
            f"the lock is for catalog {lock.catalog.name!r}, not {name!r}",
            file=read.file,
            line=read.line("catalog", "name"),
            hint="pass the lock file written for this catalog",
        )
    if spec is not None and Version(lock.catalog.version) not in parse_spec(spec):
        raise LockError(
            f"the locked version {lock.catalog.version} does not satisfy {spec!r}",
            file=read.file,
            line=read.line("catalog", "version"),
            hint="widen the specifier or lock a version that satisfies it",
        )
    catalog, problems = verify(read, catalog_path)
    if catalog is None:
        raise LockError(
            f"no catalog named {name!r} is installed",
            file=read.file,
            line=problems[0].line,
            hint="add the folder that holds it with paths= or CATALOG_PATH",
        )
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise LockError(
            f"catalog {name} does not match the lock: {first.message}{more}",
            file=read.file,
            line=first.line,
            hint="review the change with `catalog diff`, then write the lock again with "
            "`catalog lock`; `catalog verify` lists every difference",
        )
    return catalog
