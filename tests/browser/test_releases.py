"""The releases pages in a real browser (:mod:`tests._support.browsing`), against a `catalog
serve` process that has a token: the rollback button writes like every write (the
token, the server's own page), says why when it is refused, and shows the release
rolled back when it is not. Screenshots go to the test's temporary folder."""

from __future__ import annotations

import shutil
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
from tests._support.serving import running_process, write_demo_catalogs  # noqa: E402
from tests.conftest import write_catalog  # noqa: E402

pytestmark = pytest.mark.slow
pytest_plugins = ["tests._support.browsing"]

TOKEN = "page-token-123-9a7c5e3b1d2f4680ace"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _set(url: str, label: str, catalog: str, version: str, percent: float | None = None) -> None:
    canary = None if percent is None else {"version": "1.0.0", "percent": percent}
    body = {"catalog": catalog, "version": version, "canary": canary}
    answer = httpx.put(f"{url}/releases/{label}", json=body, headers=AUTH)
    assert answer.status_code == 200, answer.text


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with a token; ``gone``'s release was at a version deleted since."""
    folder = tmp_path_factory.mktemp("served")
    catalogs = write_demo_catalogs(folder / "catalogs")
    for version in ("1.0.0", "2.0.0"):
        write_catalog(catalogs, "gone", version, parts=[{"id": "p", "body": version}])
    args = ["--store", f"sqlite:///{folder / 'prompts.sqlite'}", "--path", str(catalogs)]
    token = {"CATALOG_SERVE_TOKEN": TOKEN}
    with running_process(args, folder / "server.log", env=token) as (url, _):
        _set(url, "gone", "gone", "1.0.0")
        _set(url, "gone", "gone", "2.0.0")
        shutil.rmtree(catalogs / "gone" / "1.0.0")
        _set(url, "once", "demo", "2.0.0")
        yield url


def _release(url: str, label: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{url}/releases/{label}").json()
    return answer


def _page_errors(browser: Any) -> list[Any]:
    """What went wrong on the page besides the refused requests (logged as failed loads)."""
    entries = browser.get_log("browser")
    return [e for e in entries if e["level"] == "SEVERE" and e["source"] != "network"]


def _roll_back(browser: Any, token: str | None) -> str:
    """Click the rollback button, confirm, and return what the page then says."""
    if token is not None:
        field = browser.find_element(By.ID, "token")
        field.clear()
        field.send_keys(token)
    browser.find_element(By.ID, "rollback").click()
    browser.find_element(By.ID, "confirm-rollback").click()
    status = browser.find_element(By.ID, "rollback-status")
    wait(browser, lambda _: status.text not in ("", "rolling back…"))
    text: str = status.text
    return text


def test_a_rollback_needs_the_token_and_then_rolls_back(
    browser: Any, server: str, shots: Path
) -> None:
    _set(server, "production", "demo", "1.0.0")
    _set(server, "production", "demo", "2.0.0", percent=10)
    ready(browser, f"{server}/ui/releases/production")
    refused = "this server needs `Authorization: Bearer <token>` here"
    assert _roll_back(browser, None) == refused
    assert browser.find_element(By.ID, "rollback-status").get_attribute("class") == "status error"
    assert _roll_back(browser, "not-the-token") == refused
    assert _release(server, "production")["change"] == 2  # nothing was written
    browser.save_screenshot(str(shots / "refused.png"))
    # Cancelled: nothing is sent.
    browser.find_element(By.ID, "rollback").click()
    browser.find_element(By.ID, "cancel-rollback").click()
    assert not browser.find_element(By.ID, "confirm").is_displayed()
    assert _release(server, "production")["change"] == 2
    # With the token: the page shows the release rolled back, from its reloaded state.
    browser.find_element(By.ID, "token").clear()
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    browser.find_element(By.ID, "rollback").click()
    browser.find_element(By.ID, "confirm-rollback").click()
    wait(browser, lambda _: browser.current_url.endswith("/ui/releases/production?done=3"))
    assert browser.find_element(By.ID, "done").text == (
        "Rolled back: change #3 put production back to 1.0.0."
    )
    assert browser.find_element(By.ID, "current-version").text == "1.0.0"
    latest = browser.find_element(By.CSS_SELECTOR, "#history tr.latest").text
    assert latest.startswith("#3 rollback 1.0.0")
    release = _release(server, "production")
    assert (release["change"], release["action"], release["version"]) == (3, "rollback", "1.0.0")
    assert release["who"].startswith("token:")
    browser.save_screenshot(str(shots / "rolled-back.png"))
    assert _page_errors(browser) == []


def test_a_refused_rollback_says_why_and_what_to_do(browser: Any, server: str) -> None:
    """The version the rollback would go back to is no longer installed: the page shows
    the error answer's message and hint."""
    ready(browser, f"{server}/ui/releases/gone")
    said = _roll_back(browser, TOKEN)
    answer = httpx.post(f"{server}/releases/gone/rollback", headers=AUTH)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert "1.0.0" in error["message"] and error["hint"]
    assert said == f"{error['message']} ({error['hint']})"
    assert _release(server, "gone")["version"] == "2.0.0"
    assert _page_errors(browser) == []


def test_a_release_changed_once_offers_no_rollback(browser: Any, server: str) -> None:
    ready(browser, f"{server}/ui/releases/once")
    assert browser.find_elements(By.ID, "rollback") == []
    assert "nothing to roll back to" in browser.find_element(By.TAG_NAME, "main").text
    assert _page_errors(browser) == []


def test_the_releases_pages_fit_the_window(
    browser: Any, server: str, width: int, shots: Path
) -> None:
    for index, path in enumerate(("/ui/releases", "/ui/releases/production", "/ui/releases/gone")):
        ready(browser, server + path)
        fits(browser)
        browser.save_screenshot(str(shots / f"releases-{width}-{index}.png"))
        assert _page_errors(browser) == []
    ready(browser, server + "/ui/releases")
    labels = [row.text.split()[0] for row in browser.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert labels == ["gone", "once", "production"]
