"""Reading the text files a user writes (manifests, part bodies, contexts, locks).

One reader so every file is treated alike: UTF-8, a leading byte order mark
dropped (Windows editors write one), CRLF turned into LF, and every failure a
:class:`~catalog.errors.CatalogError` of the caller's class that names the
file and says what to do. TOML parsing shares the same error wording.
"""

from __future__ import annotations

from importlib.resources.abc import Traversable
from typing import Any

import tomli

from catalog.errors import CatalogError
from catalog.manifest.positions import toml_error_line

__all__ = ["clean_text", "decode_utf8", "parse_toml", "read_text"]

_BOM = "\ufeff"


def clean_text(text: str, *, keep_bom: bool = False) -> str:
    """``text`` with CRLF line endings turned into LF and, unless ``keep_bom``, a
    leading byte order mark dropped."""
    text = text.replace("\r\n", "\n")
    return text if keep_bom else text.removeprefix(_BOM)


def read_text(
    file: Traversable,
    error_cls: type[CatalogError],
    what: str,
    hint: str,
    *,
    keep_bom: bool = False,
) -> str:
    """The UTF-8 text of ``file`` (``what`` names it in messages), as :func:`clean_text`
    leaves it.

    A missing or unreadable file raises ``error_cls`` with ``hint``; bytes that
    are not UTF-8 raise it as :func:`decode_utf8` says.
    ``keep_bom`` is for part bodies: their sha256 has always covered a BOM, so
    dropping it now would fail every catalog stamped with one.
    """
    where = str(file)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise error_cls(f"{what} does not exist", file=where, hint=hint) from None
    except OSError as exc:
        raise error_cls(
            f"cannot read {what}: {exc.strerror or exc}", file=where, hint=hint
        ) from None
    text = decode_utf8(raw, where, error_cls, "save the file as UTF-8")
    return clean_text(text, keep_bom=keep_bom)


def decode_utf8(raw: bytes, file: str, error_cls: type[CatalogError], hint: str) -> str:
    """``raw`` decoded as UTF-8; a bad byte raises ``error_cls`` naming ``file``, the
    byte, its offset and its line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error_cls(
            f"not UTF-8 text (bad byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            file=file,
            line=raw.count(b"\n", 0, exc.start) + 1,
            hint=hint,
        ) from None


def parse_toml(text: str, file: str, error_cls: type[CatalogError], hint: str) -> dict[str, Any]:
    """``text`` parsed as TOML; a syntax error raises ``error_cls`` with ``file``, the
    line and ``hint``."""
    try:
        return tomli.loads(text)
    except tomli.TOMLDecodeError as exc:
        raise error_cls(
            f"invalid TOML: {exc}", file=file, line=toml_error_line(exc, text), hint=hint
        ) from None
