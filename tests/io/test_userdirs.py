"""The user's own folders: where caches go, made for their owner alone, and trusted only
while no one else may write them."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from catalog.io.userdirs import private_folder, user_cache_dir


def test_the_cache_folder_follows_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert user_cache_dir() == tmp_path / "c" / "prompt-catalog"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not a place: ignored
    assert user_cache_dir() != Path("relative/path") / "prompt-catalog"


def test_a_new_folder_is_its_owners_alone(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    assert private_folder(folder, check=2) is True
    for made in (folder, folder.parent):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_a_folder_others_may_write_or_a_link_is_not_trusted(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    private_folder(folder, check=2)
    folder.parent.chmod(0o777)
    assert private_folder(folder, check=2) is False
    assert private_folder(folder, check=1) is True  # only the folder itself checked
    folder.parent.chmod(0o700)
    link = tmp_path / "link"
    link.symlink_to(folder)
    assert private_folder(link, check=1) is False


def test_a_folder_that_cannot_be_made_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        private_folder(tmp_path / "file" / "sub")
