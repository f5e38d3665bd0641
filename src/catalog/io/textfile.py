"""Reading the text files a user writes (manifests, part bodies, contexts, locks), and
writing the files the package writes for a user.

One reader so every file is treated alike: UTF-8, a leading byte order mark
dropped (Windows editors write one), CRLF turned into LF, and every failure a
:class:`~catalog.errors.CatalogError` of the caller's class that names the
file and says what to do. TOML and JSON parsing share the same error
wording, and refuse what their parsers cannot survive: nesting past
:data:`MAX_NESTING` levels (50,000 nested brackets used to raise
RecursionError), numbers too long to convert, files over
:data:`MAX_FILE_BYTES`, FIFOs and devices; a text no UTF-8 writer can encode
(JSON's ``\\ud800``) is refused, naming its key (:mod:`catalog.schema.text`).

One writer, :func:`write_text`, so no file is ever left half written.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import tomli

from catalog.errors import CatalogError
from catalog.io.positions import toml_error_place
from catalog.schema.text import text_problem

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_NESTING",
    "NotRegularFileError",
    "clean_text",
    "decode_utf8",
    "parse_json",
    "parse_toml",
    "read_capped",
    "read_text",
    "too_deep",
    "write_text",
]

_BOM = "\ufeff"

MAX_FILE_BYTES: Final = 32 * 1024 * 1024
"""Largest manifest, part body, context or lock file read (32 MiB): larger is refused."""
MAX_NESTING: Final = 64
"""Deepest nesting of tables and arrays in a TOML or JSON document read."""

_KINDS: Final = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFileError(OSError):
    """The path is a folder, a FIFO, a device or a socket: reading it could block or never end."""


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise NotRegularFileError(f"{kind}, not a regular file")


def read_capped(path: str | os.PathLike[str], limit: int) -> tuple[bytes, int]:
    """At most ``limit + 1`` bytes of the regular file ``path``, and the file's size.

    Reading one byte past ``limit`` tells the caller the file is longer. The
    file is checked before it is opened and again once open (without blocking),
    so a FIFO, a device or a socket raises :class:`NotRegularFileError` instead
    of hanging or reading forever; other failures raise :class:`OSError`, a path
    holding a NUL character too (the system calls raise ``ValueError`` for it,
    which callers catching ``OSError`` let through as a traceback).
    """
    if "\0" in os.fspath(path):
        raise OSError(errno.EINVAL, "the path holds a NUL character", os.fspath(path))
    _check_regular(os.stat(path).st_mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        _check_regular(info.st_mode)
        chunks: list[bytes] = []
        wanted = limit + 1
        while wanted > 0:
            chunk = os.read(fd, min(wanted, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    return raw, max(info.st_size, len(raw))


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
        # A real path is read bounded; a bundled resource inside the package is ours.
        raw, size = read_capped(file, MAX_FILE_BYTES) if isinstance(file, Path) else (None, 0)
        if raw is None:
            raw = file.read_bytes()
    except FileNotFoundError:
        raise error_cls(f"{what} does not exist", file=where, hint=hint) from None
    except OSError as exc:
        raise error_cls(
            f"cannot read {what}: {exc.strerror or exc}", file=where, hint=hint
        ) from None
    if len(raw) > MAX_FILE_BYTES:
        raise error_cls(
            f"{what} is {size} bytes, more than the limit of {MAX_FILE_BYTES} bytes",
            file=where,
            hint="a file this large is not one the tool reads; check the path",
        )
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
    line and ``hint``, and so does a document nested deeper than :data:`MAX_NESTING`
    or holding a number too long to convert."""
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as exc:
        line, column = toml_error_place(exc, text)
        # The message without its "(at line N, column M)": the position leads the error.
        message = getattr(exc, "msg", None) or str(exc)
        raise error_cls(
            f"invalid TOML: {message}", file=file, line=line, column=column, hint=hint
        ) from None
    except (RecursionError, ValueError) as exc:
        raise _unreadable(exc, text, file, error_cls, "TOML") from None
    _check_nesting(data, text, file, error_cls)
    return data


def parse_json(text: str, file: str, error_cls: type[CatalogError], hint: str) -> Any:
    """``text`` parsed as JSON, refused as :func:`parse_toml` refuses TOML."""
    import json  # on first use: most commands never read or write JSON

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error_cls(
            f"invalid JSON: {exc.msg}", file=file, line=exc.lineno, column=exc.colno, hint=hint
        ) from None
    except (RecursionError, ValueError) as exc:
        raise _unreadable(exc, text, file, error_cls, "JSON") from None
    _check_nesting(data, text, file, error_cls)
    problem = text_problem(data)
    if problem is not None:
        raise error_cls(problem.message, file=file, key=problem.where, hint=problem.hint)
    return data


