"""Importing a hostile git repository: nothing it configures runs, nothing outside is read.

The repositories are real ones, made with the ``git`` command in the tests only.
Every program their configuration names writes a marker file; after a real
``catalog import piebald --git`` (in a subprocess, and through the library) no
marker may exist. Then ``git`` itself is run on the same repository, to show
that each vector is live: the same markers appear.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import catalog
from catalog.errors import ImporterError
from catalog.importers import _gitobjects, gitrepo
from catalog.importers._gitobjects import DeclaredSizes
from catalog.importers.piebald.read import read_history
from catalog.importers.piebald.write import import_releases
from tests._support import piebald_data as data

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")

RELEASES = ["2.1.36", "2.1.37", "2.1.38"]


def run_git(repo: Path, *args: str, stdin: str = "", terminal: bool = False) -> str:
    """Run git as a person would, obeying the repository's configuration (on a
    ``terminal``, where pagers run); its output, whatever its status."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    env.update(GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com")
    env.update(GIT_COMMITTER_NAME="A", GIT_COMMITTER_EMAIL="a@example.com")
    for name in ("GIT_PAGER", "PAGER", "GIT_EDITOR", "VISUAL", "EDITOR", "GIT_ASKPASS"):
        env.pop(name, None)
    parent, child = os.openpty()
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            env=env,
            input=stdin.encode(),
            stdout=child if terminal else subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=False,
            timeout=60,
        )
    finally:
        os.close(child)
        os.close(parent)
    return done.stdout.decode() if done.stdout else ""


def program(folder: Path, markers: Path, name: str) -> str:
    """A shell script that writes the marker ``name``; its path."""
    script = folder / f"{name}.sh"
    script.write_text(f"#!/bin/sh\necho ran > '{markers / name}'\nexit 1\n")
    script.chmod(0o755)
    return str(script)


def sign_head(repo: Path) -> None:
    """Replace HEAD by the same commit carrying a (bogus) signature, which
    ``log.showSignature`` makes git verify with ``gpg.program``."""
    raw = data.git(repo, "cat-file", "commit", "HEAD")
    head, _, message = raw.partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----"
    signed = f"{head}\n{signature}\n\n{message}"
    oid = run_git(repo, "hash-object", "-t", "commit", "-w", "--stdin", stdin=signed)
    data.git(repo, "update-ref", "HEAD", oid.strip())


# name -> the git command that runs the program of that name
CONTROLS: dict[str, list[str]] = {
    "gpg": ["log", "-1"],
    "pager-log": ["log", "-1"],
    "pager-core": ["show", "--stat", "-1"],
    "fsmonitor": ["status"],
    "textconv": ["show", "--no-ext-diff", "HEAD~1"],  # diff.external would win
    "smudge": ["checkout-index", "-f", "-a"],
    "post-checkout": ["checkout", "-q", "-B", "elsewhere"],
    "include-ssh": ["ls-remote", "ssh://example.invalid/repo"],
    "includeif-diff": ["diff", "HEAD~2", "HEAD~1"],
    "alias": ["hostile"],
    "editor": ["commit", "--amend", "--no-verify"],
    "credential": ["credential", "fill"],
}


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A history whose configuration names a program for every vector; (repo, markers)."""
    repo = data.make_history(tmp_path / "upstream")
    markers = tmp_path / "markers"
    markers.mkdir()
    bin_ = tmp_path / "bin"
    bin_.mkdir()

    def run(name: str) -> str:
        return program(bin_, markers, name)

    sign_head(repo)
    dotgit = repo / ".git"
    (tmp_path / "include.cfg").write_text(f"[core]\n\tsshCommand = {run('include-ssh')}\n")
    (tmp_path / "includeif.cfg").write_text(f"[diff]\n\texternal = {run('includeif-diff')}\n")
    with (dotgit / "config").open("a") as config:
        config.write(
            f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {run('gpg')}\n"
            f"[core]\n\tpager = {run('pager-core')}\n\tfsmonitor = {run('fsmonitor')}\n"
            f"\teditor = {run('editor')}\n"
            f"[pager]\n\tlog = {run('pager-log')}\n"
            f'[diff "evil"]\n\ttextconv = {run("textconv")}\n'
            f'[filter "evil"]\n\tsmudge = {run("smudge")}\n\tclean = {run("smudge")}\n'
            f"[alias]\n\thostile = !{run('alias')}\n"
            f"[credential]\n\thelper = !{run('credential')}\n"
            f"[include]\n\tpath = {tmp_path / 'include.cfg'}\n"
            f'[includeIf "gitdir:{repo}/"]\n\tpath = {tmp_path / "includeif.cfg"}\n'
        )
    (dotgit / "info").mkdir(exist_ok=True)
    (dotgit / "info" / "attributes").write_text("*.md diff=evil filter=evil\n")
    for hook in ("post-checkout", "pre-commit", "post-commit", "reference-transaction"):
        shutil.copy(run("post-checkout"), dotgit / "hooks" / hook)
    return repo, markers


def run_catalog(*command: str) -> None:
    """Run ``catalog`` in a process of its own, as a person would; it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "catalog", *command],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def assert_imported(out: Path) -> None:
    for version in RELEASES:
        cat = catalog.load("cc", f"=={version}", paths=[out])
        files = data.FILES[version].items()
        expected = {f.removesuffix(".md"): t.split("\n-->\n", 1)[1] for f, t in files}
        assert {p.id: p.body for p in cat.parts} == expected


