"""Stepping through a game's versions in a real Chromium (issue 32, "Looks back"): the arrow
keys move between versions, a reveal is checked in the browser at the version that made it,
the page fits a phone; screenshots at 390 and 1280 px, light and dark."""

from __future__ import annotations

from typing import Any

import pytest

from service.store import Store
from tests.browser.conftest import screenshot
from tests.browser.test_web_commitments import _game_with_reveals
from tests.browser.test_web_table import PICTURES
from tests.game_helpers import new_table, play_random


def test_arrow_keys_step_through_the_versions(browser: Any, base_url: str, store: Store) -> None:
    game_id = _game_with_reveals(store)
    record, entries = store.read_log(game_id)
    reveal = next(
        v for v, e in entries if any(raw["kind"] == "sealed_revealed" for raw in e["events"])
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base_url}/games/{game_id}/replay/{reveal - 1}")
    assert page.locator(".reveal").count() == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**/replay/{reveal}")
    page.wait_for_selector(".reveal .verified")
    assert page.locator(".reveal .verified").count() == page.locator(".reveal").count() > 0
    for dark in (False, True):
        page.emulate_media(color_scheme="dark" if dark else "light")
        screenshot(page, f"replay-1280-{'dark' if dark else 'light'}")
    page.emulate_media(color_scheme="light")
    page.screenshot(path=str(PICTURES / "replay-1280-light.png"))  # for docs/web.md
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**/replay/{reveal - 1}")
    page.keyboard.press("End")
    page.wait_for_url(f"**/replay/{record.version}")
    # Typing a version in the box is not stepping.
    page.locator(".replay-nav input[name=v]").fill(str(reveal))
    page.locator(".replay-nav input[name=v]").press("ArrowLeft")
    page.locator(".replay-nav input[name=v]").press("Enter")
    page.wait_for_url(f"**/replay/{reveal}")
    page.keyboard.press("Home")
    page.wait_for_url("**/replay/*")
    assert page.locator(".replay-nav a[rel=prev]").count() == 0
    page.close()
    phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.goto(f"{base_url}/games/{game_id}/replay/{reveal}")
    wide = phone.evaluate("document.scrollingElement.scrollWidth")
    assert wide <= 390, f"the replay scrolls sideways on a phone ({wide} px)"
    for dark in (False, True):
        phone.emulate_media(color_scheme="dark" if dark else "light")
        screenshot(phone, f"replay-390-{'dark' if dark else 'light'}")
    phone.screenshot(path=str(PICTURES / "replay-390-dark.png"))  # dark: the last one set
    phone.close()


def test_a_replay_at_the_newest_version_follows_the_game(
    browser: Any, base_url: str, store: Store, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game in play: the viewer at its newest version is taken to each new one; a viewer
    further back keeps their place while "Last" moves on."""
    monkeypatch.setenv("KURIER_STREAM_URL", streams)  # the app is served in this process
    table = new_table(store, 3, "replay-live")
    play_random(store, table, 4, seed=1)
    version = store.get_game(table.game_id).version
    newest = browser.new_page(viewport={"width": 1280, "height": 900})
    newest.goto(f"{base_url}/games/{table.game_id}/replay/{version}")
    back = browser.new_page(viewport={"width": 1280, "height": 900})
    back.goto(f"{base_url}/games/{table.game_id}/replay/{version - 1}")
    play_random(store, table, 1, seed=2)
    after = store.get_game(table.game_id).version
    assert after > version
    newest.wait_for_url(f"**/replay/{after}", timeout=10_000)
    back.wait_for_function(
        f"() => document.querySelector('.replay-nav a[rel=last]').href.endsWith('/{after}')",
        timeout=10_000,
    )
    assert back.url.endswith(f"/replay/{version - 1}")
    newest.close()
    back.close()
