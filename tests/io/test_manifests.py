"""Manifest validation: every malformed manifest is a ManifestError with file, key and line."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from catalog import load, load_dir
from catalog.errors import EvaluationError, ExpressionError, ManifestError, TemplateError
from catalog.io.manifests import dump_manifest, parse_manifest, stamp_command
from catalog.io.positions import TomlPositions
from tests.conftest import run_cli, sha, write_catalog

GOOD = """\
[catalog]
name = "demo"
version = "1.0.0"

[[part]]
id = "intro"
file = "intro.md"
order = 10
tokens = 3
sha256 = "{sha}"

[[part]]
id = "tools"
file = "tools.md"
order = 20
when = '"Bash" in tools'
tokens = 3
sha256 = "{sha}"
"""


def write(folder: Path, manifest: str, bodies: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.toml").write_text(manifest, encoding="utf-8")
    for name, text in (bodies or {"intro.md": "Hello.", "tools.md": "Hello."}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def good(**replace: str) -> str:
    text = GOOD.replace("{sha}", sha("Hello."))
    for old, new in replace.items():
        text = text.replace(old, new)
    return text


def test_a_good_manifest_loads(tmp_path: Path) -> None:
    cat = load_dir(write(tmp_path / "demo" / "1.0.0", good()))
    assert cat.name == "demo"
    assert str(cat.version) == "1.0.0"
    assert [p.id for p in cat.parts] == ["intro", "tools"]


@pytest.mark.parametrize(
    ("change", "key", "line", "words"),
    [
        # unknown key in a part
        ({"order = 20": 'order = 20\ncolour = "red"'}, "part[1].colour", 16, "unknown key"),
        # a misspelt key in a part: missing the key meant, which the unknown one names
        ({"order = 20": "ordre = 20"}, "part[1].order", None, "did you mean 'order'?"),
        # unknown key in [catalog]
        (
            {'version = "1.0.0"': 'version = "1.0.0"\nauthor = "x"'},
            "catalog.author",
            4,
            "unknown key",
        ),
        # wrong type
        ({"order = 20": 'order = "twenty"'}, "part[1].order", 15, "integer"),
        # bad kind
        ({'id = "tools"': 'id = "tools"\nkind = "widget"'}, "part[1].kind", 14, "system"),
        # bad stability
        (
            {'id = "intro"': 'id = "intro"\nstability = "sometimes"'},
            "part[0].stability",
            7,
            "static",
        ),
        # not PEP 440
        ({'version = "1.0.0"': 'version = "one"'}, "catalog.version", 3, "PEP 440"),
        # duplicate ids
        ({'id = "tools"': 'id = "intro"'}, "part[1].id", 13, "duplicate part id 'intro'"),
        # missing required key
        ({"order = 10\n": ""}, "part[0].order", 5, "missing required key 'order'"),
        # bad sha format
        ({"order = 10": 'order = 10\nslot = "Bad Slot"'}, "part[0].slot", 9, "pattern"),
        # absolute file
        ({'file = "intro.md"': 'file = "/etc/passwd"'}, "part[0].file", 7, "relative"),
        # unknown agent
        (
            {'id = "tools"': 'id = "tools"\nagents = ["explorer"]'},
            "part[1].agents",
            14,
            "unknown agent",
        ),
        # tool without a name
        ({'id = "tools"': 'id = "tools"\nkind = "tool"'}, "part[1]", 12, "needs `name`"),
    ],
)
def test_malformed_manifests_name_file_key_and_line(
    tmp_path: Path, change: dict[str, str], key: str, line: int | None, words: str
) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(**change))
    with pytest.raises(ManifestError) as info:
        load_dir(folder)
    error = info.value
    assert error.file == str(folder / "catalog.toml")
    assert error.key == key
    if line is not None:
        assert error.line == line
    assert words in str(error)
    assert error.hint


def test_toml_syntax_error_has_the_line(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(**{"order = 20": "order = = 20"}))
    with pytest.raises(ManifestError) as info:
        load_dir(folder)
    assert info.value.line == 15
    assert "invalid TOML" in str(info.value)


def test_missing_body_file(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(), {"intro.md": "Hello."})
    with pytest.raises(ManifestError) as info:
        load_dir(folder)
    assert info.value.key == "part[1].file"
    assert info.value.line == 14
    assert "tools.md" in str(info.value) and "does not exist" in str(info.value)


def test_tampered_body_is_refused(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "demo" / "1.0.0", good(), {"intro.md": "Hello.", "tools.md": "Hullo."}
    )
    with pytest.raises(ManifestError) as info:
        load_dir(folder)
    assert info.value.key == "part[1].sha256"
    assert info.value.line == 18
    assert "catalog stamp" in str(info.value)


def test_crlf_bodies_hash_like_lf(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(), {})
    (folder / "intro.md").write_bytes(b"Hello.")
    (folder / "tools.md").write_bytes(b"Hello.")
    text = good().replace(sha("Hello."), sha("a\nb"), 1)
    (folder / "catalog.toml").write_text(text)
    (folder / "intro.md").write_bytes(b"a\r\nb")
    assert load_dir(folder).part("intro").body == "a\nb"


def test_body_that_is_not_utf8(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good())
    (folder / "intro.md").write_bytes(b"\xff\xfe bad")
    with pytest.raises(ManifestError, match="not UTF-8"):
        load_dir(folder)


def test_file_outside_the_catalog_folder_is_refused(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "demo" / "1.0.0", good(**{'file = "intro.md"': 'file = "../../x.md"'})
    )
    with pytest.raises(ManifestError, match="outside the catalog folder"):
        load_dir(folder)


def test_shared_bodies_inside_the_catalog_folder_are_allowed(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "demo" / "1.0.0", good(**{'file = "intro.md"': 'file = "../_blobs/a.md"'})
    )
    (tmp_path / "demo" / "_blobs").mkdir()
    (tmp_path / "demo" / "_blobs" / "a.md").write_text("Hello.")
    assert load_dir(folder).part("intro").body == "Hello."


def test_a_body_linked_out_of_the_catalog_folder_is_refused(tmp_path: Path) -> None:
    folder = write(tmp_path / "cats" / "demo" / "1.0.0", good())
    secret = tmp_path / "secret.md"
    secret.write_text("Hello.", encoding="utf-8")  # same text: only the link is wrong
    (folder / "intro.md").unlink()
    (folder / "intro.md").symlink_to(secret)
    with pytest.raises(ManifestError, match=r"points \(or links\) outside the catalog folder"):
        load_dir(folder)


def test_a_body_linked_inside_the_catalog_folder_is_read(tmp_path: Path) -> None:
    folder = write(tmp_path / "cats" / "demo" / "1.0.0", good())
    (folder / "intro.md").unlink()
    (folder / "intro.md").symlink_to(folder / "tools.md")
    assert load_dir(folder).part("intro").body == "Hello."


def test_a_body_under_a_folder_linked_out_of_the_catalog_folder_is_refused(
    tmp_path: Path,
) -> None:
    folder = write(tmp_path / "cats" / "demo" / "1.0.0", good(**{'"intro.md"': '"sub/intro.md"'}))
    outside = write(tmp_path / "outside", "", {"intro.md": "Hello."})
    (folder / "sub").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ManifestError, match=r"points \(or links\) outside the catalog folder"):
        load_dir(folder)


def test_a_version_folder_linked_out_of_its_catalog_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = write(tmp_path / "elsewhere" / "1.0.0", good())
    (tmp_path / "cats" / "demo").mkdir(parents=True)
    (tmp_path / "cats" / "demo" / "1.0.0").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ManifestError, match=r"points \(or links\) outside the catalog folder"):
        load("demo", paths=[tmp_path / "cats"])


def test_links_inside_the_catalog_folder_and_above_it_are_followed(tmp_path: Path) -> None:
    folder = write(tmp_path / "cats" / "demo" / "1.0.0", good(**{'"intro.md"': '"sub/intro.md"'}))
    write(tmp_path / "cats" / "demo" / "_blobs", "", {"intro.md": "Hello."})
    (folder / "sub").symlink_to(Path("..", "_blobs"), target_is_directory=True)
    (tmp_path / "linked").symlink_to(tmp_path / "cats", target_is_directory=True)
    cat = load("demo", paths=[tmp_path / "linked"])
    assert cat.part("intro").body == "Hello."
    linked = tmp_path / "linked" / "demo" / "1.0.0" / "sub" / "intro.md"
    assert cat.part("intro").path == str(linked)


def test_the_catalog_folder_itself_is_no_body(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(**{'file = "intro.md"': 'file = ".."'}))
    with pytest.raises(ManifestError, match="outside the catalog folder"):
        load_dir(folder)


def test_condition_typo_is_an_error_with_line_and_column(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(**{'"Bash" in tools': '"Bash" in tols'}))
    with pytest.raises(ExpressionError) as info:
        load_dir(folder)
    error = info.value
    assert error.key == "part[1].when"
    assert error.line == 16
    # The file's column: `when = '"Bash" in tols'` has 'tols' at column 19 of line 16.
    assert error.column == 19
    assert "catalog.toml:16:19: part[1].when: unknown name 'tols'" in str(error)
    assert "tools" in str(error)


@pytest.mark.parametrize("condition", ["false", "0", "none", '""', "[]", "1 > 2", "not true"])
def test_condition_that_is_always_false_is_an_error(tmp_path: Path, condition: str) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(**{'"Bash" in tools': condition}))
    with pytest.raises(ManifestError, match="never be selected") as info:
        load_dir(folder)
    assert (info.value.key, info.value.line) == ("part[1].when", 16)


def test_constant_condition_that_fails_is_an_error_at_its_key(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good(**{'"Bash" in tools': "len(5) > 0"}))
    with pytest.raises(EvaluationError, match=r"len\(\): cannot loop") as info:
        load_dir(folder)
    error = info.value
    assert (error.file, error.key, error.line) == (str(folder / "catalog.toml"), "part[1].when", 16)


def test_template_error_names_the_body_file_and_line(tmp_path: Path) -> None:
    body = "line one\n{% if tools %}\nunclosed\n"
    manifest = GOOD.replace("{sha}", sha("Hello."), 1).replace("{sha}", sha(body))
    folder = write(tmp_path / "demo" / "1.0.0", manifest, {"intro.md": "Hello.", "tools.md": body})
    with pytest.raises(TemplateError) as info:
        load_dir(folder)
    assert info.value.file == str(folder / "tools.md")
    assert info.value.line == 2


def test_variable_shadowing_a_context_name(tmp_path: Path) -> None:
    text = good() + '\n[[variable]]\nname = "tools"\ntype = "list"\n'
    folder = write(tmp_path / "demo" / "1.0.0", text)
    with pytest.raises(ManifestError, match="shadows"):
        load_dir(folder)


def test_variable_default_must_fit_its_type(tmp_path: Path) -> None:
    text = good() + '\n[[variable]]\nname = "plan_mode"\ntype = "bool"\ndefault = "yes"\n'
    folder = write(tmp_path / "demo" / "1.0.0", text)
    with pytest.raises(ManifestError, match="not of type bool"):
        load_dir(folder)


def test_dump_round_trips() -> None:
    manifest = parse_manifest(good(), "catalog.toml")
    assert parse_manifest(dump_manifest(manifest), "x") == manifest


@pytest.mark.parametrize(
    ("loc", "line"),
    [
        (("catalog",), 1),
        (("catalog", "version"), 3),
        (("part", 0), 5),
        (("part", 1, "when"), 16),
        (("part", 1, "nothing"), 12),
        (("part", 2, "when"), None),
        (("missing",), None),
    ],
)
def test_locate_key(loc: tuple[str | int, ...], line: int | None) -> None:
    assert TomlPositions(good()).line(loc) == line


NESTED = """\
lock = 1

