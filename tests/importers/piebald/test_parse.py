"""Part files laid out by hand: the header comment where and how a person writes it.

The upstream files all start with ``<!--`` alone on the first line and end
their header with ``-->`` alone; copies edited by hand do not always. Each
case here says what its author obviously meant, written out by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.cli import main
from catalog.errors import ImporterError
from catalog.importers.piebald.parse import parse_prompt_file

BODY = "You are a careful agent.\n"


@pytest.mark.parametrize(
    "text",
    [
        # blank lines, or spaces, before the comment opens
        f"\n\n<!--\nname: A\ndescription: B\n-->\n{BODY}",
        f"  \t\n  <!--\nname: A\ndescription: B\n-->\n{BODY}",
        # spaces after `<!--` and around `-->`
        f"<!--   \nname: A\ndescription: B\n  -->  \n{BODY}",
        # the first field on the `<!--` line, the last one on the `-->` line
        f"<!-- name: A\ndescription: B\n-->\n{BODY}",
        f"<!--\nname: A\ndescription: B -->\n{BODY}",
        f"<!-- name: A\ndescription: B -->\n{BODY}",
        # fields lined up under the first one, after `<!-- `
        f"<!-- name: A\n     description: B\n-->\n{BODY}",
        # a header indented as a whole
        f"<!--\n  name: A\n  description: B\n-->\n{BODY}",
        # CRLF and a byte order mark, with all of the above
        "\ufeff" + f"\n<!-- name: A\ndescription: B -->\n{BODY}".replace("\n", "\r\n"),
    ],
)
def test_a_hand_laid_header_is_read_as_a_header(text: str) -> None:
    part = parse_prompt_file(text, "system-prompts/x.md")
    assert dict(part.header) == {"name": "A", "description": "B"}
    assert part.body == BODY


def test_a_one_line_header() -> None:
    part = parse_prompt_file(f"<!-- name: A -->\n{BODY}", "x.md")
    assert (dict(part.header), part.body) == ({"name": "A"}, BODY)


def test_a_file_of_a_header_alone_has_an_empty_body() -> None:
    assert parse_prompt_file("<!--\nname: A\n-->", "x.md").body == ""
    assert parse_prompt_file("<!-- name: A -->\n", "x.md").body == ""


def test_a_list_under_the_first_field_of_the_opening_line() -> None:
    part = parse_prompt_file(f"<!-- variables:\n  - A\n  - B\nname: N\n-->\n{BODY}", "x.md")
    assert dict(part.header) == {"variables": ["A", "B"], "name": "N"}


def test_a_file_without_a_comment_is_all_body() -> None:
    text = "\n# Title\n\n<!-- name: A -->\nText.\n"
    part = parse_prompt_file(text, "x.md")
    assert (dict(part.header), part.body) == ({}, text)


@pytest.mark.parametrize(
    ("text", "line", "problem", "hint"),
    [
        ("\n\n<!--\nname: A\n", 3, "not closed by a `-->` line", "a line ending with `-->`"),
        ("<!--\nname: A\n--> Body\n", 3, "text after the header's closing `-->`", "next line"),
        ("<!--\rname: A\r-->\rBody\r", 1, "text after the header's closing", "carriage returns"),
        ("\n<!--\nname: A\nname: B\n-->\n", 4, "the key 'name' is given twice", "key: value"),
        ("<!--\n  name: A\n  ccVersion: 1\nx: 2\n-->\n", 4, "indented less than", "key: value"),
        ("<!--\nname: A\nvariables: FOO\n-->\n", 3, "'variables' must be a list", "`- NAME`"),
    ],
)
def test_an_unreadable_header_names_the_file_line(
    text: str, line: int, problem: str, hint: str
) -> None:
    with pytest.raises(ImporterError) as info:
        parse_prompt_file(text, "system-prompts/x.md")
    assert (info.value.file, info.value.line) == ("system-prompts/x.md", line)
    assert problem in info.value.message
    assert hint in (info.value.hint or "")


def test_the_command_says_where_a_header_is_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "system-prompts").mkdir(parents=True)
    (checkout / "README.md").write_text("Prompts as of **[Claude Code v2.1.1](x) (today).**\n")
    (checkout / "system-prompts" / "system-prompt-a.md").write_text("\n<!--\nname: A\n")
    code = main(["import", "piebald", str(checkout), "--name", "cc", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "system-prompt-a.md:2: the header comment is not closed" in err
    assert "Traceback" not in err
    assert not (tmp_path / "cc" / "2.1.1").exists()


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        # keys quoted by a JSON-minded hand
        ("\"name\": A\n'description': B\n", {"name": "A", "description": "B"}),
        ('"agent: name": A\n', {"agent: name": "A"}),
        # YAML's escapes that JSON lacks
        ('name: "\\x41\\u00e9\\N\\_\\e\\0"\n', {"name": "A\u00e9\x85\xa0\x1b\x00"}),
        ('name: "tab\\there \\"q\\""\n', {"name": 'tab\there "q"'}),
        # an escape YAML does not know: the text as written
        ('name: "C:\\path\\x4"\n', {"name": "C:\\path\\x4"}),
        # a comment after the closing quote, in a value and in a list
        ("name: 'A' # why\nvariables:\n  - \"B\"  # later\n", {"name": "A", "variables": ["B"]}),
        # a plain value keeps its ` #` (a description says "issue #12")
        ("description: Fixes issue #12\n", {"description": "Fixes issue #12"}),
        # not a comment: no space before `#`, or text after the quote
        ("name: 'A'# x\nother: \"x\" y\n", {"name": "'A'# x", "other": '"x" y'}),
    ],
)
def test_quoted_keys_escapes_and_comments(header: str, expected: dict[str, object]) -> None:
    part = parse_prompt_file(f"<!--\n{header}-->\n{BODY}", "x.md")
    assert dict(part.header) == expected


def _checkout(folder: Path, parts: dict[str, str]) -> Path:
    (folder / "system-prompts").mkdir(parents=True)
    (folder / "README.md").write_text("Prompts as of **[Claude Code v2.1.1](x) (today).**\n")
    for part_id, text in parts.items():
        (folder / "system-prompts" / f"{part_id}.md").write_text(text)
    return folder


@pytest.mark.parametrize(
    ("again", "what"),
    [
        (
            {"system-prompt-a": "<!--\nname: A\n-->\nAnother text.\n"},
            "'system-prompt-a' has another body",
        ),
        ({"system-prompt-a": f"<!--\nname: A2\n-->\n{BODY}"}, "'system-prompt-a' has another meta"),
        (
            {"system-prompt-a": f"<!--\nname: A\n-->\n{BODY}", "system-prompt-b": BODY},
            "this release adds part 'system-prompt-b'",
        ),
        (
            {"system-prompt-c": BODY},
            "part 'system-prompt-a' is there, not in this release (and 1 more",
        ),
    ],
)
def test_a_release_imported_again_with_other_parts_names_the_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], again: dict[str, str], what: str
) -> None:
    # A rewritten history: the same release, other content. The manifest's lines
    # name parts files only, so the message says which part differs.
    out = str(tmp_path / "out")
    first = _checkout(tmp_path / "first", {"system-prompt-a": f"<!--\nname: A\n-->\n{BODY}"})
    assert main(["import", "piebald", str(first), "--name", "cc", "--out", out]) == 0
    second = _checkout(tmp_path / "second", again)
    capsys.readouterr()
    assert main(["import", "piebald", str(second), "--name", "cc", "--out", out]) == 2
    err = capsys.readouterr().err
    assert f"{out}/cc/2.1.1/catalog.toml: version 2.1.1 already exists with a different " in err
    assert what in err
    assert "a rewritten history?" in err


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("system-prompt-main.md", "system-prompt-main"),
        ("System Prompt  Main.md", "system-prompt-main"),
        ("système-ünï.md", "systeme-uni"),  # not syst-me-n-
        ("system-prompt-ñ.md", "system-prompt-n"),
        ("tool-description-\uff46\uff55\uff4c\uff4c.md", "tool-description-full"),  # full-width
        ("--agent-prompt-x.md", "agent-prompt-x"),
        ("名前.md", ""),
    ],
)
def test_part_ids_from_hand_named_files(file: str, expected: str) -> None:
    assert parse_prompt_file("x\n", f"system-prompts/{file}").id == expected


def test_a_file_name_without_an_id_says_how_to_name_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = _checkout(tmp_path / "c", {"名前": BODY})
    assert main(["import", "piebald", str(checkout), "--name", "cc", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "'名前.md' gives the part id '', which is empty" in err
    assert "rename the file" in err
