"""Reading and writing ``catalog.toml`` manifests and shared parts files.

Reading turns every problem (TOML syntax, unknown key, wrong type, duplicate
id, bad version) into a :class:`~catalog.errors.ManifestError` that names the
file, the key path (``part[3].when``) and the line: this is where a
manifest's errors are placed in their file, once. Writing goes through
``tomli-w``, so a script that rewrites token counts or hashes produces a file
that reads back identically.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TypeVar

from catalog.errors import ManifestError, RecordError
from catalog.io.positions import key_lines
from catalog.io.textfile import parse_toml
from catalog.schema import validate
from catalog.schema.manifest import Manifest, PartsFile

__all__ = [
    "MANIFEST_NAME",
    "body_changed",
    "dump_manifest",
    "manifest_error",
    "parse_manifest",
    "parse_parts_file",
    "stamp_command",
]

_M = TypeVar("_M", Manifest, PartsFile)

MANIFEST_NAME = "catalog.toml"
"""The file name of a version's manifest."""


def parse_manifest(text: str, file: str) -> Manifest:
    """Parse and validate manifest text; ``file`` is used in error messages."""
    return _parse(Manifest, text, file)


def parse_parts_file(text: str, file: str) -> PartsFile:
    """Parse and validate a shared parts file; errors name ``file`` and the line."""
    return _parse(PartsFile, text, file)


def _parse(model: type[_M], text: str, file: str) -> _M:
    data = parse_toml(text, file, ManifestError, "fix the TOML syntax")
    try:
        return validate(model, data)
    except RecordError as exc:
        raise manifest_error(exc, text, file) from None


def dump_manifest(manifest: Manifest) -> str:
    """Write a manifest back to TOML, leaving out values equal to their defaults."""
    data = manifest.model_dump(mode="json", exclude_defaults=True, by_alias=True)
    data["catalog"] = manifest.catalog.model_dump(mode="json", exclude_none=True)
    for part, raw in zip(manifest.part, data.get("part", ()), strict=True):
        raw.setdefault("order", part.order)
    import tomli_w  # only for writing: not on the path of every command

    return tomli_w.dumps(data, multiline_strings=True)


def manifest_error(exc: RecordError, text: str, file: str) -> ManifestError:
    """``exc`` as a manifest error at its key and line, with a hint on what to do.

    A part without ``sha256`` or ``tokens`` is one not stamped yet (a new
    catalog written by hand): the hint gives the command to run on this very
    folder.
    """
    first = exc.problems[0]
    hint = "see `catalog schema manifest` for the format"
    if first.kind == "missing" and first.loc[-1:] in (("sha256",), ("tokens",)):
        path = Path(file)
        command = stamp_command(path.parent) if path.name == MANIFEST_NAME else "catalog stamp DIR"
        hint = (
            f"parts are not stamped yet: run `{command}` to record each body's "
            "sha256 and tokens (with --path for an overlay's base), then try again"
        )
    return exc.as_error(ManifestError, hint).located(file=file, lines=key_lines(text))


def stamp_command(folder: object) -> str:
    """The command line that records the sha256 and tokens of every part of the version
    folder ``folder``, quoted for a shell: what a hint tells a user to run."""
    return f"catalog stamp {shlex.quote(str(folder))}"


def body_changed(
    part_id: str,
    what: str,
    digest: str,
    recorded: str,
    folder: object,
    *,
    key: tuple[str | int, ...] | None = None,
    file: str | None = None,
) -> ManifestError:
    """The error for a part whose body ``what`` hashes to ``digest`` where the manifest
    of the version folder ``folder`` records ``recorded``: its hint names the command
    that records the new hash, once the change is reviewed."""
    return ManifestError(
        f"part {part_id!r}: {what} has sha256 {digest[:12]}..., "
        f"the manifest says {recorded[:12]}...",
        key=key,
        file=file,
        hint="the body changed since the manifest was written: review it, then run "
        f"`{stamp_command(folder)}` to record the new hash",
    )
