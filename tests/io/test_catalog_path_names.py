"""Catalog names are names, never paths; one folder per version; a manifest's name and
version are its folders' names. Real folders, one rule at every entry."""

from __future__ import annotations

import re
import shutil
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

import catalog
from catalog import CatalogPath, ManifestError, NotFoundError
from catalog.errors import CatalogError, LockError
from catalog.io.catalog_path import check_name, load_dir, parse_ref
from catalog.io.lockfile import parse_lock
from tests.conftest import run_cli, write_catalog

HOSTILE = [
    "../outside",
    "..",
    ".",
    ".hidden",
    "a/b",
    "a\\b",
    "/abs",
    "Upper",
    "with space",
    "name\n",
    "nul\x00byte",
    "x" * 101,
    "x" * 5000,
    "",
]


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``root`` (a folder of catalogs) and, beside it, ``outside/1.0.0``: a valid catalog
    that a path name could reach (``../outside`` from the root, or its absolute path)."""
    root = tmp_path / "root"
    write_catalog(root, "demo", "1.0.0", [{"id": "a", "body": "Demo."}])
    write_catalog(tmp_path, "outside", "1.0.0", [{"id": "a", "body": "Outside."}])
    return root, tmp_path / "outside"


@pytest.mark.parametrize("name", HOSTILE)
def test_every_entry_refuses_a_name_that_is_not_one(name: str, layout: tuple[Path, Path]) -> None:
    root, _ = layout
    catalog_path = CatalogPath([root], use_env=False)
    calls: list[Callable[[], object]] = [
        lambda: catalog.load(name, paths=[root]),
        lambda: catalog_path.find(name),
        lambda: catalog_path.load(name, "==1.0.0"),
        lambda: catalog_path.versions(name),
        lambda: catalog_path.source_of(name),
        lambda: catalog_path.shadowed(name),
        lambda: check_name(name),
    ]
    if name:  # NAME@SPEC with an empty name has its own message
        calls.append(lambda: parse_ref(f"{name}@1.0.0"))
    for call in calls:
        with pytest.raises(NotFoundError, match="is not a catalog name"):
            call()


def test_a_path_name_reaches_nothing_outside_the_catalog_folders(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    catalog_path = CatalogPath([root], use_env=False)
    for name in ("../outside", str(outside.parent / "outside"), str(outside)):
        with pytest.raises(NotFoundError, match="is not a catalog name"):
            catalog_path.load(name)
    assert [str(r.version) for r in catalog_path.versions("demo")] == ["1.0.0"]


def _answer(use: Callable[[str], object], name: str) -> tuple[object, ...]:
    """What ``use(name)`` raises, but for the name it quotes first."""
    with pytest.raises(CatalogError) as info:
        use(name)
    error = info.value
    return type(error), error.message.partition("' ")[2], error.hint, error.file, error.line


def test_no_existence_oracle(layout: tuple[Path, Path], tmp_path: Path) -> None:
    """The same words for a path holding a catalog and for one holding nothing."""
    root, outside = layout
    catalog_path = CatalogPath([root], use_env=False)
    pairs = [
        (str(outside.parent / "outside"), str(tmp_path / "absent")),
        ("../outside", "../absent"),
    ]
    for there, absent in pairs:
        for use in (catalog_path.find, catalog_path.versions, catalog.load):
            assert _answer(use, there) == _answer(use, absent)


def test_names_lists_only_folders_named_like_catalogs(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write_catalog(root, "good", "1.0.0", [{"id": "a"}])
    write_catalog(root, "Bad Name", "1.0.0", [{"id": "a"}])
    catalog_path = CatalogPath([root], use_env=False, use_entry_points=False, use_bundled=False)
    assert catalog_path.names() == ["good"]


def test_list_and_validate_pass_over_a_folder_that_is_not_a_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    write_catalog(root, "good", "1.0.0", [{"id": "a"}])
    write_catalog(root, "Bad Name", "1.0.0", [{"id": "a"}])
    code, out, _ = run_cli(capsys, "list", "--path", str(root))
    assert code == 0 and "good" in out and "Bad Name" not in out
    code, out, _ = run_cli(capsys, "validate", "--path", str(root), "good")
    assert code == 0, out


def test_a_lock_naming_a_path_is_refused_at_its_line(tmp_path: Path) -> None:
    text = (
        "lock = 1\n\n[catalog]\n"
        f'name = "{tmp_path}"\n'
        'version = "1.0.0"\n'
        f'manifest_sha256 = "{"0" * 64}"\n\n[parts]\n'
    )
    with pytest.raises(LockError) as info:
        parse_lock(text, "x.lock")
    assert info.value.line == 4
    assert "is not a catalog name" in str(info.value)


def test_an_overlay_base_naming_a_path_is_refused_at_its_line(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    root, outside = layout
    folder = root / "overlay" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(
        '[catalog]\nname = "overlay"\nversion = "1.0.0"\n'
        f'base = "{outside}@1.0.0"\n\n'
        f'[[part]]\nid = "a"\nfrom = "a"\norder = 10\ntokens = 1\nsha256 = "{"0" * 64}"\n',
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as info:
        CatalogPath([root], use_env=False).load("overlay")
    assert "is not a catalog name" in str(info.value)
    assert info.value.key == "catalog.base"
    assert info.value.line is not None


@pytest.mark.parametrize("name", ["x" * 5000, "Upper", "a@b@c"])
def test_the_command_line_refuses_such_names_without_a_traceback(
    name: str, layout: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = layout
    for command in ("show", "lock", "validate", "assemble"):
        code, _, err = run_cli(capsys, command, "--path", str(root), name)
        assert code == 2, (command, err)
        assert "Traceback" not in err
        assert "not a catalog name" in err or "not a PEP 440" in err


def test_a_huge_specifier_is_refused(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    with pytest.raises(NotFoundError, match="version specifier is 100001 characters"):
        catalog.load("demo", "=" + "1" * 100_000, paths=[root])


# -- one folder per version


def test_two_folders_of_one_version_are_an_error_naming_both(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write_catalog(root, "twin", "1.0", [{"id": "a", "body": "Short."}])
    write_catalog(root, "twin", "1.0.0", [{"id": "a", "body": "Long."}])
    catalog_path = CatalogPath([root], use_env=False)
    for call in (lambda: catalog_path.find("twin"), lambda: catalog_path.versions("twin")):
        with pytest.raises(ManifestError) as info:
            call()
        assert "'1.0' and '1.0.0'" in info.value.message
        assert info.value.file == str(root / "twin")
        assert "remove or rename one" in (info.value.hint or "")
    with pytest.raises(ManifestError, match="same version"):
        catalog.load("twin", "==1.0.0", paths=[root])


def test_three_spellings_of_one_version(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write_catalog(root, "twin", "2", [{"id": "a"}])
    write_catalog(root, "twin", "2.0.0.0", [{"id": "a"}])
    with pytest.raises(ManifestError, match=re.escape("'2' and '2.0.0.0'")):
        catalog.load("twin", paths=[root])


def test_a_folder_of_the_same_version_without_a_manifest_is_passed_over(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "twin" / "1.0").mkdir(parents=True)
    write_catalog(root, "twin", "1.0.0", [{"id": "a", "body": "The one."}])
    assert catalog.load("twin", paths=[root]).assemble().text == "The one."
    (root / "twin" / "1.0.0" / "catalog.toml").rename(root / "twin" / "1.0" / "catalog.toml")
    assert [str(r.version) for r in CatalogPath([root], use_env=False).versions("twin")] == ["1.0"]


def test_validate_and_list_report_two_folders_of_one_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    write_catalog(root, "twin", "1.0", [{"id": "a"}])
    write_catalog(root, "twin", "1.0.0", [{"id": "a"}])
    write_catalog(root, "fine", "1.0.0", [{"id": "a"}])
    code, out, _ = run_cli(capsys, "validate", "--path", str(root), "twin", "fine")
    assert code == 1
    assert "twin: error:" in out and "'1.0' and '1.0.0'" in out
    assert "1 error(s)" in out and "fine@1.0.0: error" not in out
    code, out, err = run_cli(capsys, "validate", str(root / "twin" / "1.0.0"))
    assert code == 1 and "'1.0' and '1.0.0'" in out
    code, out, err = run_cli(capsys, "list", "--path", str(root))
    assert code == 2
    assert "fine" in out
    assert "'1.0' and '1.0.0'" in err and "Traceback" not in err


def test_across_search_folders_the_first_that_has_the_name_provides_every_version(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    write_catalog(first, "kept", "1.0", [{"id": "a", "body": "First."}])
    write_catalog(second, "kept", "1.0.0", [{"id": "a", "body": "Second."}])
    write_catalog(second, "kept", "2.0.0", [{"id": "a", "body": "Second, newer."}])
    catalog_path = CatalogPath([first, second], use_env=False)
    # Not two folders of one catalog: the second folder's "kept" is hidden whole.
    assert catalog_path.load("kept").assemble().text == "First."
    assert [str(r.version) for r in catalog_path.versions("kept")] == ["1.0"]
    with pytest.raises(NotFoundError) as info:
        catalog_path.load("kept", "==2.0.0")
    assert f"path {second}" in (info.value.hint or "")
    assert f"hidden by path {first}" in (info.value.hint or "")


# -- a manifest's name is its folder's name


@pytest.fixture
def renamed_copy(tmp_path: Path) -> Path:
    """The bundled coding-agent's newest version copied to ``mine/foo/VERSION``, one body
    edited and stamped: the folder says foo, the manifest still says coding-agent."""
    bundled = resources.files("catalog").joinpath("parts", "coding-agent")
    newest = max(
        (p.name for p in bundled.iterdir() if p.is_dir() and p.name[0].isdigit()),
        key=lambda v: tuple(int(x) for x in v.split(".")),
    )
    target = tmp_path / "mine" / "foo" / newest
    with resources.as_file(bundled.joinpath(newest)) as source:
        shutil.copytree(source, target)
    manifest = tomllib.loads((target / "catalog.toml").read_text(encoding="utf-8"))
    body = target / manifest["part"][0]["file"]
    body.write_text(body.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    from catalog.io.stamp import stamp_folder

    assert stamp_folder(target)
    return target


def test_a_name_that_is_not_its_folder_is_an_error_at_load(renamed_copy: Path) -> None:
    mine = renamed_copy.parent.parent
    with pytest.raises(ManifestError) as info:
        catalog.load("foo", paths=[mine])
    assert "name 'coding-agent' does not match its catalog folder 'foo'" in info.value.message
    assert info.value.file == str(renamed_copy / "catalog.toml")
    assert info.value.key == "catalog.name"
    text = (renamed_copy / "catalog.toml").read_text(encoding="utf-8").splitlines()
    assert info.value.line is not None
    assert text[info.value.line - 1].startswith("name =")
    # A folder handed over in Python is loaded as it is, as with a version mismatch.
    assert load_dir(renamed_copy).name == "coding-agent"


def test_a_name_that_is_not_its_folder_stops_validate_show_and_lock(
    renamed_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mine = str(renamed_copy.parent.parent)
    code, out, _ = run_cli(capsys, "validate", "--path", mine, "foo")
    assert code == 1 and "does not match its catalog folder 'foo'" in out
    for args in (["show", "foo"], ["show", str(renamed_copy)], ["lock", "foo"]):
        code, out, err = run_cli(capsys, *args, "--path", mine)
        assert code == 2, args
        assert "does not match its catalog folder 'foo'" in err
    code, _, err = run_cli(capsys, "lock", "foo", "--path", mine, "-o", str(tmp_path / "x.lock"))
    assert code == 2 and not (tmp_path / "x.lock").exists()


def test_the_server_verifies_no_posted_lock_naming_a_folder(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    """The same 400 for a folder holding a catalog as for one holding nothing."""
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from fastapi.testclient import TestClient

    from catalog.server.app import create_app
    from catalog.server.state import ServerSettings

    root, outside = layout
    settings = ServerSettings(
        paths=(str(root),), store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    )

    def lock_naming(name: str) -> str:
        return (
            f'lock = 1\n[catalog]\nname = "{name}"\nversion = "1.0.0"\n'
            f'manifest_sha256 = "{"0" * 64}"\n[parts]\na = "{"0" * 64}"\n'
        )

    answers = []
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        for name in (str(outside.parent / "outside"), str(tmp_path / "absent"), "../outside"):
            response = client.post("/api/verify", json={"lock": lock_naming(name)})
            assert response.status_code == 400, response.text
            error = response.json()["error"]
            assert "is not a catalog name" in error["message"]
            answers.append((error["message"].partition("' ")[2], error["hint"]))
    assert len(set(answers)) == 1
