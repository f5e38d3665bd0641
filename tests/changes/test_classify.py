"""Every boundary between the classes of a text change: what is only whitespace, only
the layout of a placeholder, and what is a change of wording a reviewer must see."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import catalog
from catalog.changes.classify import inside_placeholders, text_class, words
from catalog.changes.history import open_history
from catalog.changes.render import render_text
from catalog.io.catalog_path import load_dir
from tests.conftest import write_catalog


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use Bash here.", "use Bash here."),  # one letter's case
        ("Use Bash here.", "USE BASH HERE."),
        ("Use Bash here.", "Use bash here."),
        ("straße", "STRASSE"),  # the same under casefold, not the same text
        ("Use Bash here.", "Use Bash here"),  # punctuation
        ("Use Bash here.", "Use Bash, here."),
        ("Use Bash here.", "UseBash here."),  # two words joined
        ("Use Bash here.", "Use Ba sh here."),  # one word split
        ("a\nb", "a\r\nb"),  # a carriage return is part of a word
        ("a b", "a\u00a0b"),  # a no-break space too
        ("ab", "a\u200bb"),  # and an invisible one
        ("a b", "a b\x0b"),
        ("café", "cafe\u0301"),  # another normal form
        ("one two", "two one"),  # the same words in another order
        ("one", "one one"),
        ("", "one"),
        ("one", ""),
        ("Use ${A} here.", "Use ${a} here."),  # a placeholder's name, another case
        ('Say ${X ? "Yes" : ""}.', 'Say ${X ? "yes" : ""}.'),  # a string's word
        ('Say ${X ? "a b" : ""}.', 'Say ${X ? "ab" : ""}.'),
        ("Use ${A} here.", "Use ${B} here."),
        ("Use ${A + 1} here.", "Use ${A + 2} here."),
        ("Use ${A + 1} here.", "Use ${A - 1} here."),
        ("Use ${A} here.", "Use ${ A } Here."),  # layout inside and a word outside
        ("Use ${A} here.", "Use A here."),
    ],
)
def test_a_change_of_wording_is_prose(old: str, new: str) -> None:
    assert text_class(old, new) == "prose"
    assert text_class(new, old) == "prose"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use Bash here.", "Use  Bash here."),
        ("Use Bash here.", "Use\tBash here."),
        ("Use Bash here.", "Use\nBash here."),
        ("Use Bash here.", "Use \t\n Bash here."),
        ("Use Bash here.", " Use Bash here."),
        ("Use Bash here.", "Use Bash here.\n"),
        ("Use Bash here.", "\n\nUse Bash here.\n\n"),
        ("", " \n\t"),
        ('Say ${X ? "a b" : ""}.', 'Say ${X ? "a  b" : ""}.'),  # spacing inside a string
    ],
)
def test_a_change_of_spaces_tabs_and_line_feeds_alone_is_whitespace(old: str, new: str) -> None:
    assert text_class(old, new) == "whitespace"
    assert text_class(new, old) == "whitespace"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use ${A} here.", "Use ${ A } here."),
        ("Use ${A+1} here.", "Use ${A + 1} here."),
        ('Say ${X ? "yes" : ""}.', "Say ${X ? 'yes' : ''}."),  # quote marks
        ('Say ${X ? "yes" : ""}.', "Say ${X ? `yes` : ``}."),
        ("Use ${A} here.", "Use  ${ A }  here."),  # and whitespace around
    ],
)
def test_a_change_of_placeholder_layout_alone_is_placeholders(old: str, new: str) -> None:
    assert text_class(old, new) == "placeholders"
    assert text_class(new, old) == "placeholders"


@pytest.mark.parametrize("text", ["", " ", "Use Bash.", "Use ${A}.", "a\r\nb"])
def test_the_same_text_is_no_change(text: str) -> None:
    assert text_class(text, text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        (" \t\n", []),
        ("a", ["a"]),
        (" a\tb\nc ", ["a", "b", "c"]),
        ("a\r\nb", ["a\r", "b"]),
        ("a\u00a0b", ["a\u00a0b"]),
        ("A a", ["A", "a"]),
    ],
)
def test_words_split_at_spaces_tabs_and_line_feeds_only(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('Say ${X ? "yes" : ""}.', 'Say ${X ? "Yes" : ""}.', ["Yes"]),
        ('Say ${X ? "yes" : ""}.', 'Say ${X ? "yes" : "no"}.', ["no"]),
        ("Use ${A} here.", "Use ${B} here.", []),
        ("Use ${A} here.", "Use ${A} there.", None),
        ("Use ${A} here.", "use ${A} here.", None),
    ],
)
def test_inside_placeholders_names_the_new_strings(
    old: str, new: str, expected: list[str] | None
) -> None:
    assert inside_placeholders(old, new) == expected


def test_a_case_only_edit_is_shown_by_default_in_a_diff(
    make_catalog: Callable[..., Path],
) -> None:
    """`catalog diff` folds whitespace changes into one line by default: a change of case
    is wording, listed with the prose changes."""
    old = make_catalog("demo", "1.0.0", [{"id": "rule", "body": "Never push to main."}])
    new = make_catalog("demo", "1.1.0", [{"id": "rule", "body": "Never push to Main."}])
    changes = catalog.diff(load_dir(old), load_dir(new), counter=len)
    assert [(p.id, p.status, p.change) for p in changes.changes] == [("rule", "changed", "prose")]
    assert "rule" in render_text(changes)
    assert "only in whitespace" not in render_text(changes)


def test_a_group_change_is_an_assembly_change(tmp_path: Path) -> None:
    """A part's ``group`` is an assembly key: diff and log report a part joining a group
    as an assembly change."""
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
