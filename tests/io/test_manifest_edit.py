"""Editing a manifest's values in place: only the values named change."""

from __future__ import annotations

import tomllib

from catalog.io.manifest_edit import edit_manifest

MANIFEST = '''# the overlay
[catalog]
name = "over"  # kept
version = "1.0.0"

[[part]]
id = "a"
description = """
[[part]]
sha256 = "decoy"
"""
sha256 = 'old'   # pinned by hand
tokens = 3

# ---- next section ----

[[part]]
id = "b"
'''


def test_values_change_where_they_stand_and_nothing_else() -> None:
    edited = edit_manifest(
        MANIFEST, catalog={"version": "2.0.0"}, parts={0: {"sha256": "new", "tokens": 12}}
    )
    assert edited.text == MANIFEST.replace('version = "1.0.0"', 'version = "2.0.0"').replace(
        "sha256 = 'old'   # pinned by hand\ntokens = 3",
        'sha256 = "new"   # pinned by hand\ntokens = 12',
    )
    assert edited.before == {
        ("catalog", "version"): '"1.0.0"',
        ("part", 0, "sha256"): "'old'",
        ("part", 0, "tokens"): "3",
    }


def test_a_missing_key_goes_after_the_tables_last_value_not_after_its_comments() -> None:
    text = MANIFEST.replace('id = "b"\n', 'id = "b"\n\n# closing words\n')
    edited = edit_manifest(text, parts={0: {"order": 5}, 1: {"tokens": 7}})
    assert "tokens = 3\norder = 5\n\n# ---- next section ----\n" in edited.text
    assert edited.text.endswith('id = "b"\ntokens = 7\n\n# closing words\n')
    assert edited.before == {("part", 0, "order"): None, ("part", 1, "tokens"): None}
    assert tomllib.loads(edited.text)["part"][0]["description"].startswith("[[part]]\n")


def test_parts_written_inline_are_edited_too() -> None:
    text = 'part = [{id = "a", tokens = 1}]\n[catalog]\nname = "x"\n'
    edited = edit_manifest(text, parts={0: {"tokens": 2, "sha256": "s"}})
    assert tomllib.loads(edited.text)["part"] == [{"id": "a", "tokens": 2, "sha256": "s"}]
