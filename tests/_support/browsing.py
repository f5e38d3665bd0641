"""A real browser for the web UI's tests: Debian's Chromium driven by Selenium and
chromedriver (never a downloaded browser), and what the tests ask of a page.

A pytest plugin: a test module names it in ``pytest_plugins`` for the
``browser``, ``width`` and ``shots`` fixtures, and imports the helpers. Skips
when chromium, chromedriver or selenium are missing (CI installs them).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

__all__ = ["fits", "no_console_errors", "ready", "wait"]


def _binary(*names: str) -> str:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"{' or '.join(names)} not found (apt-get install chromium chromium-driver)")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium, 1,400 pixels wide, with a profile of its own; its console is
    kept for :func:`no_console_errors`."""
    chromium = _binary("chromium", "chromium-browser")
    driver_path = _binary("chromedriver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=driver_path)
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where a test saves its screenshots (its temporary folder)."""
    return tmp_path


@pytest.fixture(params=[1400, 800])
def width(request: pytest.FixtureRequest, browser: Any) -> Iterator[int]:
    """The browser's window this wide (then 1,400 pixels again)."""
    browser.set_window_size(request.param, 1000)
    try:
        yield request.param
    finally:
        browser.set_window_size(1400, 1000)


def no_console_errors(browser: Any) -> None:
    """Nothing went wrong on the page, and the content security policy (every answer
    sends one) refused nothing it does."""
    entries = browser.get_log("browser")
    assert [e for e in entries if "Content Security Policy" in e["message"]] == []
    assert [e for e in entries if e["level"] == "SEVERE"] == []


def wait(browser: Any, condition: Any, timeout: float = 20) -> Any:
    """What ``condition(browser)`` gives once it is true (at most ``timeout`` seconds)."""
    return WebDriverWait(browser, timeout, poll_frequency=0.05).until(condition)


def ready(browser: Any, url: str) -> None:
    """Load ``url`` and wait until it is complete; the console is emptied first (what
    earlier pages logged is theirs)."""
    browser.get_log("browser")
    browser.get(url)
    wait(browser, lambda _: browser.execute_script("return document.readyState") == "complete")


def fits(browser: Any) -> None:
    """The page is no wider than the window: nothing scrolls it sideways."""
    inner, wide = browser.execute_script(
        "return [window.innerWidth, document.documentElement.scrollWidth]"
    )
    assert wide <= inner, (browser.current_url, wide, inner)
