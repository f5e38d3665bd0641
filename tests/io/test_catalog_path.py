"""Finding catalogs: sources, version selection, laziness, clear errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import catalog
from catalog.errors import BadReferenceError, NotFoundError, UsageError
from catalog.io.catalog_path import CatalogPath, parse_ref, parse_spec
from tests.conftest import write_catalog


@pytest.fixture
def three_versions(make_catalog: Callable[..., Path], catalogs_root: Path) -> Path:
    for version in ("1.0.0", "1.1.0", "1.2.0rc1", "2.0.0"):
        make_catalog("multi", version, [{"id": "intro", "body": f"Version {version}."}])
    return catalogs_root


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (None, "2.0.0"),
        ("==1.1.0", "1.1.0"),
        ("1.0.0", "1.0.0"),
        ("~=1.0", "1.1.0"),
        (">=1,<2", "1.1.0"),
        ("<1.1", "1.0.0"),
        ("==1.2.0rc1", "1.2.0rc1"),
        ("!=2.0.0", "1.1.0"),
    ],
)
def test_version_selection(three_versions: Path, spec: str | None, expected: str) -> None:
    cat = catalog.load("multi", spec, paths=[three_versions])
    assert str(cat.version) == expected
    assert cat.assemble().text == f"Version {expected}."


def test_unknown_catalog_lists_what_is_available(three_versions: Path) -> None:
    with pytest.raises(NotFoundError) as info:
        catalog.load("mutli", paths=[three_versions])
    assert "no catalog named 'mutli'" in str(info.value)
    assert "multi" in (info.value.hint or "")
    assert "coding-agent" in (info.value.hint or "")


def test_unsatisfiable_spec_lists_versions(three_versions: Path) -> None:
    with pytest.raises(NotFoundError) as info:
        catalog.load("multi", ">=3", paths=[three_versions])
    assert "1.0.0, 1.1.0, 1.2.0rc1, 2.0.0" in (info.value.hint or "")


def test_bad_specifier(three_versions: Path) -> None:
    with pytest.raises(NotFoundError, match="not a PEP 440"):
        catalog.load("multi", "~~1", paths=[three_versions])


def test_listing_versions_reads_no_bodies(three_versions: Path) -> None:
    # Bodies are removed rather than made unreadable: permissions do not stop root.
    for body in three_versions.glob("multi/*/*.md"):
        body.unlink()
    refs = CatalogPath([three_versions]).versions("multi")
    assert [str(r.version) for r in refs] == ["1.0.0", "1.1.0", "1.2.0rc1", "2.0.0"]
    assert [r.manifest().catalog.version for r in refs][-1] == "2.0.0"
    with pytest.raises(catalog.ManifestError, match="does not exist"):
        refs[-1].load()


def test_explicit_folders_win_over_the_environment_and_the_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import write_catalog

    env, given = tmp_path / "env", tmp_path / "path"
    write_catalog(env, "twice", "1.0.0", [{"id": "a", "body": "From CATALOG_PATH."}])
    write_catalog(env, "twice", "0.9.0", [{"id": "a", "body": "Only in CATALOG_PATH."}])
    write_catalog(given, "twice", "1.0.0", [{"id": "a", "body": "From --path."}])
    write_catalog(env, "only-env", "1.0.0", [{"id": "a", "body": "Env alone."}])
    write_catalog(given, "coding-agent", "1.1.0", [{"id": "a", "body": "Shadow from --path."}])
    monkeypatch.setenv("CATALOG_PATH", str(env))
    assert catalog.load("twice", "==1.0.0", paths=[given]).assemble().text == "From --path."
    # The first place that has a name provides all its versions: no mixing.
    with pytest.raises(NotFoundError, match=r"available versions: 1\.0\.0"):
        catalog.load("twice", "==0.9.0", paths=[given])
    assert catalog.load("twice", "==0.9.0").assemble().text == "Only in CATALOG_PATH."
    assert catalog.load("only-env", paths=[given]).source == f"path {env}"
    shadowed = catalog.load("coding-agent", paths=[given])
    assert (shadowed.source, shadowed.assemble().text) == (f"path {given}", "Shadow from --path.")
    with pytest.raises(NotFoundError, match="'coding-agent' in bundled is hidden by path"):
        catalog.load("coding-agent", "==1.0.0", paths=[given])
    monkeypatch.delenv("CATALOG_PATH")
    assert catalog.load("coding-agent", "==1.0.0").source == "bundled"


def test_the_earlier_of_two_given_folders_wins(tmp_path: Path) -> None:
    from tests.conftest import write_catalog

    write_catalog(tmp_path / "a", "twice", "1.0.0", [{"id": "a", "body": "From a."}])
    write_catalog(tmp_path / "b", "twice", "1.0.0", [{"id": "a", "body": "From b."}])
    folders = [tmp_path / "a", tmp_path / "b"]
    assert catalog.load("twice", paths=folders).assemble().text == "From a."
    assert catalog.load("twice", paths=folders[::-1]).assemble().text == "From b."


def test_loading_reads_only_the_chosen_version(three_versions: Path) -> None:
    for version in ("1.0.0", "1.1.0", "1.2.0rc1"):
        (three_versions / "multi" / version / "catalog.toml").write_text("not toml [[[")
    assert str(catalog.load("multi", paths=[three_versions]).version) == "2.0.0"


def test_folder_and_version_must_agree(
    make_catalog: Callable[..., Path], catalogs_root: Path
) -> None:
    folder = make_catalog("odd", "1.0.0", [{"id": "a"}])
    folder.rename(folder.parent / "1.5.0")
    with pytest.raises(catalog.ManifestError, match="does not match its folder"):
        catalog.load("odd", paths=[catalogs_root])


def test_catalog_path_environment(monkeypatch: pytest.MonkeyPatch, three_versions: Path) -> None:
    monkeypatch.setenv("CATALOG_PATH", str(three_versions))
    assert str(catalog.load("multi", "~=1.0").version) == "1.1.0"


def test_missing_path_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="does not exist"):
        CatalogPath([tmp_path / "nowhere"])


def test_a_file_given_as_a_folder_is_called_a_file(tmp_path: Path) -> None:
    (tmp_path / "somefile").write_text("x")
    with pytest.raises(NotFoundError, match="somefile' is a file, not a folder") as caught:
        CatalogPath([tmp_path / "somefile"])
    assert caught.value.file == str(tmp_path / "somefile")


def test_bundled_catalog_is_found() -> None:
    cat = catalog.load("coding-agent", "==1.0.0")
    assert cat.source == "bundled"
    assert "coding-agent" in CatalogPath().names()


@pytest.mark.parametrize(
    ("ref", "name", "spec"),
    [
        ("coding-agent", "coding-agent", None),
        ("coding-agent@1.0.0", "coding-agent", "1.0.0"),
        ("coding-agent@~=1.0", "coding-agent", "~=1.0"),
        ("x@>=1,<2", "x", ">=1,<2"),
    ],
)
def test_parse_ref(ref: str, name: str, spec: str | None) -> None:
    assert parse_ref(ref) == (name, spec)


def test_parse_spec_bare_version_means_exact() -> None:
    assert str(parse_spec("1.2")) == "==1.2"


def test_entry_point_catalogs_are_found(vendor_entry_point: Path) -> None:
    cat = catalog.load("vendor-agent")
    assert cat.assemble().text == "Hi from a plugin."
    assert cat.source.startswith("entry point vendor")


def _site(root: Path, folder: str, entry_points: str) -> Path:
    """A site folder holding one metadata folder with this ``entry_points.txt``."""
    (root / folder).mkdir(parents=True)
    (root / folder / "METADATA").write_text("Metadata-Version: 2.1\nName: tool\nVersion: 1.0\n")
    (root / folder / "entry_points.txt").write_text(entry_points)
    return root


@pytest.mark.parametrize(
    ("folder", "entry_points", "declared"),
    [
        ("tool-1.0.dist-info", "[console_scripts]\ntool = tool:main\n", False),
        ("tool-1.0.dist-info", "[catalog.catalogs]\nvendor = vendor_prompts\n", True),
        ("Tool-1.0.DIST-INFO", "[catalog.catalogs]\nvendor = vendor_prompts\n", True),
        ("tool.egg-info", "[catalog.catalogs]\nvendor = vendor_prompts\n", True),
        ("notes", "[catalog.catalogs]\nvendor = vendor_prompts\n", False),
    ],
)
def test_the_entry_point_scan_reads_where_importlib_metadata_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, entry_points: str, declared: bool
) -> None:
    from importlib import metadata
    from importlib.machinery import PathFinder

    from catalog.io.catalog_path import ENTRY_POINT_GROUP, _may_have_entry_points

    site = _site(tmp_path, folder, entry_points)
    monkeypatch.setattr("sys.path", [str(site), str(tmp_path / "missing")])
    monkeypatch.setattr("sys.meta_path", [PathFinder])
    assert _may_have_entry_points() is declared
    assert bool(metadata.entry_points(group=ENTRY_POINT_GROUP)) is declared


def test_the_entry_point_scan_says_yes_when_unsure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib.machinery import PathFinder

    from catalog.io.catalog_path import _may_have_entry_points

    egg = _site(tmp_path / "tool-1.0.egg", "EGG-INFO", "[catalog.catalogs]\nv = v\n")
    monkeypatch.setattr("sys.meta_path", [PathFinder])
    monkeypatch.setattr("sys.path", [str(egg)])
    assert _may_have_entry_points()
    (tmp_path / "packages.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    monkeypatch.setattr("sys.path", [str(tmp_path / "packages.zip")])
    assert _may_have_entry_points()

    class Finder:
        """A finder of distributions the scan cannot look into."""

        def find_distributions(self, context: object = None) -> list[object]:
            return []

    monkeypatch.setattr("sys.path", [])
    assert not _may_have_entry_points()
    monkeypatch.setattr("sys.meta_path", [Finder(), PathFinder])
    assert _may_have_entry_points()


def test_a_version_folder_without_manifest_is_passed_over(three_versions: Path) -> None:
    (three_versions / "multi" / "3.0.0").mkdir()
    (three_versions / "multi" / "notes").mkdir()
    assert str(catalog.load("multi", paths=[three_versions]).version) == "2.0.0"
    versions = [str(r.version) for r in CatalogPath([three_versions]).versions("multi")]
    assert versions == ["1.0.0", "1.1.0", "1.2.0rc1", "2.0.0"]


@pytest.fixture
def store(tmp_path: Path) -> CatalogPath:
    write_catalog(tmp_path, "mybot", "1.0.0", parts=[{"id": "intro", "body": "Hi."}])
    return CatalogPath([tmp_path])


@pytest.mark.parametrize(
    ("ref", "message", "hint"),
    [
        ("mybot==1.0.0", "'mybot==1.0.0' is not a catalog name (",
         "a version follows an '@': write 'mybot@==1.0.0'"),
        ("mybot>=1", "'mybot>=1' is not a catalog name (",
         "a version follows an '@': write 'mybot@>=1'"),
        ("MyBot", "'MyBot' is not a catalog name (",
         "catalog names are lower case: did you mean 'mybot'?"),
        ("mybot@", "'mybot@' has no version after its '@'",
         "write 'mybot' for the newest version, or e.g. 'mybot@1.0.0' or 'mybot@~=1.1'"),
        ("mybot@  ", "'mybot@  ' has no version after its '@'",
         "write 'mybot' for the newest version, or e.g. 'mybot@1.0.0' or 'mybot@~=1.1'"),
        ("mybot@abc", "'abc' is not a PEP 440 version specifier",
         "write e.g. 1.0.0, ==1.1.0, ~=1.1 or >=1,<2"),
    ],
)  # fmt: skip
def test_a_malformed_reference_says_what_was_meant(
    store: CatalogPath, ref: str, message: str, hint: str
) -> None:
    with pytest.raises(BadReferenceError) as caught:
        store.load_ref(ref)
    assert caught.value.message.startswith(message)
    assert caught.value.hint == hint
    # Nothing can be found by it, and it is written wrong: both.
    assert isinstance(caught.value, NotFoundError) and isinstance(caught.value, UsageError)


def test_the_name_alone_is_the_newest_version(store: CatalogPath) -> None:
    assert str(store.load_ref("mybot").version) == "1.0.0"