[[prompt]]
agent = "main"

[prompt.data]
tools = ["Bash"]

[prompt.data.env]
cwd = "/src"

[[prompt]]
agent = "explore"

[prompt.data]
append = "x"
"""


@pytest.mark.parametrize(
    ("loc", "line"),
    [
        (("lock",), 1),  # a plain key before the first table
        (("prompt", 0, "agent"), 4),
        (("prompt", 0, "data"), 6),  # a sub-table of an array element
        (("prompt", 0, "data", "tools"), 7),
        (("prompt", 0, "data", "env", "cwd"), 10),
        (("prompt", 0, "data", "env", "os"), 9),  # closest: the sub-table
        (("prompt", 1, "data", "append"), 16),  # the second element's own sub-table
        (("prompt", 1, "data", "tools"), 15),
        (("prompt", 1, "data", "env"), 15),  # no such sub-table: the deepest one found
        (("prompt", 1, "meta"), 12),  # no such sub-table: the element
    ],
)
def test_locate_key_in_sub_tables_and_top_level_keys(
    loc: tuple[str | int, ...], line: int | None
) -> None:
    assert TomlPositions(NESTED).line(loc) == line


def test_a_table_where_a_list_belongs_is_named_in_plain_words(tmp_path: Path) -> None:
    one_part = good().split('\n\n[[part]]\nid = "tools"')[0]
    folder = write(tmp_path / "demo" / "1.0.0", one_part.replace("[[part]]", "[part]"))
    with pytest.raises(ManifestError) as info:
        load_dir(folder)
    assert info.value.key == "part"
    assert info.value.line == 5
    assert "must be a list (an array), not a table" in info.value.message


def test_a_manifest_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    folder = write(tmp_path / "demo" / "1.0.0", good())
    (folder / "catalog.toml").write_bytes(b"\xef\xbb\xbf" + good().encode())
    assert [p.id for p in load_dir(folder).parts] == ["intro", "tools"]


@pytest.mark.parametrize("root", ["catalogs", "my catalogs"])
def test_a_changed_body_names_the_stamp_command(tmp_path: Path, root: str) -> None:
    folder = write_catalog(tmp_path / root, "mybot", parts=[{"id": "intro", "body": "Hi."}])
    (folder / "intro.md").write_text("Hello.", encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_dir(folder)
    assert caught.value.hint == (
        "the body changed since the manifest was written: review it, then run "
        f"`catalog stamp {shlex.quote(str(folder))}` to record the new hash"
    )


def test_the_command_named_is_one_that_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_catalog(
        tmp_path / "my catalogs", "mybot", parts=[{"id": "intro", "body": "Hi."}]
    )
    (folder / "intro.md").write_text("Hello.", encoding="utf-8")
    words = shlex.split(stamp_command(folder))
    assert words[:2] == ["catalog", "stamp"]
    assert run_cli(capsys, *words[1:])[0] == 0
    assert load_dir(folder).part("intro").body == "Hello."
