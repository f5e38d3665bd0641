"""The part pages and the search in a real browser (:mod:`tests._support.browsing`), against a
`catalog serve` process: a change opens its side-by-side diff in a frame as tall as
the report, the blame marks each line with its version, the search box finds and
links; on a history written by hand and on the published releases among the
fixtures, at 1,400 and 800 pixels. Screenshots go to the test's temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.register_assert_rewrite("tests._support.browsing")

from selenium.webdriver.common.by import By  # noqa: E402

from tests._support.browsing import fits, no_console_errors, ready, wait  # noqa: E402
from tests._support.part_history import BLAME, LOG, import_published, write_part_history  # noqa: E402
from tests._support.serving import running_server  # noqa: E402

pytestmark = pytest.mark.slow
pytest_plugins = ["tests._support.browsing"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("served")
    catalogs = write_part_history(folder / "catalogs")
    args = ["--store", f"sqlite:///{folder / 'prompts.sqlite'}", "--path", str(catalogs)]
    with running_server(args, folder / "server.log") as url:
        yield url


def _open_change(browser: Any, version: str) -> Any:
    """Open the timeline's change of ``version``; its frame once the report is in it."""
    entry = browser.find_element(
        By.XPATH, f"//ol[@id='timeline']/li[.//span[@class='version' and text()='{version}']]"
    )
    frame = entry.find_element(By.TAG_NAME, "iframe")
    assert not frame.get_attribute("src")  # loaded when opened, not before
    entry.find_element(By.TAG_NAME, "summary").click()
    wait(
        browser,
        lambda _: browser.execute_script(
            "const doc = arguments[0].contentDocument;"
            "return doc && doc.readyState === 'complete' && !!doc.querySelector('table.side')",
            frame,
        ),
    )
    return frame


def _frame_fits(browser: Any, frame: Any) -> None:
    """The frame is as tall as its report: nothing in it scrolls."""
    wait(
        browser,
        lambda _: browser.execute_script(
            "const doc = arguments[0].contentDocument.documentElement;"
            "return doc.scrollHeight <= doc.clientHeight && doc.scrollWidth <= doc.clientWidth",
            frame,
        ),
    )


def test_a_change_opens_its_side_by_side_diff(
    browser: Any, server: str, width: int, shots: Path
) -> None:
    ready(browser, f"{server}/catalogs/hist/parts/beta")
    versions = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#timeline .version")]
    assert versions == [version for version, *_ in LOG]
    frame = _open_change(browser, "1.1.0")
    _frame_fits(browser, frame)
    browser.switch_to.frame(frame)
    try:
        changed = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "td.r.chg")]
        inserted = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "td.r.ins")]
        summaries = [s.text for s in browser.find_elements(By.TAG_NAME, "summary")]
    finally:
        browser.switch_to.default_content()
    assert changed + inserted == ["Line two, rewritten.", "Line three."]
    assert summaries == ["CHANGED: alpha (+10 tokens)"]
    # The rename's report: unfolded by the page, though the report folds a rename.
    frame = _open_change(browser, "1.2.0")
    browser.switch_to.frame(frame)
    try:
        opened = browser.execute_script(
            "return [...document.querySelectorAll('details')].map((d) => d.open)"
        )
    finally:
        browser.switch_to.default_content()
    assert opened == [True]
    _frame_fits(browser, frame)
    fits(browser)
    browser.save_screenshot(str(shots / f"part-{width}.png"))
    no_console_errors(browser)


def test_the_blame_and_the_chart(browser: Any, server: str) -> None:
    ready(browser, f"{server}/catalogs/hist/parts/beta")
    rows = browser.find_elements(By.CSS_SELECTOR, "#blame tr")
    shown = [
        (row.find_element(By.CSS_SELECTOR, "td.version").text,
         row.find_element(By.CSS_SELECTOR, "td.text").text)
        for row in rows
    ]  # fmt: skip
    assert shown == BLAME
    # Each line starts a run of its own version here; 1.3.0 (the blamed one) is new.
    assert [row.get_attribute("class") for row in rows] == ["starts", "starts", "starts new"]
    points = browser.find_elements(By.CSS_SELECTOR, "svg.chart circle")
    heights = [point.rect["y"] for point in points]
    assert len(points) == 5
    # 10, 20, 20, 21, 0 tokens: the removal is on the axis, the 1.3.0 point the highest.
    assert heights[1] == heights[2] < heights[0] < heights[4]
    assert heights[3] == min(heights)
    no_console_errors(browser)


def test_the_search_box_finds_and_links_to_part_pages(
    browser: Any, server: str, width: int, shots: Path
) -> None:
    ready(browser, f"{server}/catalogs/hist")
    box = browser.find_element(By.ID, "search-text")
    box.send_keys("S*a.b")
    box.submit()
    wait(
        browser,
        lambda _: "No part holds S*a.b" in browser.find_element(By.ID, "search-results").text,
    )
    browser.find_element(By.CSS_SELECTOR, 'input[name="pattern"]').click()
    browser.find_element(By.CSS_SELECTOR, "#search-form button").click()
    wait(browser, lambda _: browser.find_elements(By.CSS_SELECTOR, "table.matches tbody tr"))
    rows = browser.find_elements(By.CSS_SELECTOR, "table.matches tbody tr")
    assert [row.text.split()[0] for row in rows] == ["note"]
    assert browser.find_element(By.ID, "search-text").get_attribute("value") == "S*a.b"
    fits(browser)
    browser.save_screenshot(str(shots / f"search-{width}.png"))
    rows[0].find_element(By.TAG_NAME, "a").click()
    wait(browser, lambda _: browser.current_url.endswith("/catalogs/hist/parts/note"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "hist · note"
    no_console_errors(browser)


@pytest.fixture
def published(claude_code_releases: Path, tmp_path: Path) -> Iterator[str]:
    """A server of the fixture releases, imported with `catalog import piebald`."""
    out = import_published(claude_code_releases, tmp_path / "catalogs")
    args = ["--store", f"sqlite:///{tmp_path / 'prompts.sqlite'}", "--path", str(out)]
    with running_server(args, tmp_path / "server.log") as url:
        yield url


def test_a_part_page_of_the_published_releases(browser: Any, published: str, shots: Path) -> None:
    part = "system-prompt-agent-summary-generation"
    for width in (1400, 800):
        browser.set_window_size(width, 1000)
        try:
            ready(browser, f"{published}/catalogs/claude-code/parts/{part}")
            newest = browser.find_element(By.CSS_SELECTOR, "#timeline .version").text
            frame = _open_change(browser, newest)
            _frame_fits(browser, frame)
            assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart circle")) == 9
            fits(browser)
            browser.save_screenshot(str(shots / f"published-{width}.png"))
            no_console_errors(browser)
        finally:
            browser.set_window_size(1400, 1000)
