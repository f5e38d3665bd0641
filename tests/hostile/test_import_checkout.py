"""Importing a hostile checkout: no link leaves it, reads are bounded, nothing blocks.

Real symbolic links to a private file in a fake home folder, real named pipes
and sparse files over the loader's size limit, all made in ``tmp_path``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import catalog
from catalog.cli import main
from catalog.errors import ImporterError
from catalog.importers.piebald.read import read_checkout
from catalog.importers.piebald.write import import_releases
from catalog.io.textfile import MAX_FILE_BYTES
from tests._support import piebald_data as data

SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n-----END OPENSSH PRIVATE KEY-----\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fake home folder holding a private key."""
    folder = tmp_path / "home"
    (folder / ".ssh").mkdir(parents=True)
    (folder / ".ssh" / "id_ed25519").write_text(SECRET)
    return folder


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return data.write_checkout(tmp_path / "checkout", "2.1.38")


@pytest.mark.parametrize("name", ["LICENSE", "README.md", "system-prompts/data-key.md"])
def test_a_link_out_of_the_checkout_is_refused(
    name: str, checkout: Path, home: Path, tmp_path: Path
) -> None:
    path = checkout / name
    path.unlink(missing_ok=True)
    path.symlink_to(home / ".ssh" / "id_ed25519")
    with pytest.raises(ImporterError) as info:
        read_checkout(checkout)
    assert info.value.file == str(path)
    assert f"a link to {home / '.ssh' / 'id_ed25519'}, outside the checkout" in info.value.message
    out = tmp_path / "out"
    code = main(["import", "piebald", str(checkout), "--name", "cc", "--out", str(out)])
    assert code == 2
    assert not out.exists()  # refused before anything was written


def test_a_prompts_folder_linked_out_of_the_checkout_is_refused(checkout: Path, home: Path) -> None:
    prompts = checkout / "system-prompts"
    for file in prompts.iterdir():
        file.unlink()
    prompts.rmdir()
    (home / ".ssh" / "key.md").write_text(SECRET)
    prompts.symlink_to(home / ".ssh")
    with pytest.raises(ImporterError) as info:
        read_checkout(checkout)
    assert info.value.file == str(prompts)
    assert "outside the checkout" in info.value.message


def test_a_link_inside_the_checkout_is_read(checkout: Path, tmp_path: Path) -> None:
    (checkout / "LICENSE.txt").write_text("Licence text.\n")
    (checkout / "LICENSE").unlink()
    (checkout / "LICENSE").symlink_to("LICENSE.txt")
    (checkout / "shared").mkdir()
    (checkout / "system-prompts" / "skill-debugging.md").rename(checkout / "shared" / "debug.md")
    (checkout / "system-prompts" / "skill-debugging.md").symlink_to("../shared/debug.md")
    release = read_checkout(checkout)
    assert release.license == "Licence text.\n"
    assert "skill-debugging.md" in {p.file for p in release.parts}
    import_releases([release], name="cc", out=tmp_path / "out")
    debugging = catalog.load("cc", paths=[tmp_path / "out"]).part("skill-debugging")
    assert debugging.body == data.DEBUGGING.split("\n-->\n", 1)[1]


def test_a_link_loop_or_a_dangling_link_is_an_error(checkout: Path) -> None:
    loop = checkout / "system-prompts" / "data-loop.md"
    loop.symlink_to("data-loop.md")
    with pytest.raises(ImporterError) as info:
        read_checkout(checkout)
    assert info.value.file == str(loop)
    loop.unlink()
    loop.symlink_to("nowhere.md")
    with pytest.raises(ImporterError) as info:
        read_checkout(checkout)
    assert info.value.file == str(loop)


@pytest.mark.parametrize("name", ["LICENSE", "README.md", "system-prompts/data-pipe.md"])
def test_a_named_pipe_is_refused_without_blocking(name: str, checkout: Path) -> None:
    path = checkout / name
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    with pytest.raises(ImporterError) as info:
        read_checkout(checkout)  # opening a FIFO for reading would wait for a writer
    assert info.value.file == str(path)
    assert "named pipe" in info.value.message


def test_a_part_over_the_loaders_limit_is_refused(checkout: Path) -> None:
    big = checkout / "system-prompts" / "data-huge.md"
    with big.open("wb") as stream:  # sparse: no disk is used for the hole
        stream.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(ImporterError) as info:
        read_checkout(checkout)
    assert info.value.file == str(big)
    assert info.value.message == (
        f"the file is {MAX_FILE_BYTES + 1} bytes, more than the {MAX_FILE_BYTES} bytes "
        "the catalog loader reads"
    )
    big.unlink()
    with big.open("wb") as stream:  # at the limit it is read
        stream.write(b"<!--\nname: Huge\n-->\n")
        stream.truncate(MAX_FILE_BYTES)
    (part,) = [p for p in read_checkout(checkout).parts if p.file == "data-huge.md"]
    assert len(part.body) == MAX_FILE_BYTES - len("<!--\nname: Huge\n-->\n")


def test_a_folder_named_like_a_part_is_not_a_part(checkout: Path) -> None:
    (checkout / "system-prompts" / "notes.md").mkdir()
    assert "notes.md" not in {p.file for p in read_checkout(checkout).parts}
