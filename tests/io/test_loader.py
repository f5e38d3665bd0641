"""Shared parts files (``[[parts_from]]``) and an imported history stored by what changed.

A version's parts taken from shared parts files are checked by the manifest's own rules,
each error placed in the parts file, at the line of the part that breaks them."""

from __future__ import annotations

import os
import time
import tomllib
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from catalog.cache import BoundedCache
from catalog.errors import CatalogError, ManifestError
from catalog.importers.piebald.read import read_history
from catalog.importers.piebald.write import ImportReport, import_releases
from catalog.io import loader, textfile
from catalog.io.catalog_path import CatalogPath, load_dir
from tests._support.synthetic_history import History, build_history
from tests.conftest import run_cli as run
from tests.conftest import sha

# --- the format: a version taking part records from shared parts files --------------------


def _record(part_id: str, body: str, **extra: object) -> dict[str, object]:
    return {"id": part_id, "file": f"../_bodies/{part_id}.md", "order": 10,
            "tokens": 1, "sha256": sha(body), **extra}  # fmt: skip


def _parts_file(root: Path, name: str, records: list[dict[str, object]]) -> tuple[str, str]:
    text = tomli_w.dumps({"part": records})
    (root / "_shared").mkdir(exist_ok=True)
    (root / "_shared" / name).write_text(text, encoding="utf-8")
    return f"../_shared/{name}", sha(text)


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """Catalog ``demo``: version 1.0 takes a and b from a parts file, 1.1 takes that
    file without b, a second file replacing a, and its own part c."""
    root = tmp_path / "demo"
    (root / "_bodies").mkdir(parents=True)
    for part_id in ("a", "a2", "b", "c"):
        (root / "_bodies" / f"{part_id}.md").write_text(f"Body {part_id}.\n", encoding="utf-8")
    first = _parts_file(root, "one.toml", [_record("a", "Body a.\n"), _record("b", "Body b.\n")])
    second = _parts_file(root, "two.toml", [
        _record("a", "Body a2.\n", file="../_bodies/a2.md", description="new")])  # fmt: skip
    for version, sources, own in (
        ("1.0", [{"file": first[0], "sha256": first[1]}], []),
        ("1.1", [{"file": first[0], "sha256": first[1], "omit": ["b"]},
                 {"file": second[0], "sha256": second[1]}],
         [{**_record("c", "Body c.\n"), "file": "c.md"}]),
    ):  # fmt: skip
        (root / version).mkdir()
        (root / version / "c.md").write_text("Body c.\n", encoding="utf-8")
        manifest: dict[str, object] = {
            "catalog": {"name": "demo", "version": version},
            "parts_from": sources,
        }
        if own:
            manifest["part"] = own
        (root / version / "catalog.toml").write_text(tomli_w.dumps(manifest), encoding="utf-8")
    return root


def test_a_version_takes_records_from_shared_files_with_omit_and_replacement(
    shared: Path,
) -> None:
    old, new = load_dir(shared / "1.0"), load_dir(shared / "1.1")
    assert [(p.id, p.body) for p in old.parts] == [("a", "Body a.\n"), ("b", "Body b.\n")]
    assert [(p.id, p.body, p.decl.description) for p in new.parts] == [
        ("a", "Body a2.\n", "new"),
        ("c", "Body c.\n", ""),
    ]
    assert new.manifest.parts_from == ()  # resolved: the catalog is an ordinary one


