"""The web UI in a real browser (:mod:`tests._support.browsing`), against a `catalog serve`
process: the playground, the diff page, the editor, framing, and every page at 1,400
and 800 pixels. Screenshots go to the test's temporary folder."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.register_assert_rewrite("tests._support.browsing")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from tests._support.browsing import fits, no_console_errors, ready, wait  # noqa: E402
from tests._support.part_history import write_part_history  # noqa: E402
from tests._support.serving import running_server, write_demo_catalogs  # noqa: E402
from tests.conftest import write_catalog  # noqa: E402

pytestmark = pytest.mark.slow
pytest_plugins = ["tests._support.browsing"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("served")
    catalogs = write_demo_catalogs(folder / "catalogs")
    write_wide_catalog(catalogs)
    write_part_history(catalogs)
    args = [
        "--store",
        f"sqlite:///{folder / 'prompts.sqlite'}",
        "--path",
        str(catalogs),
        "--template-catalog",
        "tpl",
    ]
    with running_server(args, folder / "server.log") as url:
        for version in ("1.0.0", "2.0.0"):
            canary = {"version": "1.0.0", "percent": 10} if version == "2.0.0" else None
            body = {"catalog": "demo", "version": version, "canary": canary}
            assert httpx.put(f"{url}/releases/production", json=body).status_code == 200
        yield url


# A part id of 90 characters, a part of one 3,000-character line, and a tool whose name
# holds a right-to-left override: what makes a page overflow, misalign or mislead.
LONG_ID = "a-very-long-part-identifier-" + "x" * 62
TOOL = "Ba\u202eshx"


def write_wide_catalog(root: Path) -> None:
    write_catalog(root, "wide", parts=[
        {"id": "intro", "body": "Short intro.", "order": 10},
        {"id": LONG_ID, "body": "word " * 300, "order": 20},
        {"id": "long-line", "body": "L" * 3000, "order": 30},
        {"id": "tool", "kind": "tool", "name": TOOL, "body": "Run it.", "order": 40,
         "when": f'"{TOOL}" in tools'},
    ])  # fmt: skip


def test_playground_follows_a_tool_toggle(browser: Any, server: str, shots: Path) -> None:
    browser.get(f"{server}/playground?catalog=demo@1.0.0")
    total = browser.find_element(By.ID, "total")
    prompt = browser.find_element(By.ID, "prompt")
    wait(browser, lambda _: total.text.isdigit())
    before = int(total.text)
    assert prompt.text.startswith("You are a demo agent.")
    assert "Prefer Bash for builds." not in prompt.text
    browser.find_element(By.CSS_SELECTOR, 'input[data-tool="Bash"]').click()
    wait(browser, lambda _: "Prefer Bash for builds." in prompt.text)
    wait(browser, lambda _: int(total.text) > before)
    rows = browser.find_elements(By.CSS_SELECTOR, "#explain tbody tr")
    assert any(row.text.startswith("+ bash-tips") for row in rows)
    assert any(row.text.startswith("T Bash") for row in rows)
    browser.find_element(By.CSS_SELECTOR, 'input[data-tool="Bash"]').click()
    wait(browser, lambda _: "Prefer Bash for builds." not in prompt.text)
    assert int(total.text) == before
    browser.save_screenshot(str(shots / "playground.png"))
    no_console_errors(browser)


def test_diff_page_lists_new_and_removed_parts(browser: Any, server: str, shots: Path) -> None:
    browser.get(f"{server}/diff?old=demo@1.0.0&new=demo@2.0.0")
    new = browser.find_element(By.CSS_SELECTOR, "li.new").text
    removed = browser.find_element(By.CSS_SELECTOR, "li.removed").text
    assert new.startswith("NEW brand-new")
    assert removed.startswith("REMOVED old-rules")
    frame = browser.find_element(By.CSS_SELECTOR, "iframe.report")
    browser.switch_to.frame(frame)
    assert browser.find_elements(By.CSS_SELECTOR, "table.side")
    browser.switch_to.default_content()
    browser.save_screenshot(str(shots / "diff.png"))
    no_console_errors(browser)


def test_editor_inserts_at_the_cursor_and_saves(browser: Any, server: str, shots: Path) -> None:
    browser.get(f"{server}/editor")
    area = browser.find_element(By.ID, "template")
    wait(browser, lambda _: area.get_attribute("value") == "Default in [p:cwd].")
    assert browser.find_element(By.ID, "editor").is_displayed()  # the full-page modal
    area.clear()
    area.send_keys("Work in  please.")
    browser.execute_script("arguments[0].setSelectionRange(8, 8)", area)
    browser.find_element(By.CSS_SELECTOR, 'button[data-variable="p:cwd"]').click()
    assert area.get_attribute("value") == "Work in [p:cwd] please."
    preview = browser.find_element(By.ID, "preview")
    wait(browser, lambda _: preview.text == "Work in /home/user/project please.")
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda _: browser.find_element(By.ID, "status").text == "saved")
    browser.save_screenshot(str(shots / "editor.png"))
    assert httpx.get(f"{server}/system-prompt").json() == {"template": "Work in [p:cwd] please."}
    no_console_errors(browser)


def test_pages_load_without_console_errors(browser: Any, server: str, shots: Path) -> None:
    for index, path in enumerate(["/", "/catalogs/demo", "/catalogs/demo/2.0.0", "/playground"]):
        assert "default-src 'none'" in httpx.get(server + path).headers["content-security-policy"]
        browser.get(server + path)
        wait(browser, lambda _: browser.execute_script("return document.readyState") == "complete")
        browser.save_screenshot(str(shots / f"page-{index}.png"))
        no_console_errors(browser)
    # The bars of the version page are drawn (SVG, not inline styles the policy refuses).
    browser.get(server + "/catalogs/demo/2.0.0")
    widths = [
        bar.size["width"] for bar in browser.find_elements(By.CSS_SELECTOR, "svg.bar rect.value")
    ]
    assert len(widths) == 6 and max(widths) > 2 * min(widths) > 0


def test_playground_shows_an_error_answers_message(browser: Any, server: str) -> None:
    browser.get(f"{server}/playground?catalog=demo@1.0.0")
    total = browser.find_element(By.ID, "total")
    wait(browser, lambda _: total.text.isdigit())
    context = browser.find_element(By.ID, "context")
    context.clear()
    context.send_keys('{"env": "x"}')
    error = browser.find_element(By.ID, "play-error")
    message = "body.context.env: must be a table (an object), not text ('x')"
    wait(browser, lambda _: error.text.split("\n")[0] == message)
    # The error is the first thing of the result, and the old result is gone.
    prompt = browser.find_element(By.ID, "prompt")
    assert error.location["y"] < total.location["y"] < prompt.location["y"]
    assert (total.text, prompt.text) == ("…", "")
    assert browser.find_elements(By.CSS_SELECTOR, "#explain tbody tr") == []
    context.clear()
    context.send_keys("{}")
    wait(browser, lambda _: total.text.isdigit() and not error.is_displayed())
    context.send_keys("{")  # JSON that does not parse: the same, before any request
    wait(browser, lambda _: error.is_displayed() and prompt.text == "")
    assert total.text == "…"
    # The 400 is logged as a failed load; the page's script failed nowhere.
    entries = browser.get_log("browser")
    assert [e for e in entries if e["level"] == "SEVERE" and e["source"] != "network"] == []


@pytest.fixture
def other_site(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """Another site on loopback (another origin): a folder served over HTTP, and its URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as site:
        thread = threading.Thread(target=site.serve_forever, daemon=True)
        thread.start()
        try:
            yield tmp_path, f"http://127.0.0.1:{site.server_address[1]}"
        finally:
            site.shutdown()


