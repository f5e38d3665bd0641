"""Every file the package writes for a user is replaced in one step: real processes
killed in the middle of a write, a real file-size limit standing in for a full disk,
and the old file whole (comments included) after each."""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from catalog.errors import CatalogError, ManifestError
from catalog.io.stamp import stamp_folder
from catalog.io.textfile import write_text
from tests.conftest import run_cli, sha, write_catalog

posix_only = pytest.mark.skipif(os.name != "posix", reason="signals and rlimits of POSIX")

COMMENTED = "# Reviewed by hand: keep this comment.\n"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# -- the writer itself


def test_replaces_the_text_and_keeps_the_permission_bits(tmp_path: Path) -> None:
    path = tmp_path / "kept.txt"
    path.write_text("old\n", encoding="utf-8")
    path.chmod(0o640)
    inode = path.stat().st_ino
    write_text(path, "new \u00e9\r\n")
    assert path.read_bytes() == "new \u00e9\r\n".encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.stat().st_ino != inode  # a new file took the old one's place
    assert _leftovers(tmp_path) == []


def test_a_new_file_gets_the_usual_permission_bits(tmp_path: Path) -> None:
    umask = os.umask(0o027)
    try:
        write_text(tmp_path / "new.txt", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_a_link_is_followed_and_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real.name)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"


