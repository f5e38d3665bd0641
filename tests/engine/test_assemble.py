"""Every step that turns a part's body into the prompt's text: leading blank lines and
trailing whitespace go, blank bodies leave the part out, CRLF becomes LF, parts are
joined by the separator; alike for a body known when the catalog loads, one rendered
for each context, a tool's description, a reminder, a slot override and the texts the
context supplies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import Catalog
from catalog.io.catalog_path import load_dir

# (body as written, text the prompt uses); expected values written by hand.
TRIMMED = [
    ("Hello.", "Hello."),
    ("\nHello.", "Hello."),
    ("\n\n\nHello.", "Hello."),
    ("Hello.\n", "Hello."),
    ("Hello.\n\n\n", "Hello."),
    ("Hello. \t \n", "Hello."),
    ("\n\nHello.\n\n", "Hello."),
    ("  Indented.", "  Indented."),  # a first line's indentation is the author's
    ("\n\n  Indented.", "  Indented."),
    ("\tTabbed.", "\tTabbed."),
    ("One.\n\n\nTwo.", "One.\n\n\nTwo."),  # inside a body nothing moves
    ("One.  \nTwo.", "One.  \nTwo."),
    ("One.\r\nTwo.\r\n", "One.\nTwo."),  # CRLF read as LF
    ("\ufeffHello.", "\ufeffHello."),  # a body's byte order mark is its text
]
BLANK = ["", "\n", "\n\n\n", "   ", " \t \n \n", "\r\n\r\n"]


def _one_part(make: Callable[..., Path], spec: dict[str, Any], **more: Any) -> Catalog:
    """A catalog whose part ``p`` is ``spec``, between parts ``a`` and ``z``."""
    parts = [
        {"id": "a", "order": 10, "body": "A."},
        {"id": "p", "order": 20, **spec},
        {"id": "z", "order": 30, "body": "Z."},
    ]
    return load_dir(make(parts=parts, **more))


# The same body reached in each way a part's text is made.
WAYS: dict[str, Callable[[str], tuple[dict[str, Any], dict[str, Any]]]] = {
    "static": lambda body: ({"body": body}, {}),
    "conditional": lambda body: ({"when": '"Grep" in tools', "body": body}, {"tools": ["Grep"]}),
    "rendered": lambda body: (
        {"body": "{{ lead }}" + body},
        {"variables": {"lead": ""}},
    ),
    "rendered-condition": lambda body: (
        {"when": "len(tools) > 0", "body": "{% if tools %}" + body + "{% endif %}"},
        {"tools": ["Read"]},
    ),
}
VARIABLES = [{"name": "lead", "type": "str"}]


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize(("body", "expected"), TRIMMED)
def test_a_body_is_trimmed_the_same_however_it_is_made(
    make_catalog: Callable[..., Path], way: str, body: str, expected: str
) -> None:
    spec, context = WAYS[way](body)
    prompt = _one_part(make_catalog, spec, variables=VARIABLES).assemble(context)
    assert prompt.text == f"A.\n\n{expected}\n\nZ."
    spans = [(p.id, prompt.text[p.start : p.end]) for p in prompt.parts]
    assert spans == [("a", "A."), ("p", expected), ("z", "Z.")]


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("body", BLANK)
def test_a_blank_body_leaves_the_part_out_and_no_separator(
    make_catalog: Callable[..., Path], way: str, body: str
) -> None:
    spec, context = WAYS[way](body)
    prompt = _one_part(make_catalog, spec, variables=VARIABLES).assemble(context)
    assert prompt.text == "A.\n\nZ."
    assert [p.id for p in prompt.parts] == ["a", "z"]
    assert ("p", "empty") in {(e.id, e.reason) for e in prompt.excluded}


@pytest.mark.parametrize(("body", "expected"), TRIMMED)
def test_a_tools_description_is_trimmed(
    make_catalog: Callable[..., Path], body: str, expected: str
) -> None:
    spec = {"kind": "tool", "name": "Bash", "when": '"Bash" in tools', "body": body}
    prompt = _one_part(make_catalog, spec).assemble({"tools": ["Bash"]})
    assert [(t.name, t.description) for t in prompt.tools] == [("Bash", expected)]
    assert prompt.text == "A.\n\nZ."


@pytest.mark.parametrize(("body", "expected"), TRIMMED)
def test_a_reminder_is_trimmed(make_catalog: Callable[..., Path], body: str, expected: str) -> None:
    spec = {"kind": "reminder", "stability": "turn", "body": body}
    catalog = _one_part(make_catalog, spec)
    assert [(r.id, r.text) for r in catalog.reminders({})] == [("p", expected)]
    assert catalog.assemble({}).text == "A.\n\nZ."


@pytest.mark.parametrize(("text", "expected"), TRIMMED[:-2])
def test_texts_the_context_supplies_are_trimmed(
    make_catalog: Callable[..., Path], text: str, expected: str
) -> None:
    catalog = _one_part(make_catalog, {"slot": "middle", "body": "P."})
    assert catalog.assemble({"overrides": {"middle": text}}).text == f"A.\n\n{expected}\n\nZ."
    assert catalog.assemble({"append": text}).text == f"A.\n\nP.\n\nZ.\n\n{expected}"
    assert catalog.assemble({"custom_prompt": text}).text == expected


@pytest.mark.parametrize("text", BLANK[1:])
def test_blank_texts_from_the_context_add_nothing(
    make_catalog: Callable[..., Path], text: str
) -> None:
    catalog = _one_part(make_catalog, {"slot": "middle", "body": "P."})
    assert catalog.assemble({"overrides": {"middle": text}}).text == "A.\n\nZ."
    assert catalog.assemble({"append": text}).text == "A.\n\nP.\n\nZ."
    assert [p.id for p in catalog.assemble({"append": text}).parts] == ["a", "p", "z"]


@pytest.mark.parametrize("separator", ["\n\n", "\n", "\n---\n", ""])
def test_parts_are_joined_by_the_catalogs_separator(
    make_catalog: Callable[..., Path], separator: str
) -> None:
    catalog = _one_part(make_catalog, {"body": "\nP.\n"}, catalog={"separator": separator})
    prompt = catalog.assemble({"append": "E."})
    assert prompt.text == separator.join(["A.", "P.", "Z.", "E."])
    spans = [prompt.text[p.start : p.end] for p in prompt.parts]
    assert spans == ["A.", "P.", "Z.", "E."]
