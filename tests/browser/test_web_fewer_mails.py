"""The settings page's fewer-mails block (issue 15) in a real Chromium: the digest and quiet
hours are saved through the same checks as ``PATCH /v1/me``, shown again, and a bad pair is
reported on the page, not stored."""

from __future__ import annotations

from typing import Any

from service.domain import prefs
from service.store import Store
from service.store.keys import email_key
from tests.browser.conftest import screenshot
from tests.browser.test_web_signin import _register


def test_settings_set_and_clear_the_digest_and_quiet_hours(
    browser: Any, base_url: str, worker: Any, store: Store
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page, address = _register(context, base_url, worker.outbox, "Ruhe")
    page.goto(base_url + "/settings")
    page.select_option("select[name=digest]", "daily")
    page.fill("input[name=digest_hour]", "19")
    page.fill("input[name=quiet_start]", "22:30")
    page.fill("input[name=quiet_end]", "06:45")
    page.locator("form[action='/settings'] button").click()
    page.wait_for_selector("text=Saved.")
    (pid,) = store.r.smembers(email_key(address))
    chosen = prefs.read(store, pid)
    assert (chosen["digest"], chosen["digest_hour"]) == ("daily", 19)
    assert chosen["quiet_hours"] == {"start": "22:30", "end": "06:45"}
    page.goto(base_url + "/settings")
    assert page.input_value("input[name=quiet_start]") == "22:30"
    assert page.input_value("select[name=digest]") == "daily"

    # Only a start: refused with a note, nothing changes.
    page.fill("input[name=quiet_end]", "")
    page.locator("form[action='/settings'] button").click()
    page.wait_for_selector("text=Quiet hours need both")
    assert prefs.read(store, pid)["quiet_hours"] == {"start": "22:30", "end": "06:45"}

    # Both empty and the digest off: cleared.
    page.goto(base_url + "/settings")
    page.fill("input[name=quiet_start]", "")
    page.fill("input[name=quiet_end]", "")
    page.select_option("select[name=digest]", "off")
    page.locator("form[action='/settings'] button").click()
    page.wait_for_selector("text=Saved.")
    chosen = prefs.read(store, pid)
    assert chosen["quiet_hours"] is None and chosen["digest"] == "off"
    context.close()


def test_the_fewer_mails_block_in_german(
    browser: Any, base_url: str, worker: Any, store: Store
) -> None:
    """A German player's settings page says the block in German, refusals included."""
    for width in (390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page, address = _register(context, base_url, worker.outbox, f"Ruhe{width}")
        (pid,) = store.r.smembers(email_key(address))
        prefs.apply(store, pid, {"language": "de"})
        page.goto(base_url + "/settings")
        page.fill("input[name=quiet_start]", "22:30")
        page.locator("form[action='/settings'] button").click()
        page.wait_for_selector("text=Eine Ruhezeit braucht Anfang und Ende")
        page.goto(base_url + "/settings")
        assert page.locator("text=Ruhezeit von").count() == 1
        screenshot(page, f"settings-de-{width}")
        context.close()
