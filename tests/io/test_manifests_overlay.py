"""Overlays: a catalog with a ``base`` whose ``from`` parts reuse the base's bodies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import tomli_w

import catalog
from catalog import CatalogPath, ManifestError, NotFoundError
from catalog.cli import main
from catalog.io.stamp import stamp_folder
from tests.conftest import sha, write_catalog

BASE_BODIES = {
    "system-prompt-main": "You are ${PRODUCT_NAME}, a coding agent.",
    "system-prompt-git": "Never force-push. {{ not our template }}",
    "tool-description-bash": "Runs ${SHELL} commands.",
    "agent-prompt-explore": "You are a file search specialist.",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An imported-looking base catalog ``upstream`` 2.1.0 (raw bodies, metadata in meta)."""
    root = tmp_path / "catalogs"
    parts: list[dict[str, Any]] = []
    for index, (part_id, body) in enumerate(BASE_BODIES.items()):
        part: dict[str, Any] = {
            "id": part_id,
            "body": body,
            "order": 100,
            "template": False,
            "description": f"upstream {part_id}",
            "meta": {"name": f"Upstream: {part_id}", "index": index},
        }
        if part_id.startswith("tool-"):
            part.update(kind="tool", name="Bash")
        if part_id.startswith("agent-"):
            part["kind"] = "agent"
        parts.append(part)
    write_catalog(root, "upstream", "2.1.0", parts)
    write_catalog(root, "upstream", "2.2.0", [{"id": "system-prompt-main", "body": "Changed."}])
    return root