def _framed(browser: Any, site: tuple[Path, str], url: str) -> str:
    """The address of the document that a page of ``site`` framing ``url`` shows."""
    folder, base = site
    page = f"frames-{len(list(folder.iterdir()))}.html"  # a new page each time: no cache
    (folder / page).write_text(f"<iframe id=victim src='{url}'></iframe>")
    browser.get(f"{base}/{page}")
    browser.switch_to.frame(browser.find_element(By.ID, "victim"))
    try:
        wait(browser, lambda _: browser.execute_script("return document.URL") != "about:blank")
        wait(browser, lambda _: browser.execute_script("return document.readyState") == "complete")
        address: str = browser.execute_script("return document.URL")
        return address
    finally:
        browser.switch_to.default_content()


def test_another_site_cannot_frame_the_pages(
    browser: Any, server: str, other_site: tuple[Path, str]
) -> None:
    """Clickjacking the editor's Save: a page of another site framing the editor gets
    Chromium's error page in the frame; the same page frames the other site's own page."""
    folder, base = other_site
    (folder / "own.html").write_text("<p id=own>framed</p>")
    assert _framed(browser, other_site, f"{base}/own.html") == f"{base}/own.html"
    assert _framed(browser, other_site, f"{server}/editor").startswith("chrome-error://")