def test_no_program_the_repository_names_runs(hostile: tuple[Path, Path], tmp_path: Path) -> None:
    repo, markers = hostile
    out = tmp_path / "out"
    run_catalog("import", "piebald", "--git", str(repo), "--name", "cc", "--out", str(out / "cli"))
    assert_imported(out / "cli")
    report = import_releases(read_history(repo), name="cc", out=out / "library")
    assert [v.version for v in report.versions] == RELEASES
    assert_imported(out / "library")
    assert sorted(p.name for p in markers.iterdir()) == []

    # Each vector is live: git itself runs the program it names.
    for name, command in CONTROLS.items():
        stdin = "protocol=https\nhost=example.invalid\n\n" if name == "credential" else ""
        run_git(repo, *command, stdin=stdin, terminal=name.startswith("pager"))
        assert (markers / name).exists(), (name, command)


def test_import_git_runs_nothing_the_repository_names(
    hostile: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, markers = hostile
    with gitrepo.GitRepo(repo) as git:  # the release commits, read without git
        commits = {e.subject.split()[0]: e.oid for e in git.log() if e.subject.startswith("v")}
    for tag, oid in commits.items():  # tags written as files: git would run its hooks
        (repo / ".git" / "refs" / "tags" / tag).write_text(oid + "\n")
    out = tmp_path / "out"
    command = ["import", "git", str(repo), "--name", "cc", "--out", str(out), "--tags", "v*"]
    run_catalog(*command, "--include", "system-prompts/*.md", "--root", "system-prompts")
    for version in RELEASES:
        cat = catalog.load("cc", f"=={version}", paths=[out])
        files = data.FILES[version].items()
        assert {p.id: p.body for p in cat.parts} == {f.removesuffix(".md"): t for f, t in files}
    assert sorted(p.name for p in markers.iterdir()) == []


def test_a_configuration_including_a_named_pipe_is_never_opened(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    os.mkfifo(tmp_path / "pipe")  # git would wait here for a writer
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {tmp_path / 'pipe'}\n")
    assert [r.version for r in read_history(repo)] == RELEASES


def test_a_git_file_pointing_elsewhere_is_followed(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    store = tmp_path / "elsewhere" / "repo.git"
    store.parent.mkdir()
    (repo / ".git").rename(store)
    (repo / ".git").write_text(f"gitdir: {store}\n")
    report = import_releases(read_history(repo), name="cc", out=tmp_path / "out")
    assert [v.version for v in report.versions] == RELEASES
    assert_imported(tmp_path / "out")


@pytest.mark.parametrize(
    ("pointer", "message"),
    [
        ("gitdir: {missing}\n", ".git points to {missing}, which is not a folder"),
        ("not a pointer\n", "the .git file does not name a git folder (`gitdir: PATH`)"),
    ],
)
def test_a_git_file_pointing_nowhere(pointer: str, message: str, tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    repo.mkdir()
    missing = tmp_path / "missing"
    (repo / ".git").write_text(pointer.format(missing=missing))
    with pytest.raises(ImporterError) as info:
        list(read_history(repo))
    assert info.value.message == message.format(missing=missing)
    assert info.value.file == str(repo / ".git")


def test_a_worktree_reads_its_own_head(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    release = data.git(repo, "log", "--format=%H", "--grep=v2.1.37").strip()
    data.git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), release)
    assert (tmp_path / "wt" / ".git").is_file()
    releases = list(read_history(tmp_path / "wt"))
    assert [r.version for r in releases] == ["2.1.36", "2.1.37"]


def test_bare_and_packed_repositories(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    bare = tmp_path / "bare.git"
    data.git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    data.git(bare, "gc", "-q", "--aggressive")
    assert not list((bare / "objects").glob("??/*"))  # every object is in a pack
    assert (bare / "packed-refs").is_file()
    report = import_releases(read_history(bare), name="cc", out=tmp_path / "out")
    assert [v.version for v in report.versions] == RELEASES
    assert_imported(tmp_path / "out")


def test_a_shallow_clone_stops_where_it_does(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    shallow = tmp_path / "shallow"
    data.git(tmp_path, "clone", "-q", "--depth", "2", f"file://{repo}", str(shallow))
    assert [r.version for r in read_history(shallow)] == ["2.1.38"]


def deltas(tmp_path: Path) -> tuple[Path, set[str]]:
    """A packed repository whose blobs are stored as chains of deltas; its blob ids."""
    repo = tmp_path / "deltas"
    repo.mkdir()
    data.git(repo, "init", "-q")
    text = "".join(f"line {i} of a file that changes a little each time\n" for i in range(300))
    for i in range(40):
        text = text.replace(f"line {i} ", f"line {i} (edited) ")
        (repo / "f.txt").write_text(text)
        data.git(repo, "add", "-A")
        data.git(repo, "commit", "-q", "-m", f"edit {i}")
    data.git(repo, "gc", "-q", "--aggressive")
    (index,) = (repo / ".git" / "objects" / "pack").glob("*.idx")
    listing = data.git(repo, "verify-pack", "-v", str(index))
    assert "chain length = 2" in listing  # deltas over deltas
    words = data.git(repo, "log", "--format=", "--raw", "--no-abbrev").split()
    return repo, {word for word in words if len(word) == 40 and word != "0" * 40}


def test_declared_sizes_match_git_through_delta_chains(tmp_path: Path) -> None:
    repo, oids = deltas(tmp_path)
    assert len(oids) >= 40  # one version of the file per commit, at least
    with gitrepo.GitRepo(repo) as git:
        sizes = DeclaredSizes(git._store, repo / ".git" / "objects")
        for oid in oids:
            expected = int(data.git(repo, "cat-file", "-s", oid))
            assert sizes.check(oid, 10**9) == expected
            assert len(git.blob(oid, oid)) == expected
        sizes.close()


def test_long_or_costly_delta_chains_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, oids = deltas(tmp_path)
    largest = max(int(data.git(repo, "cat-file", "-s", oid)) for oid in oids)
    for limit, message in (
        (("MAX_CHAIN_LINKS", 1), "it is stored as more than 1 deltas"),
        (("MAX_CHAIN_BYTES", largest + 1), f"more than {largest + 1} bytes of deltas and bases"),
    ):
        with monkeypatch.context() as patch:
            patch.setattr(_gitobjects, *limit)
            with gitrepo.GitRepo(repo) as git:
                refused = []
                for oid in oids:
                    try:
                        git.blob(oid, oid)
                    except ImporterError as exc:
                        refused.append(exc.message)
            assert refused, limit
            assert all(message in text for text in refused), refused[0]


def test_an_object_over_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = data.make_history(tmp_path / "upstream")
    big = repo / "system-prompts" / "data-big.md"
    text = "<!--\nname: Big\n-->\n" + "word " * 1000
    big.write_text(text)
    data.git(repo, "add", "-A")
    data.git(repo, "commit", "-q", "-m", "v2.1.39 (+1000 tokens)")
    oid = data.git(repo, "rev-parse", "HEAD:system-prompts/data-big.md").strip()
    monkeypatch.setattr(gitrepo, "MAX_OBJECT_BYTES", 4000)
    # Loose, then packed: the size is read from the headers either way.
    for pack in (False, True):
        if pack:
            data.git(repo, "gc", "-q")
        with pytest.raises(ImporterError) as info:
            list(read_history(repo))
        assert info.value.file == str(repo)
        assert f"git object {oid} (" in info.value.message
        size = len(text.encode())
        assert f"is refused: it is {size} bytes, more than the limit of 4000 bytes" in str(
            info.value
        )
        assert "--versions '!=2.1.39'" in (info.value.hint or "")


def test_a_decompression_bomb_is_refused_from_its_header(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    oid = data.git(repo, "rev-parse", "HEAD:system-prompts/skill-debugging.md").strip()
    loose = repo / ".git" / "objects" / oid[:2] / oid[2:]
    assert loose.is_file()
    # Ten gigabytes declared: inflating it would exhaust the memory.
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob 10000000000\0" + b"\0" * 1_000_000, 9))
    with pytest.raises(ImporterError, match="it is 10000000000 bytes, more than the limit"):
        list(read_history(repo))


@pytest.mark.parametrize("damage", ["missing", "garbage", "truncated pack"])
def test_missing_or_damaged_objects_name_the_repository(tmp_path: Path, damage: str) -> None:
    repo = data.make_history(tmp_path / "upstream")
    oid = data.git(repo, "rev-parse", "HEAD:system-prompts/skill-debugging.md").strip()
    loose = repo / ".git" / "objects" / oid[:2] / oid[2:]
    if damage == "missing":
        loose.unlink()
    elif damage == "garbage":
        loose.chmod(0o644)
        loose.write_bytes(b"this is not a git object")
    else:
        data.git(repo, "gc", "-q")
        (pack,) = (repo / ".git" / "objects" / "pack").glob("*.pack")
        pack.chmod(0o644)
        pack.write_bytes(pack.read_bytes()[:200])
    with pytest.raises(ImporterError) as info:
        list(read_history(repo))
    assert info.value.file == str(repo)
    assert "fresh clone" in (info.value.hint or "")
    if damage == "missing":
        assert f"git object {oid} is missing" in info.value.message


def test_links_pipes_and_borrowed_objects_in_the_git_folder_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "home" / "notes.txt"
    outside.parent.mkdir()
    outside.write_text("private\n")

    def link_a_ref(git: Path) -> Path:
        target = git / "refs" / "heads" / "main"
        target.unlink()
        target.symlink_to(outside)
        return target

    def pipe_a_ref(git: Path) -> Path:
        fifo = git / "refs" / "heads" / "pipe"
        os.mkfifo(fifo)
        return fifo

    def link_objects(git: Path) -> Path:
        folder = git / "objects" / "pack"
        shutil.rmtree(folder)
        folder.symlink_to(outside.parent)
        return folder

    def pipe_head(git: Path) -> Path:
        (git / "HEAD").unlink()
        os.mkfifo(git / "HEAD")
        return git / "HEAD"

    def borrow(git: Path) -> Path:
        alternates = git / "objects" / "info" / "alternates"
        alternates.parent.mkdir(exist_ok=True)
        alternates.write_text(f"{outside.parent}\n")
        return alternates

    for number, damage in enumerate((link_a_ref, pipe_a_ref, link_objects, pipe_head, borrow)):
        repo = data.make_history(tmp_path / f"repo{number}")
        path = damage(repo / ".git")
        with pytest.raises(ImporterError) as info:
            list(read_history(repo))
        assert info.value.file == str(path), damage.__name__
        assert "fresh clone" in (info.value.hint or "") or "alternates" in str(path)


def test_head_naming_a_file_outside_refs_is_refused(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    (repo / ".git" / "HEAD").write_text("ref: ../../outside\n")
    with pytest.raises(ImporterError) as info:
        list(read_history(repo))
    assert "the ref '../../outside' is not a ref name git allows" in info.value.message


def test_symbolic_links_in_a_release_tree_are_never_followed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    for name in ("system-prompts/data-key.md", "LICENSE", "README.md"):
        repo = data.make_history(tmp_path / name.replace("/", "-"))
        (repo / name).unlink(missing_ok=True)
        (repo / name).symlink_to(home / ".ssh" / "id_rsa")
        data.git(repo, "add", "-A")
        data.git(repo, "commit", "-q", "-m", "v2.1.39 (+0 tokens)")
        assert data.git(repo, "ls-tree", "HEAD", name).startswith("120000 ")
        with pytest.raises(ImporterError) as info:
            import_releases(read_history(repo), name="cc", out=tmp_path / "out" / name[:4])
        assert info.value.file is not None and info.value.file.endswith(f":{name}")
        assert "a symbolic link: the importer never follows links" in info.value.message
        assert "release 2.1.39" in info.value.message
        written = tmp_path / "out" / name[:4] / "cc"
        assert "PRIVATE KEY" not in "".join(
            p.read_text() for p in written.rglob("*") if p.is_file()
        )


def test_a_release_tree_with_a_folder_or_submodule_named_md(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    (repo / "system-prompts" / "notes.md").mkdir()
    (repo / "system-prompts" / "notes.md" / "x.txt").write_text("x")
    data.git(repo, "add", "-A")
    data.git(repo, "commit", "-q", "-m", "v2.1.39 (+0 tokens)")
    (last,) = [r for r in read_history(repo) if r.version == "2.1.39"]
    assert "notes.md" not in {p.file for p in last.parts}


def test_unreadable_repository_files_do_not_hang(tmp_path: Path) -> None:
    repo = data.make_history(tmp_path / "upstream")
    packed = repo / ".git" / "packed-refs"
    packed.unlink(missing_ok=True)
    os.mkfifo(packed)
    assert stat.S_ISFIFO(packed.lstat().st_mode)
    with pytest.raises(ImporterError, match="a named pipe, a device or a socket") as info:
        list(read_history(repo))
    assert info.value.file == str(packed)
