"""Table talk in place, in a real Chromium with the stream server: a message sent from one
page appears on the other players' open pages within 2 s, without a reload; a private one
never on a third player's or a spectator's page; the sender's draft and page stay; folded
away, the talk counts what came."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser.conftest import SHOTS
from tests.browser.test_web_live import COUNT_STREAMS
from tests.browser.test_web_seats import _signed_in
from tests.client import Kurier

#: Marks the page: a reload (a new document) loses the mark.
MARK = "() => { window.__kept = true; }"
KEPT = "() => window.__kept === true"


def _talk(page: Any) -> str:
    return page.locator("main ul.talk").inner_text()


def _send(page: Any, text: str, to: str = "") -> None:
    form = page.locator("form[action$='/say']")
    form.locator("textarea").fill(text)
    form.locator("select[name=to]").select_option(to)
    form.locator("button").click()


def _shots(page: Any, name: str) -> None:
    """The talk at 1280 and 390 px, light and dark (tests/browser's screenshots)."""
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("details.talk-box").scroll_into_view_if_needed()
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{name}-{width}-{scheme}.png"))
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 1280, "height": 900})


def test_talk_arrives_in_place_and_private_words_stay_private(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    kurier = Kurier(base_url)
    game_id, players = kurier.seated_game("attila", 3, "Talk", spectators_see_messages=True)
    url = f"{base_url}/games/{game_id}"
    pages = [_signed_in(browser, base_url, p) for p in players]
    spectator = browser.new_context(viewport={"width": 390, "height": 800}).new_page()
    everyone = [*pages, spectator]
    for page in everyone:
        page.add_init_script(COUNT_STREAMS)
        page.goto(url)
        page.evaluate(MARK)
    # The streams are open (each page's own, through the page's URL) before anyone speaks:
    # a stream carries the messages posted after it opened.
    for page in everyone:
        page.wait_for_function("() => window.__streams.some(s => s.readyState === 1)")

    _send(pages[0], "hello table")
    sent = time.monotonic()
    for page in everyone:
        page.locator("main ul.talk li", has_text="hello table").wait_for(timeout=2_000)
    took = time.monotonic() - sent
    assert took <= 2.0, f"the message took {took:.1f} s"
    assert pages[0].locator("form[action$='/say'] textarea").input_value() == ""

    # Ann says a private word to Bob (seat 1); a draft in Cat's box stays as typed.
    pages[2].locator("form[action$='/say'] textarea").fill("my draft")
    _send(pages[0], "psst bob", to="1")
    pages[1].locator("main ul.talk li", has_text="psst bob").wait_for(timeout=2_000)
    pages[0].locator("main ul.talk li", has_text="psst bob").wait_for(timeout=2_000)
    _send(pages[1], "after the secret")  # a table message after it: everyone has it
    for page in everyone:
        page.locator("main ul.talk li", has_text="after the secret").wait_for(timeout=2_000)
    for page in (pages[2], spectator):
        assert "psst" not in _talk(page), "a private message reached a third page"
        assert "psst" not in page.content()
    assert pages[2].locator("form[action$='/say'] textarea").input_value() == "my draft"
    for page in everyone:
        assert page.evaluate(KEPT), "the page was reloaded"

    _shots(pages[0], "talk")
    # Folded away, the talk counts what comes; opened, the count goes.
    pages[2].locator("details.talk-box > summary").click()
    assert not pages[2].evaluate("() => document.querySelector('details.talk-box').open")
    _send(pages[0], "one")
    pages[2].locator("details.talk-box .unread:not([hidden])").wait_for(timeout=2_000)
    _send(pages[1], "two")
    pages[2].locator("details.talk-box .unread", has_text="2 new").wait_for(timeout=2_000)
    _shots(pages[2], "talk-folded")
    pages[2].locator("details.talk-box > summary").click()
    # The details element's toggle event comes as a task after the click: wait for it.
    pages[2].locator("details.talk-box .unread").wait_for(state="hidden", timeout=2_000)
    pages[2].locator("main ul.talk li", has_text="two").wait_for(timeout=2_000)
    for page in everyone:
        page.context.close()
