"""The game page checks every revealed sealed choice in the browser (Web Crypto SHA-256)
against the commitment published before the reveal, and says so per choice."""

from __future__ import annotations

from typing import Any

from service.store import Store
from tests.browser.conftest import screenshot
from tests.game_helpers import new_table, play_random


def _game_with_reveals(store: Store) -> str:
    for attempt in range(5):  # bounded: a random game reveals a conflict early
        table = new_table(store, seats=3, seed=f"web-reveal-{attempt}")
        play_random(store, table, 120, seed=attempt)
        _record, entries = store.read_log(table.game_id)
        kinds = {e["kind"] for e in (ev for _, entry in entries for ev in entry["events"])}
        if "sealed_revealed" in kinds:
            return table.game_id
    raise AssertionError("no conflict was revealed in five games")


def test_revealed_choices_are_verified_in_the_browser(
    browser: Any, base_url: str, store: Store
) -> None:
    game_id = _game_with_reveals(store)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base_url}/games/{game_id}")
    page.wait_for_selector(".reveal .verified")
    reveals = page.locator(".reveal").count()
    assert reveals > 0
    assert page.locator(".reveal .verified").count() == reveals
    screenshot(page, "web-reveals-1280")
    # A tampered commitment is caught: the check is the browser's own.
    page.evaluate("document.querySelector('.reveal').dataset.commitment = '00' + '0'.repeat(62)")
    page.evaluate("window.kurierVerify()")
    page.wait_for_selector(".reveal .mismatch")
    assert page.locator(".reveal .mismatch").count() == 1