def test_an_edited_shared_parts_file_is_an_error_naming_it(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shared / "_shared" / "one.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("order = 10", "order = 11", 1))
    with pytest.raises(ManifestError) as info:
        load_dir(shared / "1.1")
    assert info.value.file == str(path)
    manifest = shared / "1.1" / "catalog.toml"
    assert f"{manifest}:" in info.value.message  # the line recording the hash is named
    code, _, err = run(capsys, "validate", str(shared / "1.0"))
    assert code == 1 and str(path) in err + _ and "Traceback" not in err


def _age(path: Path, seconds: int = 3600) -> None:
    """Date ``path`` back: a file changed in the last moments is read every time."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the parts files read from now on."""
    seen: list[str] = []
    real = textfile.read_text

    def read_text(file: Traversable, *args: Any, **kwargs: Any) -> str:
        if Path(str(file)).parent.name == "_shared":
            seen.append(Path(str(file)).name)
        return real(file, *args, **kwargs)

    monkeypatch.setattr(loader, "read_text", read_text)
    return seen


def test_a_shared_file_unchanged_since_is_read_once_for_every_version(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _age(shared / "_shared" / "one.toml")
    seen = _reads(monkeypatch)
    for _ in range(3):
        assert [p.id for p in load_dir(shared / "1.0").parts] == ["a", "b"]
        assert [p.id for p in load_dir(shared / "1.1").parts] == ["a", "c"]
    # one.toml, old enough to be trusted unchanged: once; two.toml, just written: each time.
    assert sorted(seen) == ["one.toml"] + ["two.toml"] * 3


def test_the_shared_files_kept_are_bounded_by_their_size(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = shared / "_shared" / "one.toml", shared / "_shared" / "two.toml"
    _age(one)
    _age(two)
    # Room for one of the two files only: each pushes the other out.
    room = len(one.read_text(encoding="utf-8")) + 1
    monkeypatch.setattr(loader, "_VERIFIED", BoundedCache(512, weight=room))
    seen = _reads(monkeypatch)
    for _ in range(2):
        assert [p.id for p in load_dir(shared / "1.1").parts] == ["a", "c"]
    assert seen == ["one.toml", "two.toml"] * 2


def test_a_shared_file_edited_after_it_was_read_is_read_again(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = shared / "_shared" / "one.toml"
    _age(path)
    assert load_dir(shared / "1.0").part("a").decl.order == 10
    seen = _reads(monkeypatch)
    # The same size, the same modification time: only the inode's change time tells.
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("order = 10", "order = 12", 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    with pytest.raises(ManifestError, match="this shared parts file has sha256"):
        load_dir(shared / "1.0")
    assert seen == ["one.toml"]


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        ({"file": "../../outside.toml"}, "manifest", "outside the catalog folder"),
        ({"file": "../_shared/none.toml"}, "manifest", "does not exist"),
        ({"omit": ["zz"]}, "manifest", "omits 'zz'"),
    ],
)
def test_a_wrong_parts_from_entry_is_an_error_at_its_line(
    shared: Path, change: dict[str, object], where: str, words: str
) -> None:
    manifest = shared / "1.0" / "catalog.toml"
    data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    data["parts_from"][0].update(change)
    manifest.write_text(tomli_w.dumps(data), encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        load_dir(shared / "1.0")
    assert words in info.value.message
    assert info.value.file == str(manifest)
    key = next(iter(change))
    line = manifest.read_text(encoding="utf-8").splitlines()[(info.value.line or 0) - 1]
    assert line.startswith(f"{key} = ")


def test_a_bad_record_in_a_parts_file_names_that_file_and_line(shared: Path) -> None:
    text = tomli_w.dumps({"part": [_record("a", "Body a.\n"), _record("b", "Body b.\n",
                                                                      colour="red")]})  # fmt: skip
    path = shared / "_shared" / "one.toml"
    path.write_text(text, encoding="utf-8")
    manifest = shared / "1.0" / "catalog.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        tomllib.loads(manifest.read_text(encoding="utf-8"))["parts_from"][0]["sha256"],
        sha(text)))  # fmt: skip
    with pytest.raises(ManifestError) as info:
        load_dir(shared / "1.0")
    assert info.value.file == str(path)
    assert "unknown key 'colour'" in info.value.message
    assert text.splitlines()[(info.value.line or 0) - 1] == 'colour = "red"'


def test_a_body_that_changed_under_a_shared_record_is_located_in_the_parts_file(
    shared: Path,
) -> None:
    (shared / "_bodies" / "b.md").write_text("Changed.\n", encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        load_dir(shared / "1.0")
    path = shared / "_shared" / "one.toml"
    assert (info.value.file, info.value.key) == (str(path), "part[1].sha256")
    assert path.read_text().splitlines()[(info.value.line or 0) - 1].startswith("sha256 = ")


# --- an imported history -------------------------------------------------------------------


RELEASES = 20


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[History, ImportReport]:
    work = tmp_path_factory.mktemp("history")
    history = build_history(work / "upstream", RELEASES, parts=150, first_parts=120)
    report = import_releases(read_history(work / "upstream"), name="synthetic", out=work / "out")
    return history, report


def _sources(report: ImportReport, version: str) -> list[dict[str, object]]:
    manifest = report.folder / version / "catalog.toml"
    return list(tomllib.loads(manifest.read_text(encoding="utf-8"))["parts_from"])


def test_each_imported_version_adds_only_the_records_it_changed(
    imported: tuple[History, ImportReport],
) -> None:
    history, report = imported
    assert [v.version for v in report.versions] == list(history.versions)
    bases = 0
    for number, version in enumerate(history.versions):
        files = [str(source["file"]) for source in _sources(report, version)]
        earlier = {str(s["file"]) for s in _sources(report, history.versions[number - 1])}
        new = [file for file in files if number == 0 or file not in earlier]
        assert len(new) <= 1
        if not new:
            continue
        records = tomllib.loads((report.folder / version / new[0]).read_text(encoding="utf-8"))
        ids = {record["id"] for record in records["part"]}
        if len(files) == 1:  # a new base: every part of the version
            bases += 1
            assert len(ids) == report.versions[number].parts
        else:  # a layer: exactly the parts this release added or rewrote
            assert ids == history.changed[number]
    assert bases <= 3
    # Manifests hold no part records, only the list of shared files (a few lines each).
    for version in history.versions:
        text = (report.folder / version / "catalog.toml").read_text(encoding="utf-8")
        assert "[[part]]" not in text
        assert len(text) < 700 + 300 * len(_sources(report, version))


def test_the_store_is_a_small_share_of_one_plain_copy_per_release(
    imported: tuple[History, ImportReport],
) -> None:
    history, report = imported
    on_disk = sum(p.stat().st_size for p in report.folder.rglob("*") if p.is_file())
    on_disk -= (report.folder / "LICENSE").stat().st_size if (
        report.folder / "LICENSE").exists() else 0  # fmt: skip
    assert on_disk == report.size.total_bytes
    assert on_disk < 0.12 * history.plain_bytes


def test_every_imported_version_validates_locks_and_verifies(
    imported: tuple[History, ImportReport],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    history, report = imported
    root = str(report.folder.parent)
    assert len(history.versions) == RELEASES
    for version in history.versions:
        code, out, err = run(capsys, "validate", str(report.folder / version))
        assert (code, err) == (0, ""), out
        lock = tmp_path / f"{version}.lock"
        code, _, err = run(capsys, "lock", f"synthetic@{version}", "--path", root, "-o", str(lock))
        assert (code, err) == (0, f"locked synthetic {version} in {lock}\n")
        code, out, _ = run(capsys, "verify", str(lock), "--path", root)
        assert code == 0 and "matches" in out


def test_imported_versions_share_part_records_in_memory(
    imported: tuple[History, ImportReport],
) -> None:
    history, report = imported
    catalog_path = CatalogPath([report.folder.parent], use_env=False, use_entry_points=False)
    first, second = (catalog_path.load("synthetic", f"=={v}") for v in history.versions[-2:])
    ids = {p.id for p in first.parts}
    same = [p.id for p in second.parts if p.id in ids and p.body == first.part(p.id).body]
    assert len(same) > len(second.parts) // 2
    # The records of unchanged parts come from one parsed parts file: one object.
    assert sum(second.part(i).decl is first.part(i).decl for i in same) > len(same) // 2


def test_a_tampered_shared_parts_file_fails_the_versions_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_history(tmp_path / "upstream", 4, parts=30, first_parts=25)
    report = import_releases(read_history(tmp_path / "upstream"), name="s", out=tmp_path / "out")
    base = report.folder / str(_sources(report, "2.0.3")[0]["file"]).removeprefix("../")
    run(capsys, "validate", str(report.folder / "2.0.3"))  # read and kept parsed: still checked
    base.write_text(base.read_text(encoding="utf-8").replace("order = ", "order = 1", 1))
    for version in ("2.0.0", "2.0.3"):
        code, out, err = run(capsys, "validate", str(report.folder / version))
        assert code == 1
        assert str(base.resolve()) in out + err
        assert "changed after the versions naming it were written" in out + err


def test_a_bad_condition_in_a_shared_record_names_the_parts_file_and_line(shared: Path) -> None:
    text = tomli_w.dumps({"part": [_record("a", "Body a.\n"),
                                   _record("b", "Body b.\n", when="no_such_name")]})  # fmt: skip
    path = shared / "_shared" / "one.toml"
    path.write_text(text, encoding="utf-8")
    manifest = shared / "1.0" / "catalog.toml"
    old = tomllib.loads(manifest.read_text(encoding="utf-8"))["parts_from"][0]["sha256"]
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(old, sha(text)))
    with pytest.raises(CatalogError) as info:
        load_dir(shared / "1.0")
    assert (info.value.file, info.value.key) == (str(path), "part[1].when")
    assert text.splitlines()[(info.value.line or 0) - 1] == 'when = "no_such_name"'


def test_stamp_rewrites_only_the_manifests_own_parts(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = shared / "1.1" / "catalog.toml"
    before = tomllib.loads(manifest.read_text(encoding="utf-8"))
    files = {p: p.read_text(encoding="utf-8") for p in (shared / "_shared").iterdir()}
    code, _, err = run(capsys, "stamp", str(shared / "1.1"))
    assert (code, err) == (0, "")
    after = tomllib.loads(manifest.read_text(encoding="utf-8"))
    assert after["parts_from"] == before["parts_from"]
    assert after["part"][0]["tokens"] == 3  # "Body c.\n" in cl100k_base; was 1
    assert {p: p.read_text(encoding="utf-8") for p in (shared / "_shared").iterdir()} == files
    assert [p.id for p in load_dir(shared / "1.1").parts] == ["a", "c"]


def test_reading_a_manifest_only_gives_its_shared_records(shared: Path) -> None:
    catalog_path = CatalogPath([shared.parent], use_env=False, use_entry_points=False)
    refs = {str(ref.version): ref for ref in catalog_path.versions("demo")}
    assert [p.id for p in refs["1.0"].manifest().part] == ["a", "b"]
    assert [(p.id, p.description) for p in refs["1.1"].manifest().part] == [
        ("a", "new"),
        ("c", ""),
    ]


def test_importing_another_range_of_the_history_again_changes_no_version(tmp_path: Path) -> None:
    build_history(tmp_path / "upstream", 6, parts=30, first_parts=25)
    out = tmp_path / "out"
    import_releases(read_history(tmp_path / "upstream"), name="s", out=out)
    manifests = {p: p.read_text(encoding="utf-8") for p in out.glob("s/*/catalog.toml")}
    # Starting at 2.0.3, the import lays its parts files out from there: same parts.
    again = import_releases(read_history(tmp_path / "upstream", ">=2.0.3"), name="s", out=out)
    assert [(v.version, v.status) for v in again.versions] == [
        ("2.0.3", "unchanged"),
        ("2.0.4", "unchanged"),
        ("2.0.5", "unchanged"),
    ]
    assert {p: p.read_text(encoding="utf-8") for p in out.glob("s/*/catalog.toml")} == manifests
    assert len(load_dir(out / "s" / "2.0.5").parts) == 30


def _version(root: Path, record: dict[str, object], agents: list[str] | None = None) -> Path:
    """``root/1.0`` whose one part is ``record``, taken from ``root/_shared/parts.toml``."""
    (root / "1.0").mkdir(parents=True)
    (root / "_shared").mkdir()
    (root / "1.0" / "a.md").write_text("A.\n", encoding="utf-8")
    text = tomli_w.dumps({"part": [{"id": "other", "file": "a.md", "order": 5, "tokens": 1,
                                    "sha256": sha("A.\n")}, record]})  # fmt: skip
    (root / "_shared" / "parts.toml").write_text(text, encoding="utf-8")
    manifest: dict[str, object] = {
        "catalog": {"name": "demo", "version": "1.0"},
        "parts_from": [{"file": "../_shared/parts.toml", "sha256": sha(text)}],
    }
    if agents:
        manifest["agent"] = [{"name": name} for name in agents]
    (root / "1.0" / "catalog.toml").write_text(tomli_w.dumps(manifest), encoding="utf-8")
    return root / "1.0"


_PART = {"id": "a", "file": "a.md", "order": 10, "tokens": 1, "sha256": sha("A.\n")}


def test_an_unknown_agent_in_a_parts_file_is_placed_there(tmp_path: Path) -> None:
    folder = _version(tmp_path, {**_PART, "agents": ["ghost"]}, agents=["explore"])
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    error = caught.value
    assert error.message == (
        "unknown agent 'ghost' (declared: explore, main); add an [[agent]] table or fix the name"
    )
    assert error.file is not None and Path(error.file).name == "parts.toml"
    assert error.key == "part[1].agents"
    assert error.line == 14  # the second [[part]] table's agents line (written by tomli_w)


def test_a_from_without_a_base_in_a_parts_file_is_placed_there(tmp_path: Path) -> None:
    record = {key: value for key, value in _PART.items() if key != "file"}
    folder = _version(tmp_path, {**record, "from": "a"})
    with pytest.raises(ManifestError, match="`from` names a part of the base catalog") as caught:
        load_dir(folder)
    assert caught.value.file is not None and Path(caught.value.file).name == "parts.toml"
    assert caught.value.key == "part[1].from"