def _unreadable(
    exc: RecursionError | ValueError, text: str, file: str, error_cls: type[CatalogError], kind: str
) -> CatalogError:
    """The error for a document the parser gave up on: too deep, or a number too long."""
    if isinstance(exc, RecursionError):
        return _too_deep(text, file, error_cls)
    return error_cls(
        f"invalid {kind}: {exc}", file=file, hint="write long numbers as text (in quotes)"
    )


def _too_deep(text: str, file: str, error_cls: type[CatalogError]) -> CatalogError:
    return error_cls(
        f"nested more than {MAX_NESTING} levels deep",
        file=file,
        line=_deep_line(text),
        hint="flatten the data: no catalog, context or lock needs this depth",
    )


def _check_nesting(data: Any, text: str, file: str, error_cls: type[CatalogError]) -> None:
    if too_deep(data):
        raise _too_deep(text, file, error_cls)


def too_deep(data: Any, limit: int = MAX_NESTING) -> bool:
    """Whether parsed data nests dicts and lists deeper than ``limit``, found without
    recursion, so that no later reader of accepted data meets Python's recursion limit."""
    if not isinstance(data, dict | list):
        return False
    stack: list[tuple[dict[Any, Any] | list[Any], int]] = [(data, 0)]
    while stack:  # only containers are stacked: a manifest is mostly texts and numbers
        value, depth = stack.pop()
        if depth >= limit:
            return True
        for child in value.values() if isinstance(value, dict) else value:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


_DEEP_SCAN: Final = 4 * 1024 * 1024


def _deep_line(text: str) -> int | None:
    """The line where brackets first open deeper than :data:`MAX_NESTING` (quoted text
    skipped, roughly: a quote runs to the next one on its line); None if none does in
    the first 4 MiB characters."""
    depth = 0
    line = 1
    quote = ""
    for char in itertools.islice(text, _DEEP_SCAN):  # an error path: bounded all the same
        if char == "\n":
            line += 1
            quote = ""
        elif quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif char in "]}":
            depth -= 1
    return None


def write_text(
    path: str | os.PathLike[str],
    text: str,
    error_cls: type[CatalogError] = CatalogError,
    hint: str = "check that the folder exists and that you may write there",
) -> None:
    """Replace the file ``path`` with ``text`` (UTF-8, line endings as given), all at once.

    The text goes to a new file beside it (``.NAME.XXXXXXXX.tmp``), flushed to
    the disk, which then takes the old file's place in one rename: a command
    that is killed, or a disk that fills up, leaves the old file whole (a killed
    command may leave its temporary file behind). The new file keeps the old
    one's permission bits (and its owner and group where allowed); a new one
    gets the usual ones (0666 less the umask). A symbolic link is followed: the
    file it names is replaced, the link kept. What is not a regular file (a
    terminal, ``/dev/null``, a named pipe) is written to as it is, since it
    cannot be replaced. Any failure raises ``error_cls`` naming ``path``, with
    ``hint``; the temporary file is removed.
    """
    target = os.fspath(path)
    data = text.encode("utf-8")
    info: os.stat_result | None = None
    try:
        with contextlib.suppress(FileNotFoundError):
            info = os.stat(target)
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "it is a folder, not a file")
        if info is not None and not stat.S_ISREG(info.st_mode):
            with open(target, "wb") as stream:  # a device or a pipe: nothing to replace
                stream.write(data)
            return
        _replace(os.path.realpath(target), data, info)
    except OSError as exc:
        what = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        kept = "; the file is as it was" if info is not None and stat.S_ISREG(info.st_mode) else ""
        raise error_cls(f"cannot write: {what}{kept}", file=target, hint=hint) from None


def _replace(target: str, data: bytes, old: os.stat_result | None) -> None:
    """Write ``data`` to a temporary file in ``target``'s folder, then rename it over
    ``target`` (whose earlier state is ``old``)."""
    folder, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    for _ in range(16):  # a name another writer drew too: draw again
        temporary = os.path.join(folder, f".{name[:200]}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(temporary, flags, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free name for a temporary file", folder)
    try:
        try:
            if old is not None:
                _keep_mode(fd, old)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(folder)


def _keep_mode(fd: int, old: os.stat_result) -> None:
    """Give the open file ``fd`` the permission bits of ``old``, and its owner and
    group as far as this user may."""
    if hasattr(os, "fchown"):
        with contextlib.suppress(OSError):
            os.fchown(fd, old.st_uid, old.st_gid)
    if hasattr(os, "fchmod"):  # not on Windows, whose one bit (read-only) stops the rename
        os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _sync_folder(folder: str) -> None:
    """Flush the rename to the disk where folders can be opened (not on Windows)."""
    try:
        fd = os.open(folder or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
