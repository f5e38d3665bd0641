"""Rules files: what an import from git adds to the files it reads, release by release."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog import load_dir
from catalog.errors import ImporterError
from catalog.importers.git import import_git, load_rules
from tests._support.git_history import History
from tests.conftest import dedent


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    history = History(tmp_path / "repo")
    files = {"p/gpt.md": "GPT.", "p/claude.md": "Claude.", "p/plan.md": "Plan.", "p/misc.md": "M."}
    history.tag("v1.0.0", history.commit(files))
    history.tag("v2.0.0", history.commit({**files, "p/gpt.md": "GPT 2."}))
    return history.save()


def _rules(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(dedent(text), encoding="utf-8")
    return path


def _run(repo: Path, out: Path, rules: Path):  # type: ignore[no-untyped-def]
    return import_git(
        repo,
        name="agent",
        out=out,
        tags=["v*"],
        includes=["p/*.md"],
        roots=["p"],
        rules=load_rules(rules),
    )


def test_rules_set_keys_in_file_order_later_ones_overriding(repo: Path, tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        """
        [[variable]]
        name = "plan_mode"
        type = "bool"

        [[variable]]
        name = "legacy"
        type = "bool"

        [[rule]]
        parts = "*"
        order = 50
        when = "legacy"

        [[rule]]
        parts = "{gpt,claude}"
        when = "true"

        [[rule]]
        parts = "gpt"
        versions = ">=2"
        order = 10

        [[rule]]
        parts = "plan"
        kind = "reminder"
        when = "plan_mode"
        """,
    )
    out = tmp_path / "out"
    done = _run(repo, out, rules)
    assert done.unmatched_parts == ()
    assert done.idle_rules == ()
    old = {p.id: p.decl for p in load_dir(out / "agent" / "1.0.0").parts}
    new = {p.id: p.decl for p in load_dir(out / "agent" / "2.0.0").parts}
    assert (old["gpt"].order, old["gpt"].when) == (50, "true")
    assert (new["gpt"].order, new["gpt"].when) == (10, "true")  # the later rule's order only
    assert (new["claude"].order, new["claude"].when) == (50, "true")
    assert (new["misc"].order, new["misc"].when) == (50, "legacy")
    assert (new["plan"].kind, new["plan"].when, new["plan"].order) == ("reminder", "plan_mode", 50)
    catalog = load_dir(out / "agent" / "2.0.0")
    assert catalog.assemble({}).text == "GPT 2.\n\nClaude."
    assert [r.text for r in catalog.reminders({"variables": {"plan_mode": True}})] == ["Plan."]


def test_parts_no_rule_matches_are_listed_and_kept_as_they_are(repo: Path, tmp_path: Path) -> None:
    rules = _rules(tmp_path, '[[rule]]\nparts = "gpt"\norder = 1\n')
    done = _run(repo, tmp_path / "out", rules)
    assert done.unmatched_parts == ("claude", "misc", "plan")
    misc = next(p for p in load_dir(tmp_path / "out" / "agent" / "1.0.0").parts if p.id == "misc")
    assert (misc.decl.order, misc.decl.when, misc.decl.template) == (100, "true", False)


def test_a_rule_matching_nothing_is_reported_with_its_line(repo: Path, tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        """
        [[rule]]
        parts = "gpt"
        order = 1

        [[rule]]
        parts = "gemini*"
        order = 2

        [[rule]]
        parts = "claude"
        versions = ">=3"
        order = 3
        """,
    )
    done = _run(repo, tmp_path / "out", rules)
    assert done.idle_rules == (
        f"{rules}:5: rule 2: parts 'gemini*' matches no part",
        f"{rules}:9: rule 3: versions '>=3' matches no release of its parts",
    )


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('[[rule]]\nparts = "a"\ncolour = "red"\n', 3, "colour"),
        ('[[rule]]\nparts = "a"\n', 1, "sets none of"),
        (
            '[[rule]]\nparts = "a"\norder = 1\n\n[[rule]]\nparts = "'
            + "a" * 300
            + '"\norder = 2\n',
            6,
            "glob",
        ),
        ('[[rule]]\nparts = "a"\nversions = "=>1"\norder = 1\n', 3, "PEP 440"),
        ('[[rule]]\nparts = "a"\nkind = "sytem"\n', 3, "kind"),
        ('[[rule]]\nparts = "a"\norder = 1\n[[variable]\n', 4, "invalid TOML"),
        ('placeholders = "percent"\n', 1, "placeholders"),
        ('[[data]]\nfile = "m.json"\n', 1, "path"),
    ],
)
def test_errors_name_the_rules_file_and_line(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    rules = _rules(tmp_path, text)
    with pytest.raises(ImporterError) as caught:
        load_rules(rules)
    assert caught.value.file == str(rules)
    assert caught.value.line == line
    assert words in str(caught.value)


def test_a_rule_setting_a_key_the_manifest_refuses_names_the_part(
    repo: Path, tmp_path: Path
) -> None:
    rules = _rules(tmp_path, '[[rule]]\nparts = "gpt"\nagents = ["nobody"]\n')
    with pytest.raises(ImporterError, match="unknown agent 'nobody'"):
        _run(repo, tmp_path / "out", rules)


def test_a_condition_that_does_not_compile_names_the_rule_and_release(
    repo: Path, tmp_path: Path
) -> None:
    rules = _rules(
        tmp_path,
        """
        [[rule]]
        parts = "*"
        order = 5

        [[rule]]
        parts = "gpt"
        versions = ">=2"
        when = "false"
        """,
    )
    with pytest.raises(ImporterError) as caught:
        _run(repo, tmp_path / "out", rules)
    error = caught.value
    assert (error.file, error.line) == (str(rules), 5)
    assert "release v2.0.0: part 'gpt'" in error.message
    assert "always false" in error.message
    # Checked before writing: the release before it is written, not this one.
    assert (tmp_path / "out" / "agent" / "1.0.0").is_dir()
    assert not (tmp_path / "out" / "agent" / "2.0.0").exists()


def test_a_body_the_rules_make_a_template_is_checked_in_every_release(tmp_path: Path) -> None:
    history = History(tmp_path / "repo")
    history.tag("v1.0.0", history.commit({"p/a.md": "Hello {{ 1 + 1 }}."}))
    history.tag("v1.1.0", history.commit({"p/a.md": "Hello\n{{ 1 + }}."}))
    rules = _rules(tmp_path, '[[rule]]\nparts = "a"\ntemplate = true\n')
    with pytest.raises(ImporterError) as caught:
        _run(history.save(), tmp_path / "out", rules)
    assert (caught.value.file, caught.value.line) == ("v1.1.0:p/a.md", 2)
    assert caught.value.message.startswith("release v1.1.0: ")
    assert load_dir(tmp_path / "out" / "agent" / "1.0.0").assemble({}).text == "Hello 2."


def test_rules_make_groups_of_alternatives_picked_by_model(repo: Path, tmp_path: Path) -> None:
    rules = _rules(
        tmp_path,
        """
        [[rule]]
        parts = "{gpt,claude,misc}"
        group = "provider"

        [[rule]]
        parts = "gpt"
        order = 10
        when = '"gpt" in model'

        [[rule]]
        parts = "claude"
        order = 20
        when = '"claude" in model'

        [[rule]]
        parts = "misc"
        order = 30

        [[rule]]
        parts = "plan"
        agents = ["*"]
        when = "false"
        versions = "<1"
        """,
    )
    out = tmp_path / "out"
    done = _run(repo, out, rules)
    assert done.idle_rules == (
        f"{rules}:19: rule 5: versions '<1' matches no release of its parts",
    )
    catalog = load_dir(out / "agent" / "2.0.0")
    assert catalog.part("gpt").decl.group == "provider"
    picked = {
        model: [p.id for p in catalog.assemble({"model": model}).parts if p.id != "plan"]
        for model in ("gpt-5", "claude-opus", "llama")
    }
    assert picked == {"gpt-5": ["gpt"], "claude-opus": ["claude"], "llama": ["misc"]}


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples" / "importing").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_the_example_rules_files_read(path: Path) -> None:
    # Their imports of the sample histories are checked in test_git_samples.py.
    rules = load_rules(path)
    assert len(rules.rules) >= 5
    assert all(rule.line is not None for rule in rules.rules)
