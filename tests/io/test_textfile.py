"""Every file a user writes is read alike: UTF-8, a byte order mark and CRLF tolerated,
and a missing, unreadable or non-UTF-8 file is an error of the caller's class."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog import ContextError, LockError, ManifestError, load_context, load_dir
from catalog.cli import main
from catalog.errors import CatalogError
from catalog.io.catalog_path import CatalogPath
from catalog.io.loader import VersionDir, load_version, read_manifest
from catalog.io.lockfile import read_lock, verify
from catalog.io.stamp import stamp_folder
from catalog.io.textfile import MAX_FILE_BYTES, MAX_NESTING
from tests.conftest import write_catalog

BOM = b"\xef\xbb\xbf"


def windows(path: Path) -> None:
    """Save ``path`` again as a Windows editor may: a byte order mark and CRLF."""
    path.write_bytes(BOM + path.read_bytes().replace(b"\n", b"\r\n"))


def test_a_manifest_with_a_bom_and_crlf_loads(tmp_path: Path) -> None:
    folder = write_catalog(tmp_path, parts=[{"id": "intro", "body": "Hello."}])
    windows(folder / "catalog.toml")
    catalog = load_dir(folder)
    assert catalog.name == "demo"
    assert catalog.part("intro").body == "Hello."


def test_a_toml_context_with_a_bom_and_crlf_loads(tmp_path: Path) -> None:
    path = tmp_path / "ctx.toml"
    path.write_text('tools = ["Bash"]\ncustom_prompt = """\nline one\nline two"""\n')
    windows(path)
    context = load_context(path)
    assert context.tools == ("Bash",)
    assert context.custom_prompt == "line one\nline two"


def test_a_lock_with_a_bom_and_crlf_loads_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "catalogs"
    write_catalog(root, parts=[{"id": "intro", "body": "Hello {{ env.os }}."}])
    context = tmp_path / "ctx.toml"
    context.write_text('[env]\nos = "Linux"\n')
    target = tmp_path / "prompts.lock"
    args = ["lock", "demo@1.0.0", "--path", str(root), "-o", str(target), "--context", str(context)]
    assert main(args) == 0
    capsys.readouterr()
    windows(target)
    lock = read_lock(target)
    assert lock.lock.catalog.name == "demo"
    assert verify(lock, CatalogPath([root], use_env=False))[1] == []


def test_a_bom_in_a_part_body_stays_in_its_sha256_for_stamp_and_load(tmp_path: Path) -> None:
    folder = write_catalog(
        tmp_path, parts=[{"id": "intro", "sha256": "0" * 64}], catalog={"tokenizer": "chars"}
    )
    (folder / "intro.md").write_bytes(BOM + b"Hello\r\n")
    stamp_folder(folder)
    part = load_dir(folder).part("intro")
    assert part.body == "\ufeffHello\n"
    assert part.decl.sha256 == hashlib.sha256(BOM + b"Hello\n").hexdigest()


def _manifest(tmp_path: Path) -> tuple[Path, Callable[[], object]]:
    # load_version: load_dir checks first that the folder holds a manifest at all
    folder = write_catalog(tmp_path, parts=[{"id": "intro"}])
    return folder / "catalog.toml", lambda: load_version(
        read_manifest(VersionDir(tmp_path / "demo", "1.0.0"))
    )


def _body(tmp_path: Path) -> tuple[Path, Callable[[], object]]:
    folder = write_catalog(tmp_path, parts=[{"id": "intro"}])
    return folder / "intro.md", lambda: load_dir(folder)


def _context(tmp_path: Path) -> tuple[Path, Callable[[], object]]:
    path = tmp_path / "ctx.toml"
    return path, lambda: load_context(path)


def _lock(tmp_path: Path) -> tuple[Path, Callable[[], object]]:
    path = tmp_path / "prompts.lock"
    return path, lambda: read_lock(path)


Caller = Callable[[Path], tuple[Path, Callable[[], object]]]


# A missing or unreadable part body is reported at its manifest line before it is read.
@pytest.mark.parametrize(
    ("caller", "error", "what", "hint"),
    [
        pytest.param(_manifest, ManifestError, "the manifest", "give the folder", id="manifest"),
        pytest.param(_context, ContextError, "the context file", "--context", id="context"),
        pytest.param(_lock, LockError, "the lock file", "`catalog lock", id="lock"),
    ],
)
@pytest.mark.parametrize(
    ("folder", "message"),
    [(False, "{} does not exist"), (True, "cannot read {}: a folder, not a regular file")],
    ids=["missing", "unreadable"],
)
def test_a_missing_or_unreadable_file(
    tmp_path: Path,
    caller: Caller,
    error: type[CatalogError],
    what: str,
    hint: str,
    folder: bool,
    message: str,
) -> None:
    path, read = caller(tmp_path)
    path.unlink(missing_ok=True)
    if folder:
        path.mkdir()  # reading a folder fails for every user, root included
    with pytest.raises(error) as info:
        read()
    assert (info.value.file, info.value.message) == (str(path), message.format(what))
    assert hint in (info.value.hint or "")


@pytest.mark.parametrize(
    ("caller", "error"),
    [
        pytest.param(_manifest, ManifestError, id="manifest"),
        pytest.param(_context, ContextError, id="context"),
        pytest.param(_lock, LockError, id="lock"),
    ],
)
def test_a_fifo_is_refused_without_blocking_and_a_huge_file_by_its_size(
    tmp_path: Path, caller: Caller, error: type[CatalogError]
) -> None:
    path, read = caller(tmp_path)
    path.unlink(missing_ok=True)
    os.mkfifo(path)  # no writer: opening it for reading the usual way would block forever
    with pytest.raises(error) as info:
        read()
    assert info.value.message.endswith(": a named pipe (FIFO), not a regular file")
    path.unlink()
    with open(path, "wb") as handle:  # sparse: costs no disk
        handle.truncate(MAX_FILE_BYTES + 10)
    with pytest.raises(error) as info:
        read()
    assert info.value.file == str(path)
    assert info.value.message.endswith(
        f" is {MAX_FILE_BYTES + 10} bytes, more than the limit of {MAX_FILE_BYTES} bytes"
    )


@pytest.mark.parametrize(
    ("caller", "error"),
    [
        pytest.param(_manifest, ManifestError, id="manifest"),
        pytest.param(_body, ManifestError, id="body"),
        pytest.param(_context, ContextError, id="context"),
        pytest.param(_lock, LockError, id="lock"),
    ],
)
def test_a_file_that_is_not_utf8(tmp_path: Path, caller: Caller, error: type[CatalogError]) -> None:
    path, read = caller(tmp_path)
    path.write_bytes(b"# fine\r\nx = 1 \xff\n")
    with pytest.raises(error) as info:
        read()
    assert (info.value.file, info.value.line) == (str(path), 2)
    assert info.value.message == "not UTF-8 text (bad byte 0xff at offset 14)"
    assert info.value.hint == "save the file as UTF-8"


@pytest.mark.parametrize(
    ("caller", "error", "hint"),
    [
        pytest.param(_manifest, ManifestError, "fix the TOML syntax", id="manifest"),
        pytest.param(_context, ContextError, "fix the TOML syntax", id="context"),
        pytest.param(_lock, LockError, "write the lock again with `catalog lock`", id="lock"),
    ],
)
def test_invalid_toml_names_the_line(
    tmp_path: Path, caller: Caller, error: type[CatalogError], hint: str
) -> None:
    path, read = caller(tmp_path)
    path.write_text("# fine\n\n[table\n")
    with pytest.raises(error) as info:
        read()
    assert (info.value.file, info.value.line) == (str(path), 3)
    assert info.value.message.startswith("invalid TOML: ")
    assert hint in (info.value.hint or "")


def test_stamp_reports_invalid_toml_with_the_line(tmp_path: Path) -> None:
    folder = write_catalog(tmp_path, parts=[{"id": "intro"}])
    (folder / "catalog.toml").write_text('[catalog]\nname = "demo\n')
    with pytest.raises(ManifestError) as info:
        stamp_folder(folder)
    assert (info.value.file, info.value.line) == (str(folder / "catalog.toml"), 2)
    assert info.value.message.startswith("invalid TOML: ")


def _json_context(tmp_path: Path) -> tuple[Path, Callable[[], object]]:
    path = tmp_path / "ctx.json"
    return path, lambda: load_context(path)


DEEP_DOCUMENTS = [
    pytest.param("# fine\nx = " + "[" * 50_000 + "]" * 50_000 + "\n", 2, id="50,000 arrays"),
    pytest.param("# fine\n\nx = " + "{a = " * 50_000 + "1" + "}" * 50_000, 3, id="inline tables"),
    # Within what the parser survives, past what any reader needs:
    pytest.param("x = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1), 1, id="65 arrays"),
    pytest.param(
        "x = 1\n" + "".join(f"{'  ' * i}[{'.'.join(['t'] * (i + 1))}]\n" for i in range(70)),
        None,
        id="70 table headers",
    ),
]


DEEP_JSON = [
    pytest.param('{\n"env": ' + "[" * 50_000 + "]" * 50_000 + "}", 2, id="json 50,000"),
    pytest.param('{"variables": {"x": ' + "[" * 70 + "]" * 70 + "}}", 1, id="json 70"),
]
TOML_READERS = [(_manifest, ManifestError), (_context, ContextError), (_lock, LockError)]


@pytest.mark.parametrize(
    ("caller", "error", "text", "line"),
    [
        pytest.param(caller, error, *doc.values, id=f"{caller.__name__[1:]} {doc.id}")
        for caller, error in TOML_READERS
        for doc in DEEP_DOCUMENTS
    ]
    + [pytest.param(_json_context, ContextError, *doc.values, id=doc.id) for doc in DEEP_JSON],
)
def test_a_deep_document_is_an_error_naming_the_file_and_line(
    tmp_path: Path, caller: Caller, error: type[CatalogError], text: str, line: int | None
) -> None:
    path, read = caller(tmp_path)
    path.write_text(text)
    with pytest.raises(error) as info:
        read()
    assert (info.value.file, info.value.line) == (str(path), line)
    assert info.value.message == f"nested more than {MAX_NESTING} levels deep"


@pytest.mark.parametrize(
    ("caller", "text"),
    [
        pytest.param(_context, "x = " + "1" * 5000, id="toml"),
        pytest.param(_json_context, '{"x": ' + "1" * 5000 + "}", id="json"),
    ],
)
def test_a_number_too_long_to_convert_is_an_error(
    tmp_path: Path, caller: Caller, text: str
) -> None:
    path, read = caller(tmp_path)
    path.write_text(text)
    with pytest.raises(ContextError) as info:
        read()
    assert info.value.file == str(path)
    assert "Exceeds the limit" in info.value.message
    assert info.value.hint == "write long numbers as text (in quotes)"


def test_the_cli_exits_2_with_one_message_on_deep_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    folder = write_catalog(tmp_path, parts=[{"id": "intro"}])
    (folder / "catalog.toml").write_text(f"x = {deep}\n")
    context = tmp_path / "ctx.json"
    context.write_text(f'{{"env": {deep}}}')
    for args in (["show", str(folder)], ["assemble", "pi", "--context", str(context)]):
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.count("\n") == 2 and err.startswith("catalog: error: ")  # message + hint
        assert "Traceback" not in err and "nested more than 64 levels deep" in err
    assert main(["validate", str(folder)]) == 1  # validate's "errors found"
    assert "catalog.toml:1: nested more than 64 levels deep" in capsys.readouterr().out


def test_a_deep_set_value_is_taken_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    assert main(["assemble", "pi", "--set", f"env.model={deep}"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("exc", [RecursionError, MemoryError])
def test_the_cli_turns_a_stray_recursion_or_memory_error_into_one_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], exc: type[BaseException]
) -> None:
    import catalog.cli._list as listing

    def boom(args: object) -> int:
        raise exc()

    monkeypatch.setattr(listing, "run", boom)
    assert main(["list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("catalog: error: the input is ") and f"({exc.__name__})" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("caller", "error", "text", "expected"),
    [
        pytest.param(
            _manifest,
            ManifestError,
            '[catalog]\nname = "demo"\nversion = 5\n\nnope = 1\n',
            [
                (3, "catalog.version", "must be text, not a number (5)"),
                (5, "catalog.nope", "unknown key 'nope'; remove it or check its spelling"),
            ],
            id="manifest",
        ),
        pytest.param(
            _context,
            ContextError,
            "# a context\ntools = 5\n\n[env]\nos = 3\n",
            [
                (2, "tools", "must be a list (an array), not a number (5)"),
                (5, "env.os", "must be text, not a number (3)"),
            ],
            id="context",
        ),
        pytest.param(
            _json_context,
            ContextError,
            '{"tools": 5,\n "env": {"os": 3}}',
            [
                (None, "tools", "must be a list (an array), not a number (5)"),
                (None, "env.os", "must be text, not a number (3)"),
            ],
            id="json context",
        ),
        pytest.param(
            _lock,
            LockError,
            '# lock\n[catalog]\nname = "demo"\nversion = 5\n',
            [
                (4, "catalog.version", "must be text, not a number (5)"),
                (2, "catalog.manifest_sha256", "missing required key 'manifest_sha256'"),
                (None, "parts", "missing required key 'parts'"),
            ],
            id="lock",
        ),
    ],
)
def test_a_file_that_does_not_fit_its_format_names_every_problem_at_its_line(
    tmp_path: Path,
    caller: Caller,
    error: type[CatalogError],
    text: str,
    expected: list[tuple[int | None, str, str]],
) -> None:
    # Manifests, contexts and locks turn a RecordError into their own error one way.
    path, read = caller(tmp_path)
    path.write_text(text)
    with pytest.raises(error) as info:
        read()
    every = [info.value, *info.value.others]
    assert [(e.line, e.key, e.message) for e in every] == expected
    assert {e.file for e in every} == {str(path)}
    assert all(isinstance(e, error) for e in every)
    assert info.value.hint
    # The text lists each one, the hint once at the end.
    text_lines = str(info.value).splitlines()
    assert len(text_lines) == len(expected) + 1 and text_lines[-1].startswith("  hint: ")
    for shown, (line, key, message) in zip(text_lines, expected, strict=False):
        assert shown.strip().endswith(f"{key}: {message}")
        assert f"{path}:{line}: " in shown if line else f"{path}: " in shown
