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
from catalog.errors import ContextError
from catalog.io.catalog_path import CatalogPath
from catalog.io.lockfile import (
    dump_lock,
    make_lock,
    manifest_sha256,
    parse_lock,
    read_lock,
    verify,
    verify_report,
)
from tests.conftest import run_cli as run
from tests.conftest import sha, write_catalog

PARTS: list[dict[str, str | int]] = [
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
    assert data["parts"] == {p["id"]: sha(str(p["body"])) for p in PARTS}
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
    assert read_lock(target).lock.parts == {p["id"]: sha(str(p["body"])) for p in PARTS}


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


# The exact words, keys and lines of each report: a user reads them and tools parse them.

_REWRITE = "write the lock again with `catalog lock`"


def test_the_manifest_hash_is_sha256_of_canonical_json(root: Path) -> None:
    # The format of the hash, so that a lock written by one release verifies with the
    # next: sorted keys, no spaces, non-ASCII text as UTF-8 (not \u escapes).
    write_catalog(root, "demo", "1.0.0", [{**PARTS[0], "meta": {"note": "Grüße"}}, *PARTS[1:]])
    cat = catalog.load("demo", paths=[root])
    data = cat.manifest.model_dump(mode="json")
    assert data["part"][0]["meta"] == {"note": "Grüße"}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert '"meta":{"note":"Grüße"}' in text
    assert manifest_sha256(cat.manifest) == hashlib.sha256(text.encode()).hexdigest()


def test_a_context_is_recorded_as_json_values(root: Path) -> None:
    write_catalog(root, "demo", "1.0.0", PARTS, variables=[{"name": "when", "type": "map"}])
    cat = catalog.load("demo", paths=[root])
    context = {"tools": ["Grep"], "variables": {"when": {"day": dt.date(2024, 1, 2)}}}
    lock = make_lock(cat, [("dated.toml", context)])
    (prompt,) = lock.prompt
    assert prompt.data == {"tools": ["Grep"], "variables": {"when": {"day": "2024-01-02"}}}
    text = dump_lock(lock)
    assert text.startswith(
        "# Written by `catalog lock`; check with `catalog verify`. Do not edit by hand.\n"
    )
    assert tomllib.loads(text)["prompt"][0]["data"]["variables"] == {"when": {"day": "2024-01-02"}}


def test_a_lock_holding_a_date_is_written_with_json_values(root: Path, locked: Path) -> None:
    read = read_lock(locked)
    data = {"variables": {"when": dt.date(2024, 1, 2)}}
    prompt = read.lock.prompt[0].model_copy(update={"data": data})
    lock = read.lock.model_copy(update={"prompt": (prompt,)})
    written = tomllib.loads(dump_lock(lock))["prompt"][0]["data"]
    assert written == {"variables": {"when": "2024-01-02"}}


def test_a_context_that_is_not_valid_is_named_by_its_label(root: Path) -> None:
    cat = catalog.load("demo", paths=[root])
    with pytest.raises(ContextError) as info:
        make_lock(cat, [("team.toml", {"tools": 5})])
    assert info.value.file == "team.toml"


def test_a_lock_file_that_cannot_be_read_says_how_to_write_one(tmp_path: Path) -> None:
    with pytest.raises(LockError) as info:
        read_lock(tmp_path / "absent.lock")
    assert (info.value.message, info.value.file, info.value.hint) == (
        "the lock file does not exist",
        str(tmp_path / "absent.lock"),
        "write one with `catalog lock NAME@VERSION -o FILE`",
    )


@pytest.mark.parametrize(
    ("edit", "hint"),
    [
        (lambda t: t + "garbage = [\n", "fix the syntax or " + _REWRITE),
        (
            lambda t: t.replace("lock = 1", "lock = 7"),
            "upgrade agent-prompt-catalog, or " + _REWRITE,
        ),
        (lambda t: t.replace('rules = "', 'rules = "xyz'), _REWRITE),
        (lambda t: t.replace('os = "Linux"', "os = 5"), _REWRITE),
    ],
)
def test_each_problem_of_a_lock_file_says_what_to_do(
    locked: Path, edit: Callable[[str], str], hint: str
) -> None:
    with pytest.raises(LockError) as info:
        parse_lock(edit(locked.read_text()), "team.lock")
    assert (info.value.file, info.value.hint) == ("team.lock", hint)


def test_each_difference_names_its_subject_and_line(root: Path, locked: Path) -> None:
    lines = locked.read_text().splitlines()
    fingerprint = tomllib.loads(locked.read_text())["prompt"][0]["fingerprint"]
    # 1.0.0 gone, 1.1.0 with the same bodies in another order: the version, the prompt.
    write_catalog(root, "demo", "1.1.0", [{**PARTS[0], "order": 25}, *PARTS[1:]])
    shutil.rmtree(root / "demo" / "1.0.0")
    compared, problems = verify(read_lock(locked), CatalogPath([root], use_env=False))
    assert [(p.kind, p.subject, p.line) for p in problems] == [
        ("version", "demo", lines.index('version = "1.0.0"') + 1),
        ("prompt", f"{_context_of(lines)} (main)", _line(locked, "fingerprint = ")),
    ]
    assert problems[0].message == (
        "locked version 1.0.0 is not installed; compared with 1.1.0 instead"
    )
    now = hashlib.sha256(b"Be careful.\n\nHello Linux.").hexdigest()
    assert problems[1].message.endswith(
        f"(agent main) changed: fingerprint {fingerprint[:12]}... is now {now[:12]}..."
    )
    report = verify_report(read_lock(locked), compared, problems)
    assert report == {
        "file": str(locked),
        "catalog": "demo",
        "locked_version": "1.0.0",
        "installed_version": "1.1.0",
        "ok": False,
        "problems": [
            {"kind": p.kind, "subject": p.subject, "message": p.message, "line": p.line}
            for p in problems
        ],
    }


def _context_of(lines: list[str]) -> str:
    """The ``context = "..."`` value of the only prompt of a lock's lines."""
    (line,) = [line for line in lines if line.startswith("context = ")]
    return str(tomllib.loads(line)["context"])


def test_a_manifest_change_names_the_catalog(root: Path, locked: Path) -> None:
    write_catalog(root, "demo", "1.0.0", [{**PARTS[0], "when": '"Grep" in tools'}, *PARTS[1:]])
    _, problems = verify(read_lock(locked), CatalogPath([root], use_env=False))
    assert [(p.subject, p.message) for p in problems] == [
        ("demo", "the manifest changed (order, conditions, agents or other settings)")
    ]


def test_a_missing_body_file_names_its_part(root: Path, locked: Path) -> None:
    (root / "demo" / "1.0.0" / "rules.md").unlink()
    _, problems = verify(read_lock(locked), CatalogPath([root], use_env=False))
    assert (problems[0].kind, problems[0].subject) == ("missing-file", "rules")


def test_a_catalog_not_installed_is_reported_as_json(tmp_path: Path, locked: Path) -> None:
    read = read_lock(locked)
    compared, problems = verify(read, CatalogPath([tmp_path], use_env=False))
    assert compared is None
    assert verify_report(read, compared, problems) == {
        "file": str(locked),
        "catalog": "demo",
        "locked_version": "1.0.0",
        "installed_version": None,
        "ok": False,
        "problems": [
            {
                "kind": "missing-catalog",
                "subject": "demo",
                "message": "no catalog named 'demo' is installed (a catalog kept in a folder "
                "is found with --path or CATALOG_PATH, in Python with paths=)",
                "line": _line(locked, "name = "),
            }
        ],
    }


def test_loading_with_a_lock_places_each_refusal(root: Path, locked: Path, tmp_path: Path) -> None:
    write_catalog(root, "other", "1.0.0", PARTS)
    refusals = [
        (
            ("other", None, root),
            "the lock is for catalog 'demo', not 'other'",
            "name = ",
            "pass the lock file written for this catalog",
        ),
        (
            ("demo", ">=2", root),
            "the locked version 1.0.0 does not satisfy '>=2'",
            'version = "1.0.0"',
            "widen the specifier or lock a version that satisfies it",
        ),
        (
            ("demo", None, tmp_path),
            "no catalog named 'demo' is installed",
            "name = ",
            "add the folder that holds it with paths= or CATALOG_PATH",
        ),
    ]
    for (name, spec, folder), message, at, hint in refusals:
        with pytest.raises(LockError) as info:
            catalog.load(name, spec, paths=[folder], lock=locked)
        error = info.value
        assert (error.message, error.file, error.line, error.hint) == (
            message,
            str(locked),
            _line(locked, at),
            hint,
        )
    assert str(catalog.load("demo", ">=1,<2", paths=[root], lock=locked).version) == "1.0.0"


def test_loading_with_a_lock_names_the_first_difference_and_counts_the_rest(
    root: Path, locked: Path
) -> None:
    hint = (
        "review the change with `catalog diff`, then write the lock again with "
        "`catalog lock`; `catalog verify` lists every difference"
    )
    # Only the manifest differs (a condition that still holds): one difference.
    write_catalog(root, "demo", "1.0.0", [{**PARTS[0], "when": '"Grep" in tools'}, *PARTS[1:]])
    with pytest.raises(LockError) as info:
        catalog.load("demo", paths=[root], lock=locked)
    assert (info.value.message, info.value.file, info.value.hint) == (
        "catalog demo does not match the lock: the manifest changed "
        "(order, conditions, agents or other settings)",
        str(locked),
        hint,
    )
    # A changed body changes the prompt too: two.
    write_catalog(root, "demo", "1.0.0", [PARTS[0], {**PARTS[1], "body": "No."}, PARTS[2]])
    with pytest.raises(LockError) as info:
        catalog.load("demo", paths=[root], lock=locked)
    assert info.value.message.startswith("catalog demo does not match the lock: part 'rules'")
    assert info.value.message.endswith(" (and 1 more)")
