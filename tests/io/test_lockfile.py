"""Lock files: writing, verifying, refusing a catalog that does not match."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

import catalog
from catalog import LockError
from catalog.cli import main
from catalog.io.catalog_path import CatalogPath
from catalog.io.lockfile import read_lock, verify
from tests.conftest import run_cli as run
from tests.conftest import sha, write_catalog

PARTS = [
    {"id": "intro", "order": 10, "body": "Hello {{ env.os }}."},
    {"id": "rules", "order": 20, "body": "Be careful."},
    {"id": "grep", "kind": "tool", "name": "Grep", "order": 30, "body": "Search."},
]


@pytest.fixture
def root(catalogs_root: Path) -> Path:
    write_catalog(catalogs_root, "demo", "1.0.0", PARTS)
    return catalogs_root


@pytest.fixture
def locked(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    context = tmp_path / "ctx.toml"
    context.write_text('tools = ["Grep"]\n[env]\nos = "Linux"\n')
    target = tmp_path / "prompts.lock"
    code = main(
        ["lock", "demo@1.0.0", "--path", str(root), "-o", str(target), "--context", str(context)]
    )
    capsys.readouterr()
    assert code == 0
    return target


def _line(path: Path, startswith: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(startswith))


def test_lock_records_version_hashes_and_fingerprints(locked: Path) -> None:
    data = tomllib.loads(locked.read_text())
    assert data["lock"] == 1
    assert data["catalog"]["name"] == "demo"
    assert data["catalog"]["version"] == "1.0.0"
    assert len(data["catalog"]["manifest_sha256"]) == 64
    assert data["parts"] == {p["id"]: sha(p["body"]) for p in PARTS}
    (prompt,) = data["prompt"]
    assert prompt["agent"] == "main"
    assert prompt["context"].endswith("ctx.toml")
    assert prompt["data"] == {"tools": ["Grep"], "env": {"os": "Linux"}}
    expected = "Hello Linux.\n\nBe careful."
    assert prompt["fingerprint"] == hashlib.sha256(expected.encode()).hexdigest()


def test_verify_matches(root: Path, locked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", str(locked), "--path", str(root))
    assert code == 0
    assert out.endswith("demo 1.0.0 matches (3 parts, 1 prompt(s))\n")


def test_changed_part_is_reported_with_its_lock_line(
    root: Path, locked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = [dict(PARTS[0]), {**PARTS[1], "body": "Be very careful."}, dict(PARTS[2])]
    write_catalog(root, "demo", "1.0.0", changed)
    code, out, _ = run(capsys, "verify", str(locked), "--path", str(root))
    assert code == 1
    line = _line(locked, "rules = ")
    assert f"{locked}:{line}: part 'rules' changed: sha256 {sha('Be careful.')[:12]}..." in out
    assert "the prompt for" in out and "(agent main) changed" in out
    assert out.splitlines()[-1].endswith("does not match the lock: 2 difference(s)")


def test_missing_and_added_parts(root: Path, locked: Path) -> None:
    write_catalog(root, "demo", "1.0.0", [PARTS[0], PARTS[2], {"id": "new", "body": "New."}])
    _, problems = verify(read_lock(locked), CatalogPath([root], use_env=False))
    found = {(p.kind, p.subject) for p in problems}
    assert ("missing", "rules") in found
    assert ("added", "new") in found


def test_a_missing_body_file_is_a_difference_of_its_part(
    root: Path, locked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = root / "demo" / "1.0.0" / "rules.md"
    body.unlink()
    code, out, err = run(capsys, "verify", str(locked), "--path", str(root))
    assert code == 1, err
    lines = out.splitlines()
    assert (
        f"{locked}:{_line(locked, 'rules = ')}: part 'rules': its body file {body} is missing"
        in lines
    )
    assert lines[-1].endswith("does not match the lock: 2 difference(s)")  # and the prompt
    _, problems = verify(read_lock(locked), CatalogPath([root], use_env=False))
    assert [p.kind for p in problems] == ["missing-file", "prompt"]
    with pytest.raises(LockError) as info:
        catalog.load("demo", paths=[root], lock=locked)
    assert f"part 'rules': its body file {body} is missing (and 1 more)" in str(info.value)


def test_a_missing_base_body_file_is_a_difference_of_the_overlay_part(
    root: Path, tmp_path: Path
) -> None:
    overlay = root / "over" / "1.0.0"
    overlay.mkdir(parents=True)
    (overlay / "catalog.toml").write_text(
        '[catalog]\nname = "over"\nversion = "1.0.0"\nbase = "demo@1.0.0"\n\n'
        '[[part]]\nid = "mine"\nfrom = "rules"\norder = 10\n'
        f'sha256 = "{sha("Be careful.")}"\ntokens = 2\n'
    )
    target = tmp_path / "over.lock"
    assert main(["lock", "over@1.0.0", "--path", str(root), "-o", str(target)]) == 0
    body = root / "demo" / "1.0.0" / "rules.md"
    body.unlink()
    _, problems = verify(read_lock(target), CatalogPath([root], use_env=False))
    assert [(p.kind, p.message) for p in problems] == [
        ("missing-file", f"part 'mine': its body file {body} is missing")
    ]


def test_a_catalog_that_cannot_load_for_another_reason_exits_2(
    root: Path, locked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = root / "demo" / "1.0.0" / "catalog.toml"
    manifest.write_text(manifest.read_text().replace("order = 20", 'order = "late"'))
    code, out, err = run(capsys, "verify", str(locked), "--path", str(root))
    assert (code, out) == (2, "")
    assert f"catalog: error: {manifest}:" in err and "part[1].order" in err


def test_manifest_only_change(root: Path, locked: Path) -> None:
    write_catalog(root, "demo", "1.0.0", [{**PARTS[0], "when": '"Grep" in tools'}, *PARTS[1:]])
    _, problems = verify(read_lock(locked), CatalogPath([root], use_env=False))
    assert [p.kind for p in problems] == ["manifest"]
    assert problems[0].line == _line(locked, "manifest_sha256")


def test_locked_version_not_installed(root: Path, locked: Path) -> None:
    write_catalog(root, "demo", "1.1.0", PARTS)
    shutil.rmtree(root / "demo" / "1.0.0")
    compared, problems = verify(read_lock(locked), CatalogPath([root], use_env=False))
    assert compared is not None and str(compared.version) == "1.1.0"
    assert [p.kind for p in problems] == ["version"]
    assert "locked version 1.0.0 is not installed" in problems[0].message


def test_catalog_not_installed(
    tmp_path: Path, locked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    # Nothing to compare with is bad input (exit 2, as documented), not a mismatch (1).
    name_line = locked.read_text().splitlines().index('name = "demo"') + 1
    code, out, err = run(capsys, "verify", str(locked), "--path", str(empty))
    assert (code, out) == (2, "")
    assert err.startswith(
        f"catalog: error: {locked}:{name_line}: no catalog named 'demo' is installed"
    )
    assert "hint: install the catalog, or add its folder with --path" in err
    code, out, err = run(capsys, "verify", str(locked), "--path", str(empty), "--format", "json")
    assert (code, out) == (2, "")
    error = json.loads(err)
    assert (error["file"], error["line"]) == (str(locked), name_line)
    assert error["error"].startswith("no catalog named 'demo' is installed")
    assert error["hint"].startswith("install the catalog, or add its folder with --path")
    with pytest.raises(LockError, match="no catalog named 'demo' is installed") as info:
        catalog.load("demo", paths=[empty], lock=locked)
    assert info.value.hint is not None and "paths=" in info.value.hint
    assert info.value.line == _line(locked, "name = ")


@pytest.mark.parametrize(
    ("edit", "message", "at"),
    [
        (lambda t: t + "garbage = [\n", "invalid TOML", "garbage = "),
        (lambda t: t.replace('rules = "', 'rules = "xyz'), "parts.rules", "rules = "),
        (
            lambda t: t.replace("[parts]", 'colour = "red"\n\n[parts]'),
            "catalog.colour: unknown key 'colour'",
            "colour = ",
        ),
        (lambda t: t.replace("lock = 1", "lock = 7"), "lock format 7 is not supported", "lock = "),
        (lambda t: t.replace("lock = 1", "lock = 1\nextra = true"), "unknown key 'extra'", "extra"),
        (
            lambda t: t.replace("[catalog]", "[[catalog]]"),
            "catalog: must be a table (an object), not a list",
            "[[catalog]]",
        ),
        (
            lambda t: t.replace('version = "1.0.0"', 'version = "banana"'),
            "catalog.version: 'banana' is not a PEP 440 version",
            "version = ",
        ),
        (
            lambda t: t.replace('os = "Linux"', "os = 5"),
            "prompt[0].data.env.os: the recorded context is not valid",
            "os = ",
        ),
        (
            lambda t: t.replace('tools = [\n    "Grep",\n]', 'tool = ["Grep"]'),
            "prompt[0].data.tool: the recorded context is not valid",
            "tool = ",
        ),
        (
            lambda t: t.replace(
                "[prompt.data.env]",
                '[[prompt.data.project_files]]\ncontent = "x"\n\n[prompt.data.env]',
            ),
            "prompt[0].data.project_files[0].path: the recorded context is not valid: missing",
            "[[prompt.data.project_files]]",
        ),
    ],
)
def test_malformed_lock_exits_2_with_file_and_line(
    root: Path,
    locked: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[str], str],
    message: str,
    at: str,
) -> None:
    text = edit(locked.read_text())
    assert text != locked.read_text()
    locked.write_text(text)
    code, _, err = run(capsys, "verify", str(locked), "--path", str(root))
    assert code == 2
    assert err.startswith(f"catalog: error: {locked}:{_line(locked, at)}:")
    assert message in err
    assert "Traceback" not in err


def test_an_empty_lock_names_what_is_missing(
    locked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked.write_text("")
    code, _, err = run(capsys, "verify", str(locked))
    assert code == 2
    assert f"{locked}: catalog: missing required key 'catalog'" in err


def test_a_version_written_differently_is_the_same_version(root: Path, locked: Path) -> None:
    locked.write_text(locked.read_text().replace('version = "1.0.0"', 'version = "1.0"'))
    assert verify(read_lock(locked), CatalogPath([root], use_env=False))[1] == []


def test_a_prompt_the_installed_version_cannot_assemble_is_a_difference(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_catalog(
        root, "demo", "2.0.0", PARTS, variables=[{"name": "mode", "type": "str", "default": ""}]
    )
    context = tmp_path / "ctx.toml"
    context.write_text('[variables]\nmode = "fast"\n')
    target = tmp_path / "v2.lock"
    args = ["--path", str(root), "--context", str(context), "-o", str(target)]
    assert main(["lock", "demo@2.0.0", "--agent", "main", "--agent", "helper", *args]) == 2
    write_catalog(
        root,
        "demo",
        "2.0.0",
        PARTS,
        variables=[{"name": "mode", "type": "str", "default": ""}],
        agents=[{"name": "helper"}],
    )
    assert main(["lock", "demo@2.0.0", "--agent", "main", "--agent", "helper", *args]) == 0
    shutil.rmtree(root / "demo" / "2.0.0")  # 1.0.0 has neither the variable nor the agent
    capsys.readouterr()
    code, out, err = run(capsys, "verify", str(target), "--path", str(root))
    assert code == 1, err
    line = _line(target, "fingerprint = ")
    assert (
        f"{target}:{line}: the prompt for {context} (agent main) can no longer be assembled: "
        "unknown variable 'mode' for catalog demo" in out
    )
    assert "(agent helper) can no longer be assembled: catalog demo 1.0.0 has no agent" in out
    assert out.splitlines()[0].endswith(
        "locked version 2.0.0 is not installed; compared with 1.0.0 instead"
    )


def test_load_with_lock_returns_the_locked_version(root: Path, locked: Path) -> None:
    write_catalog(root, "demo", "1.1.0", [{"id": "other", "body": "Newer."}])
    cat = catalog.load("demo", paths=[root], lock=locked)
    assert str(cat.version) == "1.0.0"


def test_load_with_lock_refuses_a_mismatch(root: Path, locked: Path) -> None:
    write_catalog(root, "demo", "1.0.0", [{**PARTS[0], "body": "Hi."}, *PARTS[1:]])
    with pytest.raises(LockError) as info:
        catalog.load("demo", paths=[root], lock=locked)
    error = info.value
    assert error.file == str(locked)
    assert error.line == _line(locked, "intro = ")
    assert "part 'intro' changed" in str(error)


def test_load_with_lock_for_another_catalog_or_version(root: Path, locked: Path) -> None:
    write_catalog(root, "other", "1.0.0", PARTS)
    with pytest.raises(LockError, match="the lock is for catalog 'demo', not 'other'"):
        catalog.load("other", paths=[root], lock=locked)
    with pytest.raises(LockError, match="does not satisfy '>=2'"):
        catalog.load("demo", ">=2", paths=[root], lock=locked)


def test_lock_to_stdout_reads_back(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "lock", str(root / "demo" / "1.0.0"))
    assert code == 0
    target = tmp_path / "out.lock"
    target.write_text(out)
    assert read_lock(target).lock.parts == {p["id"]: sha(p["body"]) for p in PARTS}


def test_dates_and_times_in_meta_lock_verify_and_show_as_json(
    catalogs_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = {
        "released": dt.date(2024, 1, 1),
        "at": dt.datetime(2024, 1, 1, 10, 0, tzinfo=dt.UTC),
        "daily": dt.time(7, 30),
    }
    write_catalog(catalogs_root, "dated", "1.0.0", [{"id": "intro", "meta": meta}])
    target = tmp_path / "dated.lock"
    path = ["--path", str(catalogs_root)]
    assert run(capsys, "lock", "dated@1.0.0", *path, "-o", str(target))[0] == 0
    assert run(capsys, "verify", str(target), *path)[0] == 0
    code, out, _ = run(capsys, "show", "dated@1.0.0", *path, "--format", "json")
    assert code == 0
    shown = json.loads(out)
    assert shown["part"][0]["meta"] == {
        "released": "2024-01-01",
        "at": "2024-01-01T10:00:00Z",
        "daily": "07:30:00",
    }


def test_agents_without_a_context_pin_each_agent_for_an_empty_context(
    catalogs_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_catalog(
        catalogs_root,
        "crew",
        "1.0.0",
        [
            {"id": "intro", "body": "You lead."},
            {"id": "scout", "agents": ["explore"], "body": "You look around."},
        ],
        agents=[{"name": "explore"}],
    )
    target = tmp_path / "crew.lock"
    path = ["--path", str(catalogs_root)]
    code, _, err = run(capsys, "lock", "crew", "--agent", "main", "--agent", "explore",
                       "-o", str(target), *path)  # fmt: skip
    assert code == 0, err
    prompts = tomllib.loads(target.read_text())["prompt"]
    assert [(p["context"], p["agent"], p["data"]) for p in prompts] == [
        ("(empty context)", "main", {}),
        ("(empty context)", "explore", {}),
    ]
    code, out, _ = run(capsys, "verify", str(target), *path)
    assert code == 0 and "2 prompt(s)" in out
    # The sub-agent's prompt is pinned: changing only its part is a difference.
    (folder / "scout.md").write_text("You look everywhere.", encoding="utf-8")
    assert run(capsys, "stamp", str(folder))[0] == 0
    code, out, _ = run(capsys, "verify", str(target), *path)
    assert code == 1
    assert "the prompt for (empty context) (agent explore) changed" in out
    assert "(agent main) changed" not in out
    # Locking again replaces those pins rather than adding a second copy of each.
    code, _, err = run(capsys, "lock", "--update", str(target), "--agent", "explore", *path)
    assert code == 0, err
    prompts = tomllib.loads(target.read_text())["prompt"]
    assert sorted(p["agent"] for p in prompts) == ["explore", "main"]
    assert run(capsys, "verify", str(target), *path)[0] == 0
