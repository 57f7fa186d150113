"""A real headless Chromium for the browser tests: Debian's ``chromium`` (installed by
``make test`` as root: scripts/system-deps --tests), driven by Playwright through
``executable_path`` (Playwright's own browser downloads are not used).

Without Chromium the browser tests are skipped, except where ``KURIER_REQUIRE_BROWSER`` is set
(``.ci/run``): there a missing browser fails them, so CI never passes without running them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.chromium import CHROMIUM_ARGS, chromium_path

#: Screenshots the tests take for people to look at (not committed).
SHOTS = Path(__file__).resolve().parents[2] / ".kurier" / "screenshots"
#: Either set to 1 takes the tests' screenshots: those for people to look at (SHOTS) and those
#: committed in docs/pictures/ (look at each before committing them).
SCREENSHOT_SWITCHES = ("KURIER_SCREENSHOTS", "KURIER_UPDATE_PICTURES")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        message = "no Chromium: run `make test` as root, or apt-get install -y chromium"
        if os.environ.get("KURIER_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, screenshots_when_asked():
        launched = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def screenshots_asked() -> bool:
    return any(os.environ.get(name) == "1" for name in SCREENSHOT_SWITCHES)


@contextmanager
def screenshots_when_asked() -> Iterator[None]:
    """Unless asked (``SCREENSHOT_SWITCHES``), every page's and element's ``screenshot`` takes
    none: nobody looks at them in a test run, and each costs 0.2-0.7 s of CPU (its PNG; dozens
    a run of the suite, docs/performance.md). An element's still waits until it is visible, as
    its screenshot would: a test that photographs an element checks that it shows."""
    if screenshots_asked():
        yield
        return
    from playwright.sync_api import Locator, Page

    def page_not_taken(page: Page, **_options: Any) -> bytes:
        return b""

    def element_not_taken(locator: Locator, **_options: Any) -> bytes:
        locator.wait_for(state="visible")
        return b""

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Page, "screenshot", page_not_taken)
        patch.setattr(Locator, "screenshot", element_not_taken)
        yield


def screenshot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def navigate(page: Any, url: str | None = None) -> None:
    """Go to ``url`` (none: reload) on a game page, which may be reloading itself: it follows
    its game live (kurier.js) and reloads when a newer version arrives. A navigation that meets
    the page's own fails (net::ERR_ABORTED, "interrupted by another navigation"): try again."""
    from playwright.sync_api import Error as PlaywrightError

    for attempt in range(5):
        try:
            page.goto(url) if url else page.reload()
            return
        except PlaywrightError as error:
            raced = "ERR_ABORTED" in str(error) or "interrupted" in str(error)
            if not raced or attempt == 4:
                raise


#: True once the page shows a version other than ``before``. While the page is between two
#: loads (it reloads itself when a newer version arrives) there is no heading yet: false, not
#: an error, so the wait goes on.
_SHOWS_ANOTHER_VERSION = (
    "before => { const shown = document.querySelector('h1 small');"
    " return shown !== null && shown.innerText !== before; }"
)


def wait_for_another_version(page: Any, before: str, timeout: float = 30_000) -> None:
    """Wait until a game page's heading shows a version other than ``before``."""
    page.wait_for_function(_SHOWS_ANOTHER_VERSION, arg=before, timeout=timeout)