# -- the pages at 1,400 and at 800 pixels


def _ready(browser: Any, url: str) -> None:
    ready(browser, url)
    if "/playground" in url:
        wait(browser, lambda _: browser.find_element(By.ID, "total").text.isdigit())


_PAGES = [
    "/",
    "/catalogs/demo",
    "/catalogs/demo/2.0.0",
    "/catalogs/wide/1.0.0",
    "/playground?catalog=wide",
    "/playground?catalog=demo",
    "/diff?old=demo@1.0.0&new=demo@2.0.0",
    "/editor",
    "/catalogs/hist/parts/beta",
    f"/catalogs/wide/parts/{LONG_ID}",
    "/catalogs/hist?q=Line",
    "/ui/releases",
    "/ui/releases/production",
]


def test_every_page_fits_the_window(browser: Any, server: str, width: int, shots: Path) -> None:
    for index, path in enumerate(_PAGES):
        _ready(browser, server + path)
        fits(browser)
        browser.save_screenshot(str(shots / f"{width}-{index}.png"))
        no_console_errors(browser)


def test_a_long_prompt_line_wraps_inside_its_box(browser: Any, server: str, width: int) -> None:
    """A 3,000-character line once made the playground 1,559 pixels wide in a 1,385-pixel
    window: it wraps inside the prompt's box now."""
    _ready(browser, f"{server}/playground?catalog=wide")
    prompt = browser.find_element(By.ID, "prompt")
    assert "L" * 3000 in prompt.get_attribute("textContent")
    inside, box = browser.execute_script(
        "return [arguments[0].scrollWidth, arguments[0].clientWidth]", prompt
    )
    assert inside <= box
    fits(browser)


def test_token_bars_are_proportional_and_the_largest_full(
    browser: Any, server: str, width: int
) -> None:
    for path in ("/catalogs/demo/2.0.0", "/catalogs/wide/1.0.0"):
        _ready(browser, server + path)
        rows = browser.find_elements(By.CSS_SELECTOR, "table.parts tbody tr")
        tokens = [int(row.find_elements(By.CSS_SELECTOR, "td.num")[1].text) for row in rows]
        largest = max(tokens)
        for row, count in zip(rows, tokens, strict=True):
            track = row.find_element(By.CSS_SELECTOR, "rect.track").rect["width"]
            value = row.find_element(By.CSS_SELECTOR, "rect.value").rect["width"]
            assert track >= 60
            assert value == pytest.approx(track * count / largest, abs=1), (path, count)
        no_console_errors(browser)


