"""The pages of `catalog serve`, rendered from the package's templates: autoescaped, every
untrusted text shown with its hidden characters made visible, the home page's newest
versions, the diff page's reference totals, the version page's bars."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests._support.serving import html_page, write_demo_catalogs
from tests.conftest import write_catalog

# A tool whose name carries a right-to-left override and markup, and a summary carrying
# a terminal escape and a zero-width space: what a catalog nobody here wrote may hold.
_TOOL = "Ba\u202esh<script>alert(1)</script>"
_SUMMARY = "Reads \x1b[2J files\u200b & <b>writes</b>"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    catalogs = write_demo_catalogs(tmp_path / "catalogs")
    write_catalog(
        catalogs,
        "odd",
        parts=[
            {"id": "intro", "body": "Hello.", "order": 1, "description": _SUMMARY},
            {"id": "tool", "kind": "tool", "name": _TOOL, "body": "Run.", "order": 2,
             "when": f'"{_TOOL}" in tools'},
        ],
        catalog={"summary": _SUMMARY},
        variables=[{"name": "note", "type": "str", "default": "a\u202eb"}],
    )  # fmt: skip
    for minor in range(12):
        write_catalog(catalogs, "many", f"1.{minor}.0", parts=[{"id": "p", "body": "x" * 8}])
    for version, figures in (("1.0.0", (10, 20)), ("2.0.0", (15, None))):
        parts = [
            {"id": f"p{i}", "body": "Some text.", **({} if f is None else {"reference_tokens": f})}
            for i, f in enumerate(figures)
        ]
        write_catalog(catalogs, "counted", version, parts=parts,
                      catalog={"reference_counter": "upstream"})  # fmt: skip
    settings = ServerSettings(
        paths=(str(catalogs),),
        store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}",
        template_catalog="tpl",
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as served:
        yield served


def test_untrusted_text_is_escaped_and_its_hidden_characters_shown(client: TestClient) -> None:
    page = html_page(client, "/catalogs/odd/1.0.0")
    # The summary: the escape and the zero-width space shown, the markup escaped.
    assert "Reads &lt;U+001B&gt;[2J files&lt;U+200B&gt; &amp; &lt;b&gt;writes&lt;/b&gt;" in page
    # The tool's name and the condition naming it: the override cannot reorder them.
    assert "Ba&lt;U+202E&gt;sh&lt;script&gt;alert(1)&lt;/script&gt;" in page
    for hidden in ("\u202e", "\u200b", "\x1b", "<script>alert", "<b>"):
        assert hidden not in page
    assert len(re.findall(r"<script\b", page)) == 1  # the page's own script alone


def test_a_value_the_script_sends_back_is_exact_and_escaped(client: TestClient) -> None:
    """The playground shows the tool's name made visible, and keeps the exact name (escaped)
    in the attribute its script sends back, so assembling with it still matches."""
    page = html_page(client, "/playground?catalog=odd")
    assert "> Ba&lt;U+202E&gt;sh&lt;script&gt;alert(1)&lt;/script&gt;</label>" in page
    assert 'data-tool="Ba\u202esh&lt;script&gt;alert(1)&lt;/script&gt;"' in page
    assert 'data-var="note" data-type="str" value="a\u202eb"' in page
    assembled = client.post(
        "/api/assemble", json={"catalog": "odd", "context": {"tools": [_TOOL]}}
    ).json()
    assert [tool["name"] for tool in assembled["tools"]] == [_TOOL]


def test_every_page_carries_the_hidden_character_rule_for_its_script(
    client: TestClient,
) -> None:
    for path in ("/", "/playground", "/editor", "/catalogs/demo"):
        body = re.search(r"<body [^>]*data-hidden=\"([^\"]+)\"", html_page(client, path))
        assert body is not None, path
        pattern = body.group(1)
        assert pattern.isascii() and pattern.isprintable()
        assert "\\u{202E}" in pattern and "\\u{200B}" in pattern and "\\u{E0000}" in pattern


def test_the_home_page_names_the_newest_versions_first_with_a_count(
    client: TestClient,
) -> None:
    page = html_page(client, "/")
    many = r'<a href="/catalogs/many">many</a></td>\s*<td[^>]* class="num">(\d+)</td>(.*?)</tr>'
    row = re.search(many, page, re.DOTALL)
    assert row is not None
    assert row.group(1) == "12"
    shown = re.findall(r'href="/catalogs/many/([^"]+)"', row.group(2))
    assert shown == ["1.11.0", "1.10.0", "1.9.0", "1.8.0", "1.7.0"]
    assert "and 7 older" in row.group(2)
    demo = re.search(r'<a href="/catalogs/demo">demo</a>.*?</tr>', page, re.DOTALL)
    assert demo is not None
    assert re.findall(r'href="/catalogs/demo/([^"]+)"', demo.group()) == ["2.0.0", "1.0.0"]
    assert "older" not in demo.group()


def test_the_diff_page_sums_up_the_reference_figures(client: TestClient) -> None:
    page = html_page(client, "/diff?old=counted@1.0.0&new=counted@2.0.0")
    assert "Tokens 4 → 4 (+0)." in page
    assert (
        "Reference tokens 30 → 15 (-15), counted by upstream; "
        "1 part without a figure not counted." in page
    )
    assert (
        "reference"
        not in html_page(client, "/diff?old=demo@1.0.0&new=demo@2.0.0")
        .split("<h2>Side by side</h2>")[0]
        .lower()
    )


def test_the_version_page_draws_bars_proportional_to_tokens(client: TestClient) -> None:
    page = html_page(client, "/catalogs/demo/2.0.0")
    cells = r'<td[^>]* class="num">(\d+)</td>\s*<td[^>]* class="share">'
    tokens = [int(t) for t in re.findall(cells, page)]
    bars = [float(w) for w in re.findall(r'<rect class="value" width="([\d.]+)"', page)]
    # The fixture's parts count len(body) // 4 tokens each.
    assert tokens == [8, 3, 8, 5, 5, 4]
    assert bars == [100.0, 37.5, 100.0, 62.5, 62.5, 50.0]
    assert page.count('<rect class="track" width="100"') == 6


def test_pages_are_rendered_from_templates_in_the_package() -> None:
    from importlib import resources

    folder = resources.files("catalog.server").joinpath("templates")
    names = {entry.name for entry in folder.iterdir()}
    assert {"base.html", "_macros.html", "home.html", "catalog.html", "version.html",
            "playground.html", "diff.html", "editor.html"} <= names  # fmt: skip
    for name in names - {"base.html", "_macros.html"}:
        assert folder.joinpath(name).read_text("utf-8").startswith('{% extends "base.html" %}')


# -- errors met while answering a page, for a browser

_BROWSER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def _error_page(response: Any, status: int) -> dict[str, str]:
    """The message, field and hint an HTML error page shows, checked to answer ``status``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    shown = {
        name: html.unescape(found.group(1))
        for name in ("message", "field", "hint")
        if (found := re.search(rf'id="error-{name}">(.*?)</', response.text, re.DOTALL))
    }
    assert shown["message"]
    return shown