def test_what_cannot_be_replaced_is_written_to(tmp_path: Path) -> None:
    if not os.path.exists(os.devnull):
        pytest.skip("no null device")
    write_text(os.devnull, "discarded")
    assert os.path.exists(os.devnull) and not Path(os.devnull).is_file()


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        (lambda p: p.mkdir(), "it is a folder"),
        (lambda p: None, "No such file or directory"),
    ],
)
def test_a_path_that_cannot_be_written_is_an_error_naming_it(
    tmp_path: Path, setup: Callable[[Path], None], words: str
) -> None:
    target = tmp_path / "here" if words == "it is a folder" else tmp_path / "gone" / "x.txt"
    setup(target)
    with pytest.raises(CatalogError) as info:
        write_text(target, "x", hint="pick another place")
    assert info.value.file == str(target)
    assert words in info.value.message
    assert info.value.hint == "pick another place"


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.toml"
    path.write_text(COMMENTED + 'value = "old"\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("call", ["write", "fsync", "replace"])
def test_a_full_disk_leaves_the_old_file_whole(
    old_file: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    def full(*args: Any) -> Any:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, call, full)
    with pytest.raises(ManifestError) as info:
        write_text(old_file, 'value = "new"\n' * 1000, ManifestError)
    monkeypatch.undo()
    assert info.value.message == "cannot write: the disk is full; the file is as it was"
    assert info.value.file == str(old_file)
    assert old_file.read_text(encoding="utf-8") == COMMENTED + 'value = "old"\n'
    assert _leftovers(old_file.parent) == []


def test_an_interrupt_leaves_the_old_file_whole_and_no_temporary_file(
    old_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write

    def interrupted(fd: int, data: Any) -> int:
        real_write(fd, bytes(data[:10]))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_text(old_file, "new")
    monkeypatch.undo()
    assert old_file.read_text(encoding="utf-8").startswith(COMMENTED)
    assert _leftovers(old_file.parent) == []


# -- the files the commands write


@pytest.fixture
def stamped(tmp_path: Path) -> Path:
    """A version folder with a commented manifest whose body was edited since: stamping
    it rewrites the manifest."""
    folder = write_catalog(tmp_path / "cats", "demo", "1.0.0", [{"id": "intro", "body": "Hi."}])
    manifest = folder / "catalog.toml"
    manifest.write_text(COMMENTED + manifest.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "intro.md").write_text("Hello, edited.\n" * 50, encoding="utf-8")
    return folder


def test_stamp_on_a_full_disk_is_an_error_and_changes_nothing(
    stamped: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (stamped / "catalog.toml").read_bytes()

    def full(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    code, _, err = run_cli(capsys, "stamp", str(stamped))
    monkeypatch.undo()
    assert code == 2
    assert f"{stamped / 'catalog.toml'}: cannot write: the disk is full" in err
    assert "Traceback" not in err
    assert (stamped / "catalog.toml").read_bytes() == before
    assert _leftovers(stamped) == []


def test_stamp_keeps_the_comments_and_the_permission_bits(stamped: Path) -> None:
    manifest = stamped / "catalog.toml"
    manifest.chmod(0o600)
    assert stamp_folder(stamped)
    assert manifest.read_text(encoding="utf-8").startswith(COMMENTED)
    assert stat.S_IMODE(manifest.stat().st_mode) == 0o600
    digest = sha("Hello, edited.\n" * 50)
    assert f'sha256 = "{digest}"' in manifest.read_text(encoding="utf-8")


def _limited(limit: int) -> Callable[[], None]:
    """For ``preexec_fn``: the child may write no file past ``limit`` bytes (EFBIG, as a
    full disk gives ENOSPC; Python ignores SIGXFSZ, so the write fails instead)."""

    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _catalog(*args: str, **popen: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CATALOG_PATH",)}
    return subprocess.run(
        [sys.executable, "-m", "catalog", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **popen,
    )


@posix_only
def test_stamp_in_a_process_that_may_not_write_the_file_leaves_it_whole(stamped: Path) -> None:
    before = (stamped / "catalog.toml").read_bytes()
    done = _catalog("stamp", str(stamped), preexec_fn=_limited(len(before) // 2))
    assert done.returncode == 2, done.stderr
    assert f"{stamped / 'catalog.toml'}: cannot write: File too large" in done.stderr
    assert "the file is as it was" in done.stderr and "Traceback" not in done.stderr
    assert (stamped / "catalog.toml").read_bytes() == before
    assert _leftovers(stamped) == []


@posix_only
@pytest.mark.parametrize("command", ["lock", "diff"])
def test_minus_o_in_a_process_that_may_not_write_leaves_the_old_file_whole(
    cli_demo: Path, tmp_path: Path, command: str
) -> None:
    output = tmp_path / "out.txt"
    output.write_text(COMMENTED + "x" * 100, encoding="utf-8")
    refs = ["demo"] if command == "lock" else ["demo@1.0.0", "demo@1.0.0", "--format", "json"]
    done = _catalog(
        command, *refs, "--path", str(cli_demo), "-o", str(output), preexec_fn=_limited(64)
    )
    assert done.returncode == 2, done.stderr
    if command == "lock":
        assert f"{output}: cannot write: File too large; the file is as it was" in done.stderr
        assert "hint: check the -o path" in done.stderr
    else:  # asked for JSON, the error is JSON too
        error = json.loads(done.stderr)
        assert (error["file"], error["hint"]) == (str(output), "check the -o path")
        assert error["error"] == "cannot write: File too large; the file is as it was"
    assert output.read_text(encoding="utf-8") == COMMENTED + "x" * 100
    assert _leftovers(tmp_path) == []


# -- killed in the middle of a write

_HOOKED = textwrap.dedent(
    """
    import os, sys, time

    hooked, folder = sys.argv[1:3]
    real = getattr(os, hooked)

    def stop(*args):
        if not any(name.endswith(".tmp") for name in os.listdir(folder)):
            return real(*args)  # not the file being written (tempfile probes its folder)
        if hooked == "write":  # half the bytes reach the temporary file, then it stops
            fd, data = args
            real(fd, bytes(data[: len(data) // 2]))
        sys.stdout.write("stopped\\n")
        sys.stdout.flush()
        time.sleep(600)
        return real(*args)

    setattr(os, hooked, stop)
    from catalog.cli import main

    sys.exit(main(sys.argv[3:]))
    """
)


@pytest.fixture
def hooked(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start ``catalog ARGS`` in a child that stops, for good, at its first ``os.write``
    (half written) or ``os.replace`` (written, not yet in place) of a temporary file in
    ``folder``, and says so."""
    script = tmp_path / "hooked.py"
    script.write_text(_HOOKED, encoding="utf-8")
    started: list[subprocess.Popen[str]] = []

    def start(call: str, folder: Path, *args: str) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [sys.executable, str(script), call, str(folder), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(child)
        assert child.stdout is not None
        assert child.stdout.readline() == "stopped\n"
        return child

    yield start
    for child in started:
        if child.poll() is None:
            child.kill()
        child.communicate()


@posix_only
@pytest.mark.parametrize("call", ["write", "replace"])
def test_stamp_killed_in_the_middle_leaves_the_old_manifest_whole(
    stamped: Path, hooked: Callable[..., subprocess.Popen[str]], call: str
) -> None:
    manifest = stamped / "catalog.toml"
    before = manifest.read_bytes()
    child = hooked(call, stamped, "stamp", str(stamped))
    (temporary,) = _leftovers(stamped)
    assert temporary.startswith(".catalog.toml.")
    assert (stamped / temporary).stat().st_size > 0
    child.send_signal(signal.SIGKILL)
    assert child.wait(timeout=30) == -signal.SIGKILL
    assert manifest.read_bytes() == before
    # The old manifest is whole: stamping again works and keeps its comment.
    done = _catalog("stamp", str(stamped))
    assert done.returncode == 0, done.stderr
    assert manifest.read_text(encoding="utf-8").startswith(COMMENTED)
    assert _catalog("validate", str(stamped)).returncode == 0


@posix_only
def test_an_interrupted_stamp_removes_its_temporary_file(
    stamped: Path, hooked: Callable[..., subprocess.Popen[str]]
) -> None:
    before = (stamped / "catalog.toml").read_bytes()
    child = hooked("write", stamped, "stamp", str(stamped))
    child.send_signal(signal.SIGINT)
    assert child.wait(timeout=30) == 130
    assert (stamped / "catalog.toml").read_bytes() == before
    assert _leftovers(stamped) == []


@posix_only
def test_lock_killed_in_the_middle_leaves_the_old_lock_whole(
    cli_demo: Path, tmp_path: Path, hooked: Callable[..., subprocess.Popen[str]]
) -> None:
    lock = tmp_path / "prompts.lock"
    assert _catalog("lock", "demo", "--path", str(cli_demo), "-o", str(lock)).returncode == 0
    before = lock.read_bytes()
    child = hooked(
        "write",
        tmp_path,
        "lock",
        "--update",
        str(lock),
        "--path",
        str(cli_demo),
        "--agent",
        "explore",
    )
    child.kill()
    child.wait(timeout=30)
    assert lock.read_bytes() == before
    assert _catalog("verify", str(lock), "--path", str(cli_demo)).returncode == 0


@pytest.fixture
def overlay(tmp_path: Path) -> tuple[Path, Path]:
    """``root`` with base 1.0.0 and 2.0.0 and an overlay over 1.0.0, and the overlay."""
    root = tmp_path / "cats"
    for version in ("1.0.0", "2.0.0"):
        write_catalog(root, "base", version, [{"id": "a", "body": "Shared.", "tokens": 2}])
    folder = root / "over" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(
        COMMENTED + '[catalog]\nname = "over"\nversion = "1.0.0"\nbase = "base@==1.0.0"\n\n'
        f'[[part]]\nid = "a"\nfrom = "a"\norder = 10\ntokens = 2\nsha256 = "{sha("Shared.")}"\n',
        encoding="utf-8",
    )
    return root, folder


def test_port_writes_its_manifest_in_one_step(
    overlay: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, folder = overlay
    out = tmp_path / "ported"
    out.mkdir()
    (out / "catalog.toml").write_text("# an earlier port\n", encoding="utf-8")
    (out / "catalog.toml").chmod(0o600)
    code, _, err = run_cli(capsys, "port", str(folder), "--to", "base@2.0.0", "--path", str(root),
                           "-o", str(out))  # fmt: skip
    assert code == 0, err
    text = (out / "catalog.toml").read_text(encoding="utf-8")
    assert text.startswith(COMMENTED) and 'base = "base@==2.0.0"' in text
    assert stat.S_IMODE((out / "catalog.toml").stat().st_mode) == 0o600
    assert _leftovers(out) == []


def test_port_refuses_an_output_it_cannot_write_or_a_manifest_that_would_not_load(
    overlay: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, folder = overlay
    a_file = tmp_path / "a-file"
    a_file.write_text("kept\n", encoding="utf-8")
    args = ["port", str(folder), "--to", "base@2.0.0", "--path", str(root)]
    code, _, err = run_cli(capsys, *args, "-o", str(a_file))
    assert code == 2
    assert f"{a_file}: cannot make the folder" in err and "Traceback" not in err
    assert a_file.read_text(encoding="utf-8") == "kept\n"
    out = tmp_path / "ported"
    code, _, err = run_cli(capsys, *args, "--version", "not a version", "-o", str(out))
    assert code == 2
    assert "not a PEP 440 version" in err and "Traceback" not in err
    assert not out.exists()


def test_init_writes_through_the_same_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    code, _, err = run_cli(capsys, "init", "fresh", "--path", str(tmp_path))
    monkeypatch.undo()
    assert code == 2
    assert f"{tmp_path / 'fresh' / '1.0.0' / 'catalog.toml'}: cannot write: the disk is full" in err
    assert _leftovers(tmp_path / "fresh" / "1.0.0") == []
