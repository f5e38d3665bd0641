"""A part's ``group`` is an assembly key: ``catalog diff`` and ``log`` report a part
joining, leaving or changing its group as an assembly change."""

from __future__ import annotations

from pathlib import Path

import catalog
from catalog import load_dir
from catalog.changes.history import open_history
from tests.conftest import write_catalog


def test_a_group_change_is_an_assembly_change(tmp_path: Path) -> None:
    root = tmp_path / "catalogs"
    old = write_catalog(root, "demo", "1.0.0", [{"id": "a", "body": "A."}, {"id": "b"}])
    new = write_catalog(
        root, "demo", "1.1.0", [{"id": "a", "body": "A.", "group": "g"}, {"id": "b"}]
    )
    result = catalog.diff(load_dir(old), load_dir(new))
    changed = {p.id: (p.change, [(f.key, f.old, f.new) for f in p.fields]) for p in result.changes}
    assert changed == {"a": ("assembly", [("group", None, "g")])}
    entries = open_history("demo", paths=[root], cache=False).log("a").entries
    assert [(e.version, e.change) for e in entries] == [("1.0.0", "added"), ("1.1.0", "assembly")]