def _columns_aligned(browser: Any, table: str) -> None:
    """Every cell of a column starts where its header does, and no cell's text runs out
    of its cell."""
    lefts = browser.execute_script(
        """
        const table = document.querySelector(arguments[0]);
        return [...table.rows].map((row) => [...row.cells].map((cell) => {
          const box = cell.getBoundingClientRect();
          return [Math.round(box.left), cell.scrollWidth <= cell.clientWidth];
        }));
        """,
        table,
    )
    header = [left for left, _ in lefts[0]]
    for row in lefts[1:]:
        assert [left for left, _ in row] == header
        assert all(fits for _, fits in row)


def test_tables_stay_aligned_with_90_character_part_ids(
    browser: Any, server: str, width: int, shots: Path
) -> None:
    _ready(browser, f"{server}/catalogs/wide/1.0.0")
    assert LONG_ID in browser.find_element(By.CSS_SELECTOR, "table.parts").text.replace("\n", "")
    _columns_aligned(browser, "table.parts")
    fits(browser)
    _ready(browser, f"{server}/playground?catalog=wide")
    wait(browser, lambda _: len(browser.find_elements(By.CSS_SELECTOR, "#explain tbody tr")) == 4)
    _columns_aligned(browser, "#explain")
    browser.save_screenshot(str(shots / f"explain-{width}.png"))
    fits(browser)


def test_hidden_characters_are_shown_in_the_playground(browser: Any, server: str) -> None:
    """The tool's right-to-left override is shown, not obeyed, in its label and in the
    explain table the script fills; the exact name is what the script sends back."""
    _ready(browser, f"{server}/playground?catalog=wide")
    label = browser.find_element(By.CSS_SELECTOR, "label.tool")
    assert label.text == "Ba<U+202E>shx"
    label.find_element(By.TAG_NAME, "input").click()

    def explained() -> list[str]:
        rows: list[str] = browser.execute_script(
            "return [...document.querySelectorAll('#explain tbody tr')]"
            ".map((row) => [...row.cells].map((cell) => cell.textContent).join(' '))"
        )
        return rows

    # The tool is offered and no part is left out: the server got the exact name.
    wait(browser, lambda _: any(row.startswith("T Ba<U+202E>shx") for row in explained()))
    assert not [row for row in explained() if row.startswith("-")]
    assert all("\u202e" not in row for row in explained())
    no_console_errors(browser)


def test_closing_the_editor_shows_the_template_and_its_preview(
    browser: Any, server: str, width: int, shots: Path
) -> None:
    _ready(browser, f"{server}/editor")
    area = browser.find_element(By.ID, "template")
    wait(browser, lambda _: area.get_attribute("value"))
    saved = area.get_attribute("value")
    area.clear()
    area.send_keys(saved + " Then [p:cwd] again.")
    preview = browser.find_element(By.ID, "preview")
    wait(browser, lambda _: preview.text.endswith("Then /home/user/project again."))
    browser.find_element(By.ID, "close-editor").click()
    assert not browser.find_element(By.ID, "editor").is_displayed()
    shown = browser.find_element(By.ID, "shown-template")
    assert shown.is_displayed() and shown.text == saved + " Then [p:cwd] again."
    shown_preview = browser.find_element(By.ID, "shown-preview").text
    assert shown_preview == preview.get_attribute("textContent")
    assert shown_preview.endswith("Then /home/user/project again.")
    assert browser.find_element(By.ID, "saved-state").text == "Edited, not saved yet."
    browser.save_screenshot(str(shots / f"editor-closed-{width}.png"))
    fits(browser)
    # Back to the template as saved: Save, close, and the page says it is the server's.
    browser.find_element(By.ID, "open-editor").click()
    area.clear()
    area.send_keys(saved)
    wait(browser, lambda _: browser.find_element(By.ID, "shown-template").text == saved)
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda _: browser.find_element(By.ID, "status").text == "saved")
    area.send_keys(Keys.ESCAPE)
    assert not browser.find_element(By.ID, "editor").is_displayed()
    state = browser.find_element(By.ID, "saved-state").text
    assert state == "This is the template the server uses."
    assert httpx.get(f"{server}/system-prompt").json() == {"template": saved}
    no_console_errors(browser)
