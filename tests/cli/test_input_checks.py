"""What the command line refuses or warns about in its input (versions, agents, tools,
API options, context files): each an error with a hint or a warning, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import catalog
from catalog.errors import UsageError
from tests.conftest import run_cli as run


@pytest.fixture
def misnamed(cli_demo: Path) -> Path:
    """demo 1.0.0 in a folder named 2.0.0."""
    folder = cli_demo / "demo" / "1.0.0"
    return folder.rename(folder.parent / "2.0.0")


@pytest.mark.parametrize("command", ["validate", "assemble", "lock", "show"])
def test_a_folder_whose_version_is_not_its_name_is_refused(
    misnamed: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, out, err = run(capsys, command, str(misnamed))
    message = "version '1.0.0' does not match its folder '2.0.0'"
    if command == "validate":
        assert code == 1
        manifest = misnamed / "catalog.toml"
        line = manifest.read_text().splitlines().index('version = "1.0.0"') + 1
        assert message in out and f"{manifest}:{line}" in out
    else:
        assert (code, out) == (2, "")
        assert message in err and "hint: rename the folder or fix the version" in err


def test_validate_dir_and_validate_name_agree(
    misnamed: Path, cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    by_dir = run(capsys, "validate", str(misnamed))
    by_name = run(capsys, "validate", "demo", "--path", str(cli_demo))
    assert by_dir[0] == by_name[0] == 1
    assert "does not match its folder" in by_name[1]


def test_lock_with_an_unknown_agent_exits_2_and_writes_nothing(
    cli_demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "prompts.lock"
    code, out, err = run(
        capsys, "lock", "demo", "--path", str(cli_demo), "--agent", "explor", "-o", str(out_file)
    )
    assert (code, out) == (2, "")
    assert "catalog demo 1.0.0 has no agent 'explor'" in err
    assert "did you mean 'explore'?" in err
    assert not out_file.exists()


def test_an_unknown_tool_is_a_warning_with_a_did_you_mean(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "assemble", "demo", "--path", str(cli_demo), "--tools", "Bsh,Grep")
    assert code == 0
    assert out == "Hello.\n\nGrep docs.\n"
    assert err == (
        "catalog: warning: tool 'Bsh' matches no part and no agent's tools of demo 1.0.0; "
        "did you mean 'Bash'?\n"
    )
    code, _, err = run(
        capsys, "assemble", "demo", "--path", str(cli_demo), "--tools", "Bsh", "--explain"
    )
    assert err.count("tool 'Bsh' matches no part") == 1
    assert "  ! tool 'Bsh' matches no part" in err
    code, _, err = run(capsys, "tokens", "demo", "--path", str(cli_demo), "--tools", "Bsh")
    assert "catalog: warning: tool 'Bsh'" in err


def test_tool_names_known_from_parts_agents_and_conditions_are_not_warned(
    cli_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Bash: a tool part; Grep: a condition; Glob: a sub-agent's tools; Shell: a condition
    # on agent.tools; Custom: described by the context's tool_info.
    context = cli_demo / "ctx.json"
    context.write_text(json.dumps({"tool_info": {"Custom": {"description": "mine"}}}))
    code, _, err = run(
        capsys, "assemble", "demo", "--path", str(cli_demo), "--context", str(context),
        "--tools", "Bash,Grep,Glob,Shell,Custom",
    )  # fmt: skip
    assert (code, err) == (0, "")


def test_an_unknown_tool_is_a_note_of_the_result_in_python(cli_demo: Path) -> None:
    cat = catalog.load("demo", paths=[cli_demo])
    prompt = cat.assemble({"tools": ["Bash", "Zzz"]})
    assert prompt.notes == ("tool 'Zzz' matches no part and no agent's tools of demo 1.0.0",)
    assert prompt.to_dict()["notes"] == list(prompt.notes)
    assert "  ! tool 'Zzz'" in prompt.explain()
    assert cat.assemble({"tools": ["Bash"]}).notes == ()


def test_the_bundled_catalogs_know_their_own_tools() -> None:
    tools = {
        "coding-agent": ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "Task", "WebFetch"],
        "pi": ["read", "bash", "edit", "write", "grep", "find", "ls"],
        "opal": ["read_file", "edit_file", "write_file", "shell", "bash", "powershell"],
    }
    for name, enabled in tools.items():
        assert catalog.load(name).assemble({"tools": enabled}).notes == (), name


@pytest.mark.parametrize("ttl", ["2d", "5 m", "", "1H"])
def test_anthropic_ttl_takes_only_what_the_api_accepts(cli_demo: Path, ttl: str) -> None:
    prompt = catalog.load("demo", paths=[cli_demo]).assemble()
    with pytest.raises(UsageError, match=f"ttl={ttl!r} is not a cache lifetime") as info:
        prompt.anthropic_system(ttl=ttl)  # type: ignore[arg-type]
    assert info.value.hint is not None and "'5m', '1h'" in info.value.hint
    for good in ("5m", "1h"):
        (block,) = prompt.anthropic_system(ttl=good)
        assert block["cache_control"] == {"type": "ephemeral", "ttl": good}


@pytest.mark.parametrize("role", ["user", "assistant", "System", ""])
def test_openai_role_takes_only_system_or_developer(cli_demo: Path, role: str) -> None:
    prompt = catalog.load("demo", paths=[cli_demo]).assemble()
    with pytest.raises(UsageError, match=f"role={role!r} is not a role for instructions"):
        prompt.openai_message(role=role)  # type: ignore[arg-type]
    assert prompt.openai_message(role="developer") == {"role": "developer", "content": "Hello."}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            '# mine\n\n[variables]\nplan_mode = "yes"\n',
            4,
            "variable 'plan_mode' must be of type bool",
        ),
        ("[variables]\nplan_mod = true\n", 2, "unknown variable 'plan_mod'"),
        ('# c\ntools = "Bash"\n', 2, "tools: must be a list"),
        ('[env]\nos = "Linux"\ncwd = 3\n', 3, "env.cwd"),
    ],
)
def test_context_file_errors_name_the_file_and_line(
    cli_demo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    line: int,
    message: str,
) -> None:
    context = tmp_path / "ctx.toml"
    context.write_text(text)
    code, out, err = run(
        capsys, "assemble", "demo", "--path", str(cli_demo), "--context", str(context)
    )
    assert (code, out) == (2, "")
    assert err.startswith(f"catalog: error: {context}:{line}: ")
    assert message in err


def test_a_json_context_error_names_the_file(
    cli_demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    context = tmp_path / "ctx.json"
    context.write_text('{"variables": {"plan_mode": "yes"}}')
    code, _, err = run(
        capsys, "assemble", "demo", "--path", str(cli_demo), "--context", str(context)
    )
    assert code == 2
    assert err.startswith(f"catalog: error: {context}: variables.plan_mode: variable 'plan_mode'")
