"""A version's parts taken from shared parts files are checked by the manifest's own rules,
each error placed in the parts file, at the line of the part that breaks them."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomli_w

from catalog.errors import ManifestError
from catalog.io.catalog_path import load_dir
from tests.conftest import sha


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
