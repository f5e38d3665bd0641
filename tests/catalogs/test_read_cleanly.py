"""`catalog show` of the pi and opal catalogs reads cleanly: short expressions, none copied."""

from __future__ import annotations

from collections import Counter

import pytest

import catalog

LONGEST = 160


@pytest.mark.parametrize("name", ["pi", "opal"])
def test_no_long_expression_and_no_copied_condition(name: str) -> None:
    cat = catalog.load(name)
    manifest = cat.manifest
    written = [p.when for p in manifest.part if "when" in p.model_fields_set]
    expressions = [*written, *manifest.definitions.values()]
    for entries in manifest.lines.values():
        expressions += [text for e in entries for text in (e.when, e.items) if text]
    assert max(len(source) for source in expressions) <= LONGEST
    copied = [when for when, count in Counter(written).items() if count > 1]
    assert copied == []
