"""The history pages of `catalog serve`: a page per part (its log as a timeline, its
tokens per version as a chart, each change's side-by-side diff, the blame of its
newest text), the search of a catalog's page, the links to part pages, and the
history the server keeps per catalog; on a history written by hand and on the
published releases among the fixtures."""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.changes.history import MAX_QUERY_LENGTH, open_history
from catalog.io.catalog_path import CatalogPath
from catalog.server.app import create_app
from catalog.server.library import Library
from catalog.server.state import ServerSettings
from tests._support.part_history import (
    BLAME,
    CHART,
    LOG,
    VERSIONS,
    import_published,
    write_part_history,
)
from tests._support.serving import html_page
from tests.conftest import write_catalog


@contextlib.contextmanager
def _serving(catalogs: Path, tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(
        paths=(str(catalogs),), store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}"
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as served:
        yield served


@pytest.fixture
def catalogs(tmp_path: Path) -> Path:
    return write_part_history(tmp_path / "catalogs")


@pytest.fixture
def client(catalogs: Path, tmp_path: Path) -> Iterator[TestClient]:
    with _serving(catalogs, tmp_path) as served:
        yield served


def _timeline(page: str) -> list[tuple[str, str, int, int]]:
    """The timeline's entries: version, change, tokens and delta, as listed."""
    found = re.findall(
        r'<li class="change-(\w+)">.*?<span class="version">([^<]+)</span>.*?'
        r'<span class="figures">(\d+) tokens <span class="delta">([+-]\d+)</span>',
        page,
        re.DOTALL,
    )
    return [(version, change, int(tokens), int(delta)) for change, version, tokens, delta in found]


def _reports(page: str) -> list[str]:
    """The side-by-side reports the timeline's changes open, newest first."""
    return [html.unescape(url) for url in re.findall(r'data-report="([^"]+)"', page)]


def _blame(page: str) -> list[tuple[str, str]]:
    rows = re.findall(
        r'<td class="version">([^<]+)</td><td class="num">\d+</td><td class="text">([^<]*)</td>',
        page,
    )
    return [(version, html.unescape(text)) for version, text in rows]


# -- a part's page


def test_a_parts_page_shows_its_log_chart_and_blame(client: TestClient) -> None:
    page = html_page(client, "/catalogs/hist/parts/beta")
    assert _timeline(page) == LOG
    assert re.findall(r"<title>([^<]+)</title></circle>", page) == CHART
    # The newest text is 1.3.0's: 1.4.0 removed the part.
    assert "<h2>Blame of 1.3.0</h2>" in page
    assert _blame(page) == BLAME
    assert "in 4 of 5 versions: since 1.0.0, removed in 1.4.0." in page
    assert "Its ids: alpha → beta." in page
    # The rename: its old id and its new one, on its entry.
    assert '<span class="rename">alpha → beta</span>' in page


def test_each_change_opens_its_side_by_side_diff(client: TestClient) -> None:
    page = html_page(client, "/catalogs/hist/parts/beta")
    reports = _reports(page)
    before = dict(zip(VERSIONS[1:], VERSIONS, strict=False))
    expected = [
        f"/diff/report?old=hist%40%3D%3D{before[v]}&new=hist%40%3D%3D{v}&part={part}"
        for v, part in (("1.4.0", "beta"), ("1.3.0", "beta"), ("1.2.0", "beta"), ("1.1.0", "alpha"))
    ]
    assert reports == expected
    # The first version has nothing before it: its entry shows the text it brought.
    assert '<pre class="body">Line one.\nLine two.\n</pre>' in page
    rewritten = client.get(reports[-1]).text
    assert rewritten.count("<details") == 1
    assert "<summary>CHANGED: alpha (+10 tokens)</summary>" in rewritten
    assert "Line two, rewritten." in rewritten and "Line two.</td>" in rewritten
    # The rename's report is the part's alone: delta, new in 1.2.0, is not in it.
    renamed = client.get(reports[2]).text
    assert "<summary>RENAMED: alpha (alpha) → beta (+0 tokens)</summary>" in renamed
    assert renamed.count("<details") == 1 and "0 added, 0 removed" in renamed
    assert "1 added" in client.get(reports[2].replace("&part=beta", "")).text
    removed = client.get(reports[0]).text
    assert (
        removed.count("<details") == 1
        and "<summary>REMOVED: beta (-21 tokens)</summary>" in removed
    )


def test_a_part_asked_by_an_old_id_is_followed_through_its_rename(client: TestClient) -> None:
    page = html_page(client, "/catalogs/hist/parts/alpha")
    assert _timeline(page) == LOG
    assert "Asked as alpha." in page


def test_a_part_that_never_changed_and_its_hidden_characters(client: TestClient) -> None:
    page = html_page(client, "/catalogs/hist/parts/gamma")
    assert _timeline(page) == [("1.0.0", "added", 3, 3)]
    assert "<h2>Blame of 1.4.0</h2>" in page
    assert _blame(page) == [("1.0.0", "Gamma <U+202E>text.")]
    assert "\u202e" not in page


def test_an_unknown_part_is_a_404_with_the_closest_ids(client: TestClient) -> None:
    response = client.get("/catalogs/hist/parts/betta")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["message"] == "no version of 'hist' has a part 'betta'"
    assert "beta" in error["hint"]
    assert client.get("/catalogs/nothing-here/parts/beta").status_code == 404
    assert client.get("/catalogs/hist/parts/" + "x" * 201).status_code == 422


# -- links to part pages, and a diff narrowed to one part


def test_the_version_and_diff_pages_link_to_part_pages(client: TestClient) -> None:
    version = html_page(client, "/catalogs/hist/1.2.0")
    links = re.findall(r'<a href="/catalogs/hist/parts/([^"]+)">', version)
    assert links == ["beta", "gamma", "note", "delta"]
    renamed = html_page(client, "/diff?old=hist@1.1.0&new=hist@1.2.0")
    assert '<li class="renamed"><b>RENAMED</b> alpha → <a href="/catalogs/hist/parts/beta">' in (
        renamed
    )
    assert '<a href="/catalogs/hist/parts/delta">delta</a>' in renamed
    removed = html_page(client, "/diff?old=hist@1.3.0&new=hist@1.4.0")
    assert '<li class="removed"><b>REMOVED</b> <a href="/catalogs/hist/parts/beta">' in removed


def test_the_diff_page_narrowed_to_one_part(client: TestClient) -> None:
    page = html_page(client, "/diff?name=hist&old_version=1.1.0&new_version=1.2.0&part=beta")
    assert "<h1>hist@1.1.0 → hist@1.2.0: beta</h1>" in page
    assert re.findall(r'<li class="(\w+)">', page) == ["renamed"]
    assert "/diff/report?old=hist%40%3D%3D1.1.0&amp;new=hist%40%3D%3D1.2.0&amp;part=beta" in page
    whole = html_page(client, "/diff?name=hist&old_version=1.1.0&new_version=1.2.0")
    assert re.findall(r'<li class="(\w+)">', whole) == ["new", "renamed"]


# -- the search of a catalog's page


def _matches(page: str) -> list[list[str]]:
    """The search's rows: the part linked, then each cell's text."""
    body = page.split('<table class="grid matches">')[1].split("</table>")[0]
    rows = re.findall(r"<tr>\s*(.*?)</tr>", body.split("<tbody>")[1], re.DOTALL)
    return [
        [
            html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        ]
        for row in rows
    ]


def test_the_search_links_each_match_to_its_parthtml_page(client: TestClient) -> None:
    page = html_page(client, "/catalogs/hist?q=Line+two")
    assert _matches(page) == [["beta also as alpha", "system", "1.0.0", "1.3.0", "4", "no"]]
    assert '<a href="/catalogs/hist/parts/beta">beta</a>' in page
    assert 'value="Line two"' in page  # the box keeps the query
    assert "1 part holds it in the 5 versions searched (newest 1.4.0)" in page


def test_the_search_is_plain_text_unless_asked_for_a_pattern(client: TestClient) -> None:
    # A dot is a dot, and a star a star: nothing reads the query as a regular expression.
    assert [row[0] for row in _matches(html_page(client, "/catalogs/hist?q=a.b"))] == ["note"]
    assert "No part holds <code>a.c</code>" in html_page(client, "/catalogs/hist?q=a.c")
    assert "No part holds <code>S*a.b</code>" in html_page(client, "/catalogs/hist?q=S*a.b")
    pattern = html_page(client, "/catalogs/hist?q=S*a.b&pattern=true")
    assert [row[0] for row in _matches(pattern)] == ["note"]
    assert re.search(r'name="pattern" value="true" checked', pattern)


def test_the_search_by_case_and_kind(client: TestClient) -> None:
    assert "No part holds" in html_page(client, "/catalogs/hist?q=LINE+ONE")
    folded = html_page(client, "/catalogs/hist?q=LINE+ONE&ignore_case=true")
    assert [row[0] for row in _matches(folded)] == ["beta also as alpha"]
    assert "No part holds" in html_page(client, "/catalogs/hist?q=says&kind=system")
    tools = html_page(client, "/catalogs/hist?q=says&kind=tool")
    assert _matches(tools) == [["delta", "tool", "1.2.0", "1.4.0", "3", "yes"]]
    assert '<option value="tool" selected>' in tools


def test_a_query_that_cannot_be_used_is_said_on_thehtml_page(client: TestClient) -> None:
    broken = html_page(client, "/catalogs/hist?q=a%0Ab&pattern=true", status=400)
    assert "a pattern is matched within one line: it cannot hold a line break" in broken
    everything = html_page(client, "/catalogs/hist?q=**&pattern=true", status=400)
    assert "the pattern &#39;**&#39; matches everything" in everything
    assert "search-results" not in html_page(client, "/catalogs/hist?q=")
    # A query is at most MAX_QUERY_LENGTH characters; the box says so too.
    assert f'maxlength="{MAX_QUERY_LENGTH}"' in html_page(client, "/catalogs/hist")
    too_long = client.get("/catalogs/hist", params={"q": "x" * (MAX_QUERY_LENGTH + 1)})
    assert too_long.status_code == 422
    assert too_long.json()["error"]["field"] == "query.q"


def test_a_new_version_is_on_the_pages_at_once(client: TestClient, catalogs: Path) -> None:
    assert _timeline(html_page(client, "/catalogs/hist/parts/gamma")) == [("1.0.0", "added", 3, 3)]
    write_catalog(catalogs, "hist", "1.5.0", parts=[
        {"id": "gamma", "body": "Gamma, now longer.", "tokens": 6},
    ])  # fmt: skip
    assert _timeline(html_page(client, "/catalogs/hist/parts/gamma")) == [
        ("1.5.0", "prose", 6, 3),
        ("1.0.0", "added", 3, 3),
    ]
    assert [row[0] for row in _matches(html_page(client, "/catalogs/hist?q=now+longer"))] == [
        "gamma"
    ]


# -- the history the server keeps


def test_the_server_keeps_a_bounded_number_of_histories(tmp_path: Path) -> None:
    root = write_part_history(tmp_path / "catalogs")
    for number in range(8):
        for version in ("1.0.0", "2.0.0"):
            write_catalog(root, f"other{number}", version, parts=[{"id": "p", "body": version}])
    library = Library([root])
    first = library.history("hist")
    assert library.history("hist") is first  # kept
    assert first.versions == VERSIONS
    for number in range(8):
        library.history(f"other{number}")
    again = library.history("hist")  # the eight used since pushed it out
    assert again is not first and again.versions == VERSIONS
    write_catalog(root, "hist", "1.5.0", parts=[{"id": "gamma", "body": "Gamma."}])
    newer = library.history("hist")  # a version added: opened again
    assert newer is not again and newer.versions == (*VERSIONS, "1.5.0")


# -- the published releases


@pytest.fixture
def releases(claude_code_releases: Path, tmp_path: Path) -> Path:
    """The fixture releases imported with `catalog import piebald`, one folder each."""
    return import_published(claude_code_releases, tmp_path / "imported")


@pytest.mark.slow
def test_the_pages_on_the_published_releases(releases: Path, tmp_path: Path) -> None:
    """Every part renamed or removed at some point, and every system reminder, shows
    its log and its blame; each change's report is that part's change alone, in the
    class the log gives it; the search links to part pages that answer."""
    history = open_history("claude-code", catalog_path=CatalogPath([releases], use_env=False))
    assert len(history.versions) == 9
    chosen = set()
    for lineage in history.lineages:
        ids = {stretch.id for stretch in lineage.stretches}
        ends = {stretch.end for stretch in lineage.stretches}
        if (
            len(ids) > 1
            or ends != {len(history.versions)}
            or lineage.last.id.startswith("system-reminder")
        ):
            chosen.add(lineage.last.id)
    assert len(chosen) > 100
    headings = {"added": "ADDED", "removed": "REMOVED", "renamed": "RENAMED"}
    reports = 0
    with _serving(releases, tmp_path) as client:
        for number, part in enumerate(sorted(chosen)):
            page = html_page(client, f"/catalogs/claude-code/parts/{part}")
            log = history.log(part)
            expected = [(e.version, e.change, e.tokens, e.delta) for e in reversed(log.entries)]
            assert _timeline(page) == expected, part
            last = log.entries[-1]
            if last.change != "removed":
                blamed = history.blame(last.id).lines
                assert _blame(page) == [(line.version, line.text) for line in blamed], part
            if number % 12:
                continue  # the reports of every twelfth part
            for url, entry in zip(_reports(page), reversed(log.entries), strict=False):
                report = client.get(url).text
                assert report.count("<details") == 1, url
                heading = headings.get(entry.change, "CHANGED")
                assert f"<summary>{heading}: " in report, (url, entry.change)
                reports += 1
        assert reports > 15
        _search_on_the_published_releases(client)


def _search_on_the_published_releases(client: TestClient) -> None:
    page = html_page(client, "/catalogs/claude-code?q=TodoWrite")
    links = re.findall(r'<a href="(/catalogs/claude-code/parts/[^"]+)">', page)
    assert len(links) == len(_matches(page)) >= 3
    for link in links:
        assert html_page(client, link).count('<li class="change-') >= 1
    plain = {row[0] for row in _matches(html_page(client, "/catalogs/claude-code?q=plan+mode"))}
    loose = html_page(client, "/catalogs/claude-code?q=plan*mode&pattern=true&ignore_case=true")
    assert plain < {row[0] for row in _matches(loose)}
