"""Hostile ``prompts/get`` and ``resources/read`` requests to ``catalog mcp``, through
the official MCP client connected in-process: every one is an MCP error carrying the
project's message (bounded, control and bidi characters escaped), never a crash, a
traceback, a file outside the catalogs or the store's location."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.conftest import write_catalog

anyio = pytest.importorskip("anyio")
pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import TextContent, TextResourceContents  # noqa: E402

from catalog.mcp.library import PromptLibrary  # noqa: E402
from catalog.mcp.server import build_server  # noqa: E402

SECONDS = 60  # a bound for one whole session, however slow the machine
INVALID_PARAMS = -32602
NOT_FOUND = -32002
INTERNAL = -32603
_T = TypeVar("_T")

BODY = "Hello {{ user }} {% if tools %}\n\tline\u202e two  \u00e9\n{% endif %}\n\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "catalogs"
    write_catalog(
        root,
        "acme",
        "1.0.0",
        [{"id": "main", "body": "Main {{ 'yes' if flag else 'no' }}."}],
        variables=[
            {"name": "flag", "type": "bool", "description": "a flag"},
            {"name": "paths", "type": "list", "description": "some files"},
        ],
        agents=[{"name": "b", "description": "sub-agent b"}],
    )
    write_catalog(root, "acme", "1.1.0", [{"id": "main", "body": "Newer."}])
    write_catalog(root, "raw", "1.0.0", [{"id": "text", "body": BODY}])
    (root.parent / "secret.txt").write_text("SECRET", encoding="utf-8")
    return root


def session(root: Path, work: Callable[[Client], Awaitable[_T]], store: str = "sqlite://") -> _T:
    """Run ``work`` with a client connected in-process to the server of ``root``."""
    library = PromptLibrary([root], store_url=store)

    async def main() -> _T:
        with anyio.fail_after(SECONDS):
            async with Client(build_server(library)) as client:
                return await work(client)

    try:
        result: _T = anyio.run(main)
    finally:
        library.close()
    return result


def text_of(content: object) -> str:
    """The text of a message's content or a resource's."""
    assert isinstance(content, TextContent | TextResourceContents), content
    return content.text


def errors(root: Path, calls: list[tuple[str, Any]], store: str = "sqlite://") -> list[Any]:
    """The error (code, message) of each ``("get", (name, arguments))`` or
    ``("read", uri)`` call, or the text it gave."""

    async def work(client: Client) -> list[Any]:
        found: list[Any] = []
        for kind, given in calls:
            try:
                if kind == "get":
                    result = await client.get_prompt(*given)
                    found.append(text_of(result.messages[0].content))
                else:
                    found.append(text_of((await client.read_resource(given)).contents[0]))
            except MCPError as exc:
                found.append((exc.error.code, exc.error.message))
        return found

    return session(root, work, store)


def assert_clean(message: str, limit: int = 1000) -> None:
    """A project message: short, no traceback, no path of this machine, nothing hidden."""
    assert len(message) < limit, message[:300]
    assert "Traceback" not in message
    assert "SECRET" not in message
    assert "/tmp" not in message and "pytest-of" not in message
    assert not any(char in message for char in "\x00\x1b\u202e\u2066")


HOSTILE_URIS = [
    "catalog://../../etc/passwd",
    "catalog://acme/1.0.0/../../../secret.txt",
    "catalog://acme/1.0.0/..",
    "catalog://%2e%2e/%2e%2e/secret.txt",
    "catalog://acme%2F1.0.0/main/x",
    "catalog://acme/1.0.0/main%2F..%2F..%2Fsecret.txt",
    "catalog://acme/1.0.0/ma\x00in",
    "catalog://acme/1.0.0/main/",
    "catalog://acme//main",
    "catalog://\u0430cme/1.0.0/main",  # Cyrillic a
    "catalog://acme/1.0.0/\u217fain",  # ROMAN NUMERAL ONE THOUSAND looks like m
    "catalog://acme/>=1/main",
    "catalog://acme/1.0.0 /main",
    "catalog://acme/9.9.9/main",
    "catalog://ACME/1.0.0/main",
    "catalog://acme/1.0.0/" + "m" * 100_000,
    "catalog://" + "a" * 100_000 + "/1.0.0/main",
    "catalog://acme/" + "1." * 50_000 + "0/main",
    "file:///etc/passwd",
    "catalog:acme/1.0.0/main",
    "catalog://acme/1.0.0/\u202emain",
]


def test_hostile_resource_uris_are_not_found_with_a_clean_message(root: Path) -> None:
    found = errors(root, [("read", uri) for uri in HOSTILE_URIS])
    for uri, result in zip(HOSTILE_URIS, found, strict=True):
        assert isinstance(result, tuple), f"{uri[:80]!r} was read: {result!r}"
        code, message = result
        assert code == NOT_FOUND, (uri[:80], message)
        assert_clean(message)


def test_a_version_that_is_not_one_is_named_as_such(root: Path) -> None:
    [(code, message)] = errors(root, [("read", "catalog://acme/>=1/main")])
    assert code == NOT_FOUND
    assert message.startswith("'>=1' is not a version")
    [(code, message)] = errors(root, [("read", "catalog://acme/v1.0.0/main")])
    assert (code, message.split(",")[0]) == (NOT_FOUND, "'v1.0.0' is not a version")


def test_a_resource_is_the_part_body_byte_for_byte_never_rendered(root: Path) -> None:
    [text, older] = errors(
        root, [("read", "catalog://raw/1.0.0/text"), ("read", "catalog://acme/1.0.0/main")]
    )
    assert text == BODY
    assert older == "Main {{ 'yes' if flag else 'no' }}."


HOSTILE_NAMES = [
    "../../etc/passwd",
    "acme/../raw",
    "acme.",
    "acme..b",
    "acme.b.",
    ".acme",
    "acme.\u0431",  # Cyrillic b
    "\u0430cme",
    "acme\x00",
    "acme.b\u202e",
    "a" * 100_000,
    "acme." + "b" * 100_000,
    "a." * 100_000,  # every cut tried would be quadratic
    "",
]


def test_hostile_prompt_names_are_invalid_params_with_a_clean_message(root: Path) -> None:
    found = errors(root, [("get", (name, None)) for name in HOSTILE_NAMES])
    for name, result in zip(HOSTILE_NAMES, found, strict=True):
        assert isinstance(result, tuple), f"{name[:80]!r} was served"
        code, message = result
        assert code == INVALID_PARAMS, (name[:80], message)
        assert_clean(message, limit=5000)


def test_hostile_versions_and_labels_are_invalid_params(root: Path) -> None:
    specs = [
        ">=" * 50_000 + "1",  # a specifier 100 KB long
        "~=1.0," * 20_000,
        "==9.9.9",
        "no-such-label",
        "label\u202e",
        "..",
        "1.0.0\x00",
        " ",  # empty: not given
    ]
    found = errors(root, [("get", ("acme", {"version-spec": spec})) for spec in specs])
    for spec, result in zip(specs[:-1], found, strict=False):
        assert isinstance(result, tuple), f"{spec[:80]!r} was served"
        assert result[0] == INVALID_PARAMS, (spec[:80], result)
        assert_clean(result[1])
    assert found[-1] == "Newer."
    assert "there is no release no-such-label" in found[3][1]


def test_a_store_that_cannot_be_opened_is_an_internal_error_not_naming_it(
    root: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    store = f"sqlite:///{blocker}/under/a/file/prompts.sqlite"
    [(code, message), newest] = errors(
        root,
        [("get", ("acme", {"version-spec": "production"})), ("get", ("acme", None))],
        store=store,
    )
    assert code == INTERNAL
    assert message.startswith("the prompt store cannot be read")
    assert_clean(message)
    assert newest == "Newer."  # the server goes on answering


def test_hostile_argument_values_are_refused_or_taken_as_text(root: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    calls: list[tuple[str, Any]] = [
        ("get", ("acme", {"version-spec": "1.0.0", "flag": "\x1b[31mmaybe\u202e"})),
        ("get", ("acme", {"version-spec": "1.0.0", "paths": deep})),
        ("get", ("acme", {"version-spec": "1.0.0", "undeclared": "x"})),
        ("get", ("acme", {"version-spec": "1.0.0", "flag\u202e": "x"})),
        ("get", ("acme", {"version-spec": "1.0.0", "x" * 100_000: "x"})),
        ("get", ("acme", {"version-spec": "1.0.0", "flag": "yes"})),
        ("get", ("acme", {"version-spec": "1.0.0", "model-name": "m" * 1_000_000})),
        ("get", ("acme", {"enabled-tools": ",".join(f"T{i}" for i in range(10_000))})),
    ]
    bad_bool, too_deep, undeclared, hidden, long_name, yes, long_model, tools = errors(root, calls)
    assert bad_bool[0] == INVALID_PARAMS
    assert "flag='\\x1b[31mmaybe\\u202e': not a valid bool" in bad_bool[1]
    assert too_deep == "Main no."  # too deep for JSON: read as one comma-separated item
    assert undeclared[0] == INVALID_PARAMS
    assert "argument 'undeclared': no such variable of acme 1.0.0" in undeclared[1]
    assert hidden[0] == INVALID_PARAMS and "'flag\\u202e'" in hidden[1]
    assert long_name[0] == INVALID_PARAMS
    # A bool is JSON true or false in every spelling, as with --set (docs/cli.md).
    assert yes[0] == INVALID_PARAMS and "flag='yes': not a valid bool" in yes[1]
    for error in (bad_bool, undeclared, hidden, long_name, yes):
        assert_clean(error[1], limit=3000)
    assert long_model == "Main no."
    assert tools == "Newer."


def test_a_catalog_named_like_a_sub_agent_prompt_hides_it_from_the_listing(
    root: Path,
) -> None:
    write_catalog(root, "acme.b", "1.0.0", [{"id": "main", "body": "The catalog acme.b."}])

    async def work(client: Client) -> tuple[list[str], str]:
        names = [prompt.name for prompt in (await client.list_prompts()).prompts]
        got = await client.get_prompt("acme.b")
        return names, text_of(got.messages[0].content)

    names, text = session(root, work)
    assert names.count("acme.b") == 1
    assert text == "The catalog acme.b."
    assert json.dumps(names)  # plain names, no duplicates to confuse a client


def test_a_hostile_catalog_s_error_names_its_file_within_the_catalogs_only(root: Path) -> None:
    write_catalog(
        root,
        "shadow",
        "1.0.0",
        [{"id": "main", "body": "x"}],
        variables=[{"name": "files", "type": "list", "description": "shadows a context name"}],
    )
    [(code, message)] = errors(root, [("get", ("shadow", None))])
    assert code == INVALID_PARAMS
    assert message.startswith("shadow/1.0.0/catalog.toml:"), message
    assert "variable 'files' shadows a context name" in message
    assert_clean(message)


def test_a_part_file_that_is_not_utf8_is_an_error_naming_it(root: Path) -> None:
    folder = write_catalog(root, "binary", "1.0.0", [{"id": "main", "body": "x"}])
    (folder / "main.md").write_bytes(b"caf\xe9 \xff\xfe\x00")
    [(read_code, read), (get_code, got)] = errors(
        root, [("read", "catalog://binary/1.0.0/main"), ("get", ("binary", None))]
    )
    assert read_code == INVALID_PARAMS  # the catalog does not load
    assert get_code == INVALID_PARAMS
    for message in (read, got):
        assert "binary/1.0.0/main.md" in message, message
        assert_clean(message)