def write_overlay(
    root: Path,
    parts: Sequence[Mapping[str, Any]],
    *,
    base: str = "upstream@==2.1.0",
    name: str = "agent",
    version: str = "1.0.0",
    agents: Sequence[Mapping[str, Any]] = (),
) -> Path:
    """Write an overlay; ``from`` parts get the sha256 and tokens of the base body unless given."""
    folder = root / name / version
    folder.mkdir(parents=True, exist_ok=True)
    table = []
    for index, spec in enumerate(parts):
        part = dict(spec)
        part.setdefault("order", (index + 1) * 10)
        if "from" in part:
            body = BASE_BODIES.get(part["from"], "")
        else:
            body = part.pop("body")
            part.setdefault("file", f"{part['id']}.md")
            (folder / part["file"]).write_text(body, encoding="utf-8")
        part.setdefault("sha256", sha(body))
        part.setdefault("tokens", 1)
        table.append(part)
    data: dict[str, Any] = {
        "catalog": {"name": name, "version": version, "base": base},
        "part": table,
    }
    if agents:
        data["agent"] = [dict(a) for a in agents]
    (folder / "catalog.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    return folder


FLAGSHIP_SHAPE: list[dict[str, Any]] = [
    {"id": "identity", "from": "system-prompt-main", "order": 10},
    {"id": "house-rules", "body": "Answer in English.", "order": 20},
    {"id": "git-safety", "from": "system-prompt-git", "order": 30, "when": '"Bash" in tools'},
    {"id": "bash", "from": "tool-description-bash", "when": '"Bash" in tools', "agents": ["*"]},
    {"id": "explore", "from": "agent-prompt-explore", "agents": ["explore"]},
]


def test_overlay_takes_bodies_from_its_base_and_adds_order_conditions_agents(root: Path) -> None:
    write_overlay(root, FLAGSHIP_SHAPE, agents=[{"name": "explore", "tools": ["Grep"]}])
    cat = catalog.load("agent", paths=[root])

    plain = cat.assemble({"tools": []})
    assert plain.text == "You are ${PRODUCT_NAME}, a coding agent.\n\nAnswer in English."
    with_bash = cat.assemble({"tools": ["Bash"]})
    assert with_bash.text.endswith("Never force-push. {{ not our template }}")
    assert [(t.name, t.description) for t in with_bash.tools] == [
        ("Bash", "Runs ${SHELL} commands.")
    ]
    assert cat.assemble({}, agent="explore").text == "You are a file search specialist."


def test_from_parts_inherit_what_they_leave_out(root: Path) -> None:
    write_overlay(root, [*FLAGSHIP_SHAPE[:3], {**FLAGSHIP_SHAPE[3], "description": "mine"}])
    cat = catalog.load("agent", paths=[root])
    identity = cat.part("identity").decl
    assert identity.from_ == "system-prompt-main"
    assert identity.template is False
    assert identity.description == "upstream system-prompt-main"
    assert identity.meta == {"name": "Upstream: system-prompt-main", "index": 0}
    assert identity.file is None
    bash = cat.part("bash").decl
    assert (bash.kind, bash.name, bash.description) == ("tool", "Bash", "mine")
    assert cat.part("house-rules").decl.template is True


def test_overlay_can_set_inherited_keys_itself(root: Path) -> None:
    write_overlay(root, [{"id": "bash-text", "from": "tool-description-bash", "kind": "system"}])
    part = catalog.load("agent", paths=[root]).part("bash-text").decl
    assert (part.kind, part.name) == ("system", None)


def test_overlay_pins_the_base_text(root: Path) -> None:
    folder = write_overlay(root, FLAGSHIP_SHAPE[:1], base="upstream")  # newest: 2.2.0
    with pytest.raises(ManifestError) as info:
        catalog.load("agent", paths=[root])
    error = info.value
    assert error.file == str(folder / "catalog.toml")
    assert error.key == "part[0].sha256"
    assert "base part 'system-prompt-main' of upstream 2.2.0" in error.message
    assert "catalog stamp" in (error.hint or "")


def test_unknown_base_catalog(root: Path) -> None:
    folder = write_overlay(root, FLAGSHIP_SHAPE[:1], base="upstrem@2.1.0")
    with pytest.raises(NotFoundError) as info:
        catalog.load("agent", paths=[root])
    error = info.value
    assert "no catalog named 'upstrem'" in error.message
    lines = (folder / "catalog.toml").read_text().splitlines()
    assert (error.file, error.key) == (str(folder / "catalog.toml"), "catalog.base")
    assert error.line == lines.index('base = "upstrem@2.1.0"') + 1


def test_stamp_names_the_line_of_an_unknown_base(root: Path) -> None:
    folder = write_overlay(root, FLAGSHIP_SHAPE[:1], base="upstrem@2.1.0")
    with pytest.raises(NotFoundError) as info:
        stamp_folder(folder, catalog_path=CatalogPath([root], use_env=False))
    error = info.value
    assert "no catalog named 'upstrem'" in error.message
    lines = (folder / "catalog.toml").read_text().splitlines()
    assert (error.file, error.key) == (str(folder / "catalog.toml"), "catalog.base")
    assert error.line == lines.index('base = "upstrem@2.1.0"') + 1


def test_base_version_not_found(root: Path) -> None:
    write_overlay(root, FLAGSHIP_SHAPE[:1], base="upstream@>=3")
    with pytest.raises(NotFoundError) as info:
        catalog.load("agent", paths=[root])
    assert "no version of 'upstream' satisfies '>=3'" in info.value.message
    assert "2.1.0, 2.2.0" in (info.value.hint or "")
    assert info.value.key == "catalog.base"


def test_unknown_base_part(root: Path) -> None:
    folder = write_overlay(root, [{"id": "identity", "from": "system-prompt-mian"}])
    with pytest.raises(ManifestError) as info:
        catalog.load("agent", paths=[root])
    error = info.value
    assert "upstream 2.1.0 has no part 'system-prompt-mian'" in error.message
    assert error.hint == "did you mean 'system-prompt-main' or 'system-prompt-git'?"
    assert (error.file, error.key) == (str(folder / "catalog.toml"), "part[0].from")
    assert (
        error.line
        == (folder / "catalog.toml").read_text().splitlines().index('from = "system-prompt-mian"')
        + 1
    )


def test_from_needs_a_base(make_catalog: Any) -> None:
    folder = make_catalog("lonely", "1.0.0", [{"id": "a", "body": "A."}])
    text = (folder / "catalog.toml").read_text().replace('file = "a.md"', 'from = "a"')
    (folder / "catalog.toml").write_text(text)
    with pytest.raises(ManifestError) as info:
        catalog.load_dir(folder)
    assert info.value.key == "part[0].from"
    assert "no `base`" in info.value.message


def test_file_and_from_are_exclusive(root: Path) -> None:
    write_overlay(root, [{"id": "x", "from": "system-prompt-main", "file": "x.md"}])
    with pytest.raises(ManifestError, match=r"exactly one of `file`.*and `from`"):
        catalog.load("agent", paths=[root])


def test_merged_part_is_validated(root: Path) -> None:
    write_overlay(root, [{"id": "x", "from": "system-prompt-main", "kind": "tool"}])
    with pytest.raises(ManifestError) as info:
        catalog.load("agent", paths=[root])
    assert "needs `name`" in info.value.message
    assert info.value.key == "part[0]"


def test_a_base_cycle_is_an_error(root: Path) -> None:
    write_overlay(root, [{"id": "a", "body": "A."}], name="ping", base="pong")
    write_overlay(root, [{"id": "b", "body": "B."}], name="pong", base="ping")
    with pytest.raises(ManifestError, match=r"ping@1.0.0 -> pong@1.0.0 -> ping@1.0.0"):
        catalog.load("ping", paths=[root])


def _unstamped(root: Path, name: str, base: str) -> Path:
    """A hand-written overlay ``name`` 1.0.0 over ``base`` whose one part is not stamped."""
    folder = root / name / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(
        f'[catalog]\nname = "{name}"\nversion = "1.0.0"\nbase = "{base}"\n\n'
        '[[part]]\nid = "a"\nfrom = "a"\norder = 10\n',
        encoding="utf-8",
    )
    return folder


@pytest.mark.parametrize("base", ["self@1.0.0", "self", "self@>=1", "self@~=1.0"])
def test_an_overlay_whose_base_is_itself_is_told_so_first(
    root: Path, base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _unstamped(root, "self", base)
    catalog_path = CatalogPath([root], use_env=False)
    with pytest.raises(ManifestError) as loading:
        catalog_path.load("self")
    with pytest.raises(ManifestError) as stamping:
        stamp_folder(folder)  # found or not, the base is not looked for
    for error in (loading.value, stamping.value):
        assert error.message.startswith(f"base {base!r} is this catalog itself (self 1.0.0)")
        assert (error.key, error.line) == ("catalog.base", 4)
    assert [o.key for o in loading.value.others] == ["part[0].tokens", "part[0].sha256"]
    assert main(["stamp", str(folder), "--path", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"catalog: error: {folder / 'catalog.toml'}:4: catalog.base: base ")
    assert "stamp" not in err.split("hint:")[-1]


def test_an_earlier_version_of_itself_is_a_base_like_any_other(root: Path) -> None:
    write_catalog(root, "self", "0.9.0", [{"id": "a", "body": "Old A."}])
    folder = _unstamped(root, "self", "self@<1.0.0")
    stamp_folder(folder, catalog_path=CatalogPath([root], use_env=False))
    assert catalog.load("self", "==1.0.0", paths=[root]).part("a").body == "Old A."


def test_stamp_reports_a_cycle_through_another_catalog(root: Path) -> None:
    write_overlay(root, [{"id": "b", "body": "B."}], name="pong", base="ping@1.0.0")
    folder = _unstamped(root, "ping", "pong@1.0.0")
    with pytest.raises(ManifestError, match=r"ping@1.0.0 -> pong@1.0.0 -> ping@1.0.0") as info:
        stamp_folder(folder, catalog_path=CatalogPath([root], use_env=False))
    assert (info.value.key, info.value.line) == ("catalog.base", 4)


def test_stamp_records_base_hashes_and_the_cli_loads_overlays(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_overlay(
        root, FLAGSHIP_SHAPE, agents=[{"name": "explore"}], base="upstream@2.1.0"
    )
    text = (folder / "catalog.toml").read_text()
    (folder / "catalog.toml").write_text(
        text.replace(sha(BASE_BODIES["system-prompt-git"]), "0" * 64)
    )
    with pytest.raises(ManifestError):
        catalog.load("agent", paths=[root])
    changes = stamp_folder(folder, catalog_path=CatalogPath([root], use_env=False))
    assert {(c.part, c.key) for c in changes} >= {("git-safety", "sha256")}
    assert (
        catalog.load("agent", paths=[root]).part("git-safety").body
        == BASE_BODIES["system-prompt-git"]
    )

    assert main(["assemble", str(folder), "--path", str(root), "--format", "text"]) == 0
    assert capsys.readouterr().out.startswith("You are ${PRODUCT_NAME}")
    assert main(["validate", "agent", "--path", str(root)]) == 0
    assert "agent@1.0.0: " in capsys.readouterr().out
    assert main(["stamp", "--check", str(folder), "--path", str(root)]) == 0


def test_stamp_fills_in_a_hand_written_overlay_keeping_its_section_comments(
    root: Path,
) -> None:
    folder = root / "agent" / "1.0.0"
    folder.mkdir(parents=True)
    head = '[catalog]\nname = "agent"\nversion = "1.0.0"\nbase = "upstream@==2.1.0"\n\n'
    (folder / "catalog.toml").write_text(
        head + "# ---- main ----\n\n"
        '[[part]]\nid = "identity"\nfrom = "system-prompt-main"\norder = 10\n\n'
        "# ---- tools ----\n\n"
        '[[part]]\nid = "bash"\nfrom = "tool-description-bash"\norder = 20\n',
        encoding="utf-8",
    )
    with pytest.raises(ManifestError) as info:
        catalog.load("agent", paths=[root])
    assert "missing required key" in info.value.message
    assert f"run `catalog stamp {folder}` to record" in (info.value.hint or "")
    changes = stamp_folder(folder, catalog_path=CatalogPath([root], use_env=False))
    assert {(c.part, c.key, c.old) for c in changes} == {
        ("identity", "tokens", None),
        ("identity", "sha256", None),
        ("bash", "tokens", None),
        ("bash", "sha256", None),
    }
    tokens = {c.part: c.new for c in changes if c.key == "tokens"}
    main_sha, bash_sha = (
        sha(BASE_BODIES["system-prompt-main"]),
        sha(BASE_BODIES["tool-description-bash"]),
    )
    # The keys go to the end of each part's own lines, in the order tokens, sha256; a
    # comment heading the next section stays with it.
    assert (folder / "catalog.toml").read_text(encoding="utf-8") == (
        head + "# ---- main ----\n\n"
        '[[part]]\nid = "identity"\nfrom = "system-prompt-main"\norder = 10\n'
        f'tokens = {tokens["identity"]}\nsha256 = "{main_sha}"\n\n'
        "# ---- tools ----\n\n"
        '[[part]]\nid = "bash"\nfrom = "tool-description-bash"\norder = 20\n'
        f'tokens = {tokens["bash"]}\nsha256 = "{bash_sha}"\n'
    )
    assert [p.id for p in catalog.load("agent", paths=[root]).parts] == ["identity", "bash"]
