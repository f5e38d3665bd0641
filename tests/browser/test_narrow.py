"""The pages on a phone, 390 pixels wide, in a real browser (:mod:`tests.browsing`):
nothing scrolls sideways, no table hides a column behind a scroll, ids and labels
break only where a line ends, chart labels stay readable, side-by-side diffs stack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.register_assert_rewrite("tests._support.browsing")

from selenium.webdriver.common.by import By  # noqa: E402

from tests._support.browsing import fits, ready, wait  # noqa: E402
from tests._support.serving import running_server, write_demo_catalogs  # noqa: E402
from tests.conftest import write_catalog  # noqa: E402

pytestmark = pytest.mark.slow
pytest_plugins = ["tests._support.browsing"]

WIDTH = 390
LONG_ID = "a-rather-long-part-identifier-for-a-phone"
PAGES = [
    "/",
    "/catalogs/demo",
    "/catalogs/demo/2.0.0",
    "/catalogs/narrow/1.0.0",
    "/catalogs/coding-agent",
    "/playground?catalog=narrow",
    "/diff?old=demo@1.0.0&new=demo@2.0.0",
    f"/catalogs/narrow/parts/{LONG_ID}",
    "/ui/releases",
    "/ui/releases/production-eu-west",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("served")
    catalogs = write_demo_catalogs(folder / "catalogs")
    write_catalog(catalogs, "narrow", parts=[
        {"id": "intro", "body": "Short intro.", "order": 10},
        {"id": LONG_ID, "body": "word " * 50, "order": 20},
    ])  # fmt: skip
    args = ["--store", f"sqlite:///{folder / 'p.sqlite'}", "--path", str(catalogs)]
    with running_server(args, folder / "server.log") as url:
        for version, canary in (("1.0.0", None), ("2.0.0", {"version": "1.0.0", "percent": 10})):
            body = {"catalog": "demo", "version": version, "canary": canary}
            assert httpx.put(f"{url}/releases/production-eu-west", json=body).status_code == 200
        yield url


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    browser.set_window_size(WIDTH, 900)
    try:
        yield browser
    finally:
        browser.set_window_size(1400, 1000)


def _open(browser: Any, url: str) -> None:
    ready(browser, url)
    if "/playground" in url:
        wait(browser, lambda _: browser.find_element(By.ID, "total").text.isdigit())


@pytest.mark.parametrize("path", PAGES)
def test_no_page_and_no_table_scrolls_sideways(
    phone: Any, server: str, path: str, shots: Path
) -> None:
    _open(phone, server + path)
    fits(phone)
    hidden = phone.execute_script(
        "return [...document.querySelectorAll('.scroll')]"
        ".filter((box) => box.scrollWidth > box.clientWidth + 1).length"
    )
    assert hidden == 0, path
    phone.save_screenshot(str(shots / "page.png"))


@pytest.mark.parametrize(
    ("path", "selector"),
    [
        ("/catalogs/narrow/1.0.0", "td.id a"),
        ("/", "td.id a"),
        ("/ui/releases", "td.id a"),
        ("/catalogs/demo", "td.id a"),
    ],
)
def test_ids_and_labels_break_only_where_a_line_ends(
    phone: Any, server: str, path: str, selector: str
) -> None:
    """Each id takes no more lines than its length needs at the width it has: a column
    squeezed to a few letters (``bra/nd-/new``) takes many more."""
    _open(phone, server + path)
    found = phone.execute_script(
        """
        return [...document.querySelectorAll(arguments[0])].map((link) => {
          const lines = link.getClientRects().length;
          const room = link.parentElement.getBoundingClientRect().width;
          const probe = document.createElement('span');
          probe.style.whiteSpace = 'nowrap';
          probe.textContent = link.textContent;
          link.parentElement.appendChild(probe);
          const natural = probe.getBoundingClientRect().width;
          probe.remove();
          return [link.textContent, lines, Math.ceil(natural / room)];
        });
        """,
        selector,
    )
    assert found, path
    for text, lines, needed in found:
        assert lines <= max(needed, 1) + 1, (path, text, lines, needed)


def test_chart_labels_stay_readable(phone: Any, server: str) -> None:
    _open(phone, f"{server}/catalogs/coding-agent")
    heights = phone.execute_script(
        "return [...document.querySelectorAll('svg.chart text')]"
        ".map((text) => text.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 9  # pixels on the screen, not in the drawing


def test_side_by_side_diffs_stack(phone: Any, server: str) -> None:
    _open(phone, f"{server}/diff?old=demo@1.0.0&new=demo@2.0.0&part=intro")
    phone.switch_to.frame(phone.find_element(By.CSS_SELECTOR, "iframe.report"))
    try:
        wait(phone, lambda _: phone.find_elements(By.CSS_SELECTOR, "table.side td.l"))
        old = phone.find_element(By.CSS_SELECTOR, "table.side td.l").rect
        new = phone.find_element(By.CSS_SELECTOR, "table.side td.r").rect
    finally:
        phone.switch_to.default_content()
    assert abs(old["x"] - new["x"]) < 2  # one above the other, not side by side
    assert new["y"] >= old["y"] + old["height"] - 1