def test_a_browser_asking_for_a_missing_page_gets_an_html_page_with_the_hint(
    client: TestClient,
) -> None:
    shown = _error_page(client.get("/catalogs/demoo", headers=_BROWSER), 404)
    assert "demoo" in shown["message"]
    assert "'demo'" in shown["hint"]  # the closest name, as the JSON answer gives it
    json_answer = client.get("/catalogs/demoo").json()["error"]
    assert (json_answer["message"], json_answer["hint"]) == (shown["message"], shown["hint"])
    page = client.get("/catalogs/demoo", headers=_BROWSER).text
    assert "<title>404 Not Found · prompt-catalog</title>" in page
    assert '<a href="/">Back to the catalogs</a>' in page


def test_a_wrong_query_and_an_unknown_path_are_pages_for_a_browser(client: TestClient) -> None:
    assert (
        "name the two versions"
        in _error_page(client.get("/diff", headers=_BROWSER), 400)["message"]
    )
    unknown = _error_page(client.get("/no-such-page", headers=_BROWSER), 404)
    assert "/openapi.json" in unknown["hint"]


def test_an_error_page_escapes_what_the_request_wrote(client: TestClient) -> None:
    response = client.get("/catalogs/<img src=x onerror=alert(1)>", headers=_BROWSER)
    shown = _error_page(response, 400)
    assert "'<img src=x onerror=alert(1)>' is not a catalog name" in shown["message"]
    assert "<img" not in response.text  # shown as text, never as markup


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", "/catalogs/demoo", {}),  # no Accept: a script or curl
        ("GET", "/catalogs/demoo", {"accept": "application/json"}),
        ("GET", "/api/catalogs/demoo", _BROWSER),  # an API route, even from a browser
        ("POST", "/no-such-page", _BROWSER),  # not a page's request
    ],
)
def test_scripts_and_the_api_still_get_the_json_error(
    client: TestClient, method: str, path: str, headers: dict[str, str]
) -> None:
    response = client.request(method, path, headers=headers)
    assert response.status_code in (404, 405)
    assert response.headers["content-type"] == "application/json"
    assert set(response.json()["error"]) == {"status", "message", "field", "hint"}


def test_figures_of_two_counters_are_two_named_lines(client: TestClient) -> None:
    page = html_page(client, "/catalogs/coding-agent")
    lines = re.findall(r'<polyline class="counter-(\d)" points="([^"]*)"/>', page)
    assert [(style, len(points.split())) for style, points in lines] == [("0", 2), ("1", 1)]
    legend = re.findall(r'<li><span class="swatch counter-\d"></span>([^<]*)</li>', page)
    assert legend == [
        "tokens counted by cl100k_base: 1.0.0 to 1.1.0",
        "tokens counted by chars: 1.2.0",
    ]
    assert re.search(r"<title>1\.2\.0: \d+ tokens \(chars\)</title>", page)
    assert 'aria-label="tokens per version, counted by cl100k_base and chars"' in page
