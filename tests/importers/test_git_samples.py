"""The two published sample histories (opencode, Codex): every release imports with one
command, each part is the file git holds at the tag, ``log`` agrees with git, and
opencode's provider prompt is the one its own selection code picks for a model id.

The bundles live in ../shared (skipped without it), and are cloned with git into a
temporary folder (skipped without git); git is the outside oracle the import is
checked against.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from packaging.version import Version

from catalog import CatalogPath
from tests.conftest import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "importing"
OPENCODE_PROMPTS = "packages/opencode/src/session/prompt"
OPENCODE = [
    "--tags", "v*",
    "--include", f"{OPENCODE_PROMPTS}/*.txt",
    "--root", OPENCODE_PROMPTS,
]  # fmt: skip
CODEX = [
    "--tags", "rust-v*",
    "--include", "codex-rs/core/*prompt*.md",
    "--include", "codex-rs/core/templates/**/*.md",
    "--include", "codex-rs/protocol/src/prompts/**/*.md",
    "--root", "codex-rs/core",
    "--root", "codex-rs/protocol/src/prompts",
]  # fmt: skip


def _clone(shared_fixtures: Path, tmp_path: Path, name: str) -> Path:
    bundle = shared_fixtures / "agent-prompt-histories" / f"{name}-sample.bundle"
    if not bundle.is_file():
        pytest.skip(f"{bundle} is not on this machine")
    if shutil.which("git") is None:
        pytest.skip("git is not installed: it clones the sample bundle")
    target = tmp_path / name
    subprocess.run(["git", "clone", "-q", str(bundle), str(target)], check=True)
    return target


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _tags(repo: Path, prefix: str) -> list[str]:
    tags = [t for t in _git(repo, "tag").split() if t.startswith(prefix)]
    return sorted(tags, key=lambda tag: Version(tag.removeprefix(prefix)))


@pytest.fixture
def opencode(shared_fixtures: Path, tmp_path: Path) -> Path:
    return _clone(shared_fixtures, tmp_path, "opencode")


@pytest.fixture
def codex(shared_fixtures: Path, tmp_path: Path) -> Path:
    return _clone(shared_fixtures, tmp_path, "codex")


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Run:
    return lambda *args: run_cli(capsys, *args)


def _files_at(repo: Path, tag: str, folder: str, suffix: str) -> dict[str, str]:
    """name -> text of the files directly in ``folder`` at ``tag``, read by git."""
    paths = _git(repo, "ls-tree", "--name-only", tag, f"{folder}/").splitlines()
    return {
        path.rpartition("/")[2].removesuffix(suffix): _git(repo, "show", f"{tag}:{path}")
        for path in paths
        if path.endswith(suffix)
    }


def test_every_opencode_release_imports_as_git_holds_it(
    opencode: Path, tmp_path: Path, cli: Run
) -> None:
    out = tmp_path / "out"
    code, text, err = cli("import", "git", str(opencode), "--name", "opencode", "--out", str(out),
                          *OPENCODE)  # fmt: skip
    assert code == 0, err
    tags = _tags(opencode, "v")
    assert len(tags) == 13
    catalog_path = CatalogPath([out])
    for tag in tags:
        catalog = catalog_path.load("opencode", f"=={tag[1:]}")
        assert {p.id: p.body for p in catalog.parts} == _files_at(
            opencode, tag, OPENCODE_PROMPTS, ".txt"
        ), tag
    assert "13 version(s) imported" in text
    assert (out / "opencode" / "LICENSE").read_text() == _git(
        opencode, "show", f"{tags[-1]}:LICENSE"
    )


def test_every_codex_release_imports_with_its_data_file(
    codex: Path, tmp_path: Path, cli: Run
) -> None:
    out = tmp_path / "out"
    rules = str(EXAMPLES / "codex-rules.toml")
    code, text, err = cli(
        "import", "git", str(codex), "--name", "codex", "--out", str(out), *CODEX,
        "--rules", rules, "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(text)
    tags = _tags(codex, "rust-v")
    assert [v["version"] for v in report["versions"]] == [
        str(Version(t.removeprefix("rust-v"))) for t in tags
    ]
    assert report["idle_rules"] == []
    catalog_path = CatalogPath([out])
    for tag in tags:
        catalog = catalog_path.load("codex", f"=={Version(tag.removeprefix('rust-v'))}")
        parts = {p.id: p.body for p in catalog.parts}
        # Files: as git holds them, one part each.
        for folder in ("codex-rs/core", "codex-rs/core/templates/compact"):
            assert {
                p.decl.meta["source"]["path"]: p.body
                for p in catalog.parts
                if p.decl.meta["source"]["path"].rpartition("/")[0] == folder
                and "entry" not in p.decl.meta["source"]
            } == {
                f"{folder}/{name}.md": text
                for name, text in _files_at(codex, tag, folder, ".md").items()
                if "prompt" in name or folder.endswith("compact")
            }, (tag, folder)
        # models.json: one part per model with instructions, named by its slug.
        listing = _git(codex, "ls-tree", "--name-only", f"{tag}:codex-rs/core").split()
        models = (
            json.loads(_git(codex, "show", f"{tag}:codex-rs/core/models.json"))["models"]
            if "models.json" in listing
            else []
        )
        expected = {
            f"model-{m['slug']}": m["base_instructions"]
            for m in models
            if isinstance(m.get("base_instructions"), str)
        }
        assert {k: v for k, v in parts.items() if k.startswith("model-")} == expected, tag
    newest = catalog_path.load("codex")
    assert any(p.decl.placeholders == "double-brace" for p in newest.parts)


def test_codex_assembles_a_model_s_own_instructions(codex: Path, tmp_path: Path, cli: Run) -> None:
    out = tmp_path / "out"
    rules = str(EXAMPLES / "codex-rules.toml")
    code, _, err = cli("import", "git", str(codex), "--name", "codex", "--out", str(out), *CODEX,
                       "--rules", rules)  # fmt: skip
    assert code == 0, err
    newest = _tags(codex, "rust-v")[-1]
    models = json.loads(_git(codex, "show", f"{newest}:codex-rs/core/models.json"))["models"]
    catalog = CatalogPath([out]).load("codex")
    for model in models:
        prompt = catalog.assemble({"model": model["slug"]})
        taken = [p.id for p in prompt.parts if p.id.startswith("model-")]
        assert taken == [f"model-{model['slug']}"]
        assert model["base_instructions"] in prompt.text


# opencode's packages/opencode/src/session/system.ts, provider(), as each sample
# release writes it: (test on the model id, the file returned), first match wins.
Pick = tuple[Callable[[str], bool], str]


def _has(*words: str, lower: bool = False) -> Callable[[str], bool]:
    """``model.includes(word) || ...`` (of ``model.toLowerCase()`` with ``lower``)."""
    return lambda model: any(word in (model.lower() if lower else model) for word in words)


def _gpt_family(model: str) -> bool:
    return _has("gpt-", "o1", "o3")(model)


def _always(model: str) -> bool:
    return True


_OLD: list[Pick] = [
    (_gpt_family, "beast"),
    (_has("gemini-"), "gemini"),
    (_has("claude"), "anthropic"),
]
_NEW: list[Pick] = [
    (_has("gemini-"), "gemini"),
    (_has("claude"), "anthropic"),
    (_has("trinity", lower=True), "trinity"),
]
_BEAST: Pick = (_has("gpt-4", "o1", "o3"), "beast")
_GPT: list[Pick] = [
    _BEAST,
    (lambda m: "gpt" in m and "codex" in m, "codex"),
    (_has("gpt"), "gpt"),
]
_PICKS: dict[str, list[Pick]] = {
    "0.5.5": [(_has("gpt-5"), "copilot-gpt-5"), *_OLD, (_always, "qwen")],
    "1.0.0": [(_has("gpt-5"), "codex"), *_OLD, (_always, "qwen")],
    "1.0.100": [
        (_has("gpt-5"), "codex"),
        *_OLD,
        (_has("polaris-alpha"), "polaris"),
        (_always, "qwen"),
    ],
    "1.1.27": [(_has("gpt-5"), "codex_header"), *_OLD, (_always, "qwen")],
    "1.3.0": [_BEAST, (_has("gpt"), "codex"), *_NEW, (_always, "default")],
    "1.3.4": [*_GPT, *_NEW, (_always, "default")],
    "1.4.8": [*_GPT, *_NEW, (_has("kimi", lower=True), "kimi"), (_always, "default")],
}
_PICKS["1.17.18"] = [(_has("muse-spark"), "meta"), *_PICKS["1.4.8"]]
_PICKS["1.1.26"] = _PICKS["1.0.0"]
_PICKS["1.15.2"] = _PICKS["1.4.8"]
_PICKS["1.18.3"] = _PICKS["1.17.18"]
PROVIDER_FILES = {file for picks in _PICKS.values() for _, file in picks}
MODELS = [
    "", "claude-sonnet-4-5", "claude-opus-4-1", "gpt-5", "gpt-5-codex", "gpt-5.1-codex-max",
    "gpt-4.1", "gpt-4o", "o3-mini", "o1", "gpt-oss-120b", "gemini-2.5-pro", "gemini-3-flash",
    "polaris-alpha", "Trinity-Large", "kimi-k2", "Kimi-K2-Thinking", "muse-spark-1",
    "qwen3-coder", "glm-4.6", "grok-code-fast-1",
]  # fmt: skip


def _pick_0_3_9(model: str, provider: str) -> str:
    if provider == "anthropic":
        return "anthropic"
    return "beast" if _gpt_family(model) else "anthropic"


def test_opencode_assembles_the_prompt_its_selection_code_picks(
    opencode: Path, tmp_path: Path, cli: Run
) -> None:
    out = tmp_path / "out"
    rules = str(EXAMPLES / "opencode-rules.toml")
    code, text, err = cli("import", "git", str(opencode), "--name", "opencode", "--out", str(out),
                          *OPENCODE, "--rules", rules, "--format", "json")  # fmt: skip
    assert code == 0, err
    report = json.loads(text)
    assert report["idle_rules"] == []
    assert report["unmatched_parts"] == []
    catalog_path = CatalogPath([out])
    checked = 0
    for tag in _tags(opencode, "v"):
        version = tag[1:]
        catalog = catalog_path.load("opencode", f"=={version}")
        for model in MODELS:
            for provider in ("anthropic", "openai", "opencode"):
                prompt = catalog.assemble({"model": model, "env": {"provider": provider}})
                taken = [p.id for p in prompt.parts if p.id in PROVIDER_FILES]
                if version == "0.1.0":
                    expected = "anthropic"  # no system.ts yet: one prompt for every model
                elif version == "0.3.9":
                    expected = _pick_0_3_9(model, provider)
                else:
                    expected = next(file for test, file in _PICKS[version] if test(model))
                assert taken == [expected], (version, model, provider)
                header = "anthropic_spoof" in {p.id for p in prompt.parts}
                if version == "0.3.9":
                    assert header == (provider == "anthropic")
                elif Version(version) >= Version("0.5"):
                    spoofed = Version(version) < Version("1.3") and "anthropic" in provider
                    assert header == spoofed, (version, provider)
                checked += 1
    assert checked == 13 * len(MODELS) * 3


def _lineages(
    repo: Path, tags: list[str], prefix: str, folders: list[str]
) -> list[list[tuple[str, str, str]]]:
    """Each file's history as ``git diff -M`` between consecutive releases tells it:
    a list of (version, change, path), a rename continuing the list it renames."""
    open_: dict[str, list[tuple[str, str, str]]] = {}
    done: list[list[tuple[str, str, str]]] = []
    previous = None
    for tag in tags:
        version = str(Version(tag.removeprefix(prefix)))
        if previous is None:
            listing = _git(repo, "ls-tree", "-r", "--name-only", tag, "--", *folders)
            lines = [f"A\t{path}" for path in listing.splitlines()]
        else:
            lines = _git(
                repo, "diff", "-M", "--name-status", previous, tag, "--", *folders
            ).splitlines()
        for line in lines:
            status, *paths = line.split("\t")
            if status == "A":
                open_[paths[0]] = [(version, "added", paths[0])]
            elif status == "M":
                open_[paths[0]].append((version, "changed", paths[0]))
            elif status == "D":
                open_[paths[0]].append((version, "removed", paths[0]))
                done.append(open_.pop(paths[0]))
            else:  # R<similarity>
                history = open_.pop(paths[0])
                history.append((version, "renamed", paths[1]))
                open_[paths[1]] = history
        previous = tag
    return done + list(open_.values())


CODEX_FOLDERS = ["codex-rs/core/templates", "codex-rs/protocol/src/prompts"]


@pytest.mark.parametrize(
    ("sample", "prefix", "folders", "reused"),
    [
        ("opencode", "v", [OPENCODE_PROMPTS], 1),  # codex.txt, deleted in 1.1.27, then reused
        ("codex", "rust-v", CODEX_FOLDERS, 0),
    ],
)
def test_log_agrees_with_git(
    sample: str,
    prefix: str,
    folders: list[str],
    reused: int,
    shared_fixtures: Path,
    tmp_path: Path,
    cli: Run,
) -> None:
    repo = _clone(shared_fixtures, tmp_path, sample)
    out = tmp_path / "out"
    options = ["--tags", f"{prefix}*"]
    for folder in folders:
        options += ["--include", f"{folder}/**", "--root", folder]
    code, _, err = cli("import", "git", str(repo), "--name", sample, "--out", str(out), *options)
    assert code == 0, err
    tags = _tags(repo, prefix)
    versions = [str(Version(tag.removeprefix(prefix))) for tag in tags]
    lineages = _lineages(repo, tags, prefix, folders)
    last_holder = {}
    for history in lineages:
        last_holder[history[-1][2]] = history  # a reused path: the later history holds it
    checked = 0
    for history in lineages:
        path = history[-1][2]
        root = next(folder for folder in folders if path.startswith(folder + "/"))
        part = path[len(root) + 1 :].rsplit(".", 1)[0].replace("/", "-").lower()
        args = ["--path", str(out), "log", sample, part, "--format", "json"]
        if last_holder[path] is not history:
            # An id another file took since: asked as of the last release holding it.
            gone = versions.index(history[-1][0])
            args += ["--as-of", f"=={versions[gone - 1]}"]
            reused -= 1
        code, text, err = cli(*args)
        assert code == 0, err
        got = [
            (
                e["version"],
                e["change"] if e["change"] in ("added", "removed", "renamed") else "changed",
            )
            for e in json.loads(text)["entries"]
        ]
        assert got == [(version, change) for version, change, _ in history], part
        checked += 1
    assert checked == len(lineages) > 10
    assert reused == 0
