"""``catalog init``, ``catalog completion`` and ``catalog lock --update``."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

import catalog
from catalog.cli import COMMANDS
from tests.conftest import run_cli as run

SRC = Path(catalog.__file__).resolve().parents[1]


# -- init --------------------------------------------------------------------------------


def test_init_writes_a_catalog_that_validates_and_assembles_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "init", "my-agent", "--path", str(tmp_path))
    assert (code, err) == (0, "")
    folder = tmp_path / "my-agent" / "1.0.0"
    assert f"wrote my-agent 1.0.0 in {folder}" in out
    manifest = tomllib.loads((folder / "catalog.toml").read_text())
    parts = manifest["part"]
    assert len(parts) == 2
    assert [p["agents"] for p in parts if "agents" in p] == [["*"]]
    assert [p["when"] for p in parts if "when" in p] == ["plan_mode"]
    assert [v["name"] for v in manifest["variable"]] == ["plan_mode"]
    assert [a["name"] for a in manifest["agent"]] == ["reviewer"]
    assert all(len(p["sha256"]) == 64 and p["tokens"] > 0 for p in parts)

    assert run(capsys, "validate", "my-agent", "--path", str(tmp_path))[:2] == (
        0,
        "my-agent@1.0.0: ok\n0 error(s), 0 warning(s)\n",
    )
    code, out, _ = run(capsys, "assemble", "my-agent", "--path", str(tmp_path))
    assert code == 0
    assert out == "You are main, an assistant of the my-agent catalog.\n"
    code, out, _ = run(
        capsys, "assemble", "my-agent", "--path", str(tmp_path), "--set", "plan_mode=true"
    )
    assert "Plan mode is on" in out
    code, out, _ = run(
        capsys, "assemble", "my-agent", "--path", str(tmp_path), "--agent", "reviewer"
    )
    assert out.startswith("You are reviewer, an assistant of the my-agent catalog.\n")
    assert "You may use: Read, Grep." in out
    assert "Plan mode" not in run(
        capsys, "assemble", "my-agent", "--path", str(tmp_path), "--agent", "reviewer",
        "--set", "plan_mode=true",
    )[1]  # fmt: skip


def test_init_in_the_current_folder_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "init", "here", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["folder"] == str(Path("here") / "1.0.0")
    assert sorted(Path(f).name for f in report["files"]) == [
        "catalog.toml",
        "identity.md",
        "planning.md",
    ]
    assert catalog.load("here", paths=["."]).name == "here"


def test_init_refuses_an_existing_version_and_a_bad_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "init", "twice", "--path", str(tmp_path))[0] == 0
    before = (tmp_path / "twice" / "1.0.0" / "identity.md").read_text()
    (tmp_path / "twice" / "1.0.0" / "identity.md").write_text("mine")
    code, _, err = run(capsys, "init", "twice", "--path", str(tmp_path))
    assert code == 2 and "exists already; nothing was written" in err
    assert (tmp_path / "twice" / "1.0.0" / "identity.md").read_text() == "mine" != before
    code, _, err = run(capsys, "init", "My Agent", "--path", str(tmp_path))
    assert code == 2 and "'My Agent' is not a catalog name" in err
    assert not (tmp_path / "My Agent").exists()


# -- completion --------------------------------------------------------------------------


def _bash_complete(
    script: Path, *words: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> list[str]:
    """What bash completes for ``words`` (the last one being typed), split as bash splits a
    line: at an ``@`` too, which is in its COMP_WORDBREAKS."""
    line = " ".join(words)
    split = [piece for word in words for piece in re.split(r"(@)", word) if piece] or [""]
    if not words[-1] or words[-1].endswith("@"):
        split.append("")
    quoted = " ".join(shlex.quote(w) for w in split)
    probe = (
        f"source {script}\n"
        "complete -p catalog\n"
        f"COMP_LINE={shlex.quote(line)}; COMP_POINT=${{#COMP_LINE}}\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(split) - 1}; _catalog\n"
        '[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "-c", probe], capture_output=True, text=True, check=True, env=env, cwd=cwd
    )
    first, *rest = done.stdout.splitlines()
    assert first == "complete -o filenames -F _catalog catalog"
    return rest


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = tmp_path_factory.mktemp("completion") / "catalog.bash"
    done = subprocess.run(
        [sys.executable, "-m", "catalog", "completion", "bash"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    script.write_text(done.stdout)
    return script


def test_bash_completion_offers_commands_options_and_choices(bash_script: Path) -> None:
    assert _bash_complete(bash_script, "catalog", "") == list(COMMANDS)
    assert _bash_complete(bash_script, "catalog", "li") == ["list"]
    assert _bash_complete(bash_script, "catalog", "--path", "x", "ass") == ["assemble"]
    assert "--explain" in _bash_complete(bash_script, "catalog", "assemble", "--")
    assert "--explain" not in _bash_complete(bash_script, "catalog", "list", "--")
    assert _bash_complete(bash_script, "catalog", "diff", "--format", "") == [
        "text",
        "markdown",
        "json",
        "html",
    ]
    assert _bash_complete(bash_script, "catalog", "list", "--format", "") == ["text", "json"]
    assert _bash_complete(bash_script, "catalog", "completion", "f") == ["fish"]


@pytest.fixture
def completing(bash_script: Path, cli_demo: Path, tmp_path: Path) -> Callable[..., list[str]]:
    """Complete a line in bash with `catalog` on PATH running this tree's code."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "catalog"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} -m catalog "$@"\n')
    program.chmod(0o755)
    env = {"PYTHONPATH": str(SRC), "PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    empty = tmp_path / "empty"  # folders are offered too: none here
    empty.mkdir()

    def complete(*words: str) -> list[str]:
        return _bash_complete(bash_script, "catalog", *words, env=env, cwd=empty)

    return complete


def test_bash_completion_offers_catalogs_their_versions_and_agents(
    completing: Callable[..., list[str]], cli_demo: Path
) -> None:
    for command in ("assemble", "show", "diff", "lock", "tokens"):
        assert {"coding-agent", "coding-agent@1.2.0", "opal@1.1.0"} <= set(
            completing(command, "")
        ), command
    assert completing("show", "codi") == [
        "coding-agent",
        "coding-agent@1.0.0",
        "coding-agent@1.1.0",
        "coding-agent@1.2.0",
    ]
    # bash replaces only what follows the @: the versions alone come back.
    assert completing("show", "coding-agent@1.") == ["1.0.0", "1.1.0", "1.2.0"]
    assert completing("diff", "coding-agent@1.0.0", "coding-agent@1.1") == ["1.1.0"]
    # The line's --path folders count, before or after the command.
    assert completing("--path", str(cli_demo), "show", "de") == ["demo", "demo@1.0.0"]
    assert completing("tokens", "--path", str(cli_demo), "d") == [
        "demo",
        "demo@1.0.0",
        "dispatch",
        "dispatch@1.0.0",
        "dispatch@1.1.0",
    ]
    # Agents of the catalog the line names, by name or by folder.
    assert completing("assemble", "coding-agent", "--agent", "ex") == ["explore"]
    assert completing("tokens", "coding-agent@1.0.0", "--tools", "Bash", "--agent", "pl") == [
        "plan"
    ]
    assert completing("assemble", str(cli_demo / "demo" / "1.0.0"), "--agent", "") == [
        "main",
        "explore",
    ]
    assert completing("diff", "demo", "demo", "--path", str(cli_demo), "--agent", "") == [
        "main",
        "explore",
    ]
    # Nothing to say (no catalog yet, an unknown one): nothing, and no error.
    assert completing("assemble", "--agent", "") == []
    assert completing("assemble", "no-such", "--agent", "") == []
    # A value of another option is a file, not a catalog.
    assert "coding-agent" not in completing("assemble", "--context", "")
    assert completing("port", "x", "--to", "opa") == ["opal", "opal@1.0.0", "opal@1.1.0"]


def test_the_completion_helper_speaks_only_candidates(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "__complete", "agents", "catalog assemble opal --agent ")[:2] == (
        0,
        "main\nsub-agent\n",
    )
    for words in (["bogus", "x"], ["agents"], ["agents", 'catalog show "unclosed']):
        assert run(capsys, "__complete", *words) == (0, "", "")


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_load_in_their_shell(
    shell: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "completion", shell)
    assert code == 0
    for name in COMMANDS:
        assert name in out
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed; the script was only generated")
    script = tmp_path / f"catalog.{shell}"
    script.write_text(out)
    probe, expected = {
        "zsh": (f"source {script} && print -r -- ${{_comps[catalog]}}", "_bash_complete"),
        "fish": (f"source {script}; and complete -C 'catalog li'", "list\tlist catalogs"),
    }[shell]
    done = subprocess.run([shell, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


def test_completion_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "completion", "bash", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["shell"] == "bash"
    assert data["script"].endswith("complete -o filenames -F _catalog catalog\n")


# -- lock --update -------------------------------------------------------------------------


def test_lock_update_relocks_the_prompts_the_lock_holds(
    cli_demo: Path,
    make_catalog: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    grep = tmp_path / "grep.toml"
    grep.write_text('tools = ["Grep"]\n')
    lock = tmp_path / "prompts.lock"
    code, _, _ = run(
        capsys, "lock", "demo", "--path", str(cli_demo), "--context", str(grep),
        "--agent", "main", "--agent", "explore", "-o", str(lock),
    )  # fmt: skip
    assert code == 0
    grep.unlink()  # the lock holds the context itself: the file is not needed any more
    make_catalog(
        "demo", "1.1.0", [{"id": "intro", "body": "Hello again."}], agents=[{"name": "explore"}]
    )

    code, _, err = run(capsys, "lock", "--update", str(lock), "--path", str(cli_demo))
    assert code == 0
    assert err == f"locked demo 1.1.0 in {lock}\n"
    relocked = tomllib.loads(lock.read_text())
    assert relocked["catalog"]["version"] == "1.1.0"
    assert [(p["context"], p["agent"]) for p in relocked["prompt"]] == [
        (str(grep), "main"),
        (str(grep), "explore"),
    ]
    assert all(p["data"] == {"tools": ["Grep"]} for p in relocked["prompt"])
    assert run(capsys, "verify", str(lock), "--path", str(cli_demo))[0] == 0


def test_lock_update_with_an_explicit_version_and_output(
    cli_demo: Path,
    make_catalog: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lock = tmp_path / "prompts.lock"
    assert run(capsys, "lock", "demo", "--path", str(cli_demo), "-o", str(lock))[0] == 0
    make_catalog("demo", "1.1.0", [{"id": "intro", "body": "Hello again."}])
    out_file = tmp_path / "new.lock"
    code, _, _ = run(
        capsys,
        "lock",
        "demo@1.0.0",
        "--update",
        str(lock),
        "-o",
        str(out_file),
        "--path",
        str(cli_demo),
    )
    assert code == 0
    assert tomllib.loads(out_file.read_text())["catalog"]["version"] == "1.0.0"
    assert lock.read_text() == out_file.read_text()


def test_lock_update_of_a_missing_file_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "lock", "--update", str(tmp_path / "nope.lock"))
    assert (code, out) == (2, "")
    assert "nope.lock" in err


def test_lock_needs_a_catalog_or_update(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "lock")
    assert code == 2
    assert "give NAME[@SPEC] or a folder, or --update FILE" in err


def test_every_argument_said_to_name_a_catalog_exists() -> None:
    from catalog.cli import build_parser
    from catalog.cli._completion import CATALOG_ARGUMENTS

    parsers = build_parser().get_default("commands")
    for command, arguments in CATALOG_ARGUMENTS.items():
        actions = parsers[command]._actions
        known = {a.dest for a in actions if not a.option_strings}
        known |= {flag for a in actions for flag in a.option_strings}
        assert set(arguments) <= known, command


def test_the_fish_script_asks_for_catalogs_and_agents(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "completion", "fish")[1]
    assert (
        "complete -c catalog -n '__fish_seen_subcommand_from show' "
        "-a '(catalog __complete catalogs (commandline -cp) 2>/dev/null)' -d catalog"
    ) in out
    agent = [line for line in out.splitlines() if "from assemble' -l agent" in line]
    assert len(agent) == 1 and "(catalog __complete agents (commandline -cp)" in agent[0]


# -- help -----------------------------------------------------------------------------------

DOCS = SRC.parent / "docs"


def test_help_lists_every_page_and_prints_each(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "help", "--format", "json")
    assert code == 0
    listed = {entry["topic"]: entry["title"] for entry in json.loads(out)["topics"]}
    pages = {p.relative_to(DOCS).with_suffix("").as_posix(): p for p in DOCS.rglob("*.md")}
    assert set(listed) == set(pages)
    assert listed["cli"] == "The `catalog` command"
    package = Path(catalog.__file__).resolve().parent  # a link to a package file: there
    for topic, page in pages.items():
        code, out, _ = run(capsys, "help", topic)
        shown = page.read_text(encoding="utf-8").replace("](../src/catalog/", f"]({package}/")
        assert (code, out) == (0, shown), topic
    code, _, err = run(capsys, "help", "formatt")
    assert code == 2 and "did you mean 'format'?" in err


def test_the_top_level_help_points_to_catalog_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run(capsys, "--help")
    out = capsys.readouterr().out
    assert "catalog help cli" in out and "docs/cli.md" not in out
