"""The settings page in a real Chromium (issue 36): a value the API refuses is refused here
too, said on the page next to the field it concerns, with what was typed still in the form;
the time zone is picked from the tz database's zones, grouped by region."""

from __future__ import annotations

from typing import Any

from service.domain import prefs
from service.store import Store
from service.store.keys import email_key
from tests.browser.conftest import screenshot
from tests.browser.test_web_signin import _register


def test_a_refused_settings_form_says_why_and_keeps_what_was_typed(
    browser: Any, base_url: str, worker: Any, store: Store
) -> None:
    for width in (390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page, address = _register(context, base_url, worker.outbox, f"Ida{width}")
        (pid,) = store.r.smembers(email_key(address))
        page.goto(base_url + "/settings")
        assert page.locator("select[name=timezone] optgroup[label=Europe]").count() == 1
        page.select_option("select[name=timezone]", "Europe/Berlin")
        page.fill("input[name=quiet_start]", "22:00")
        page.fill("input[name=quiet_end]", "07:00")
        page.fill("input[name=name]", "Ida\u202eadI")  # a right-to-left override
        page.locator("form[action='/settings'] button").click()
        page.wait_for_selector("p.note")
        note = page.locator("p.note").inner_text()
        assert "A name is 1-40 characters" in note and "(U+202E)" in note
        name = page.locator("form[action='/settings'] input[name=name]")
        assert name.input_value() == "Ida\u202eadI"
        assert name.get_attribute("aria-invalid") == "true"
        assert page.input_value("select[name=timezone]") == "Europe/Berlin"
        assert page.input_value("input[name=quiet_start]") == "22:00"
        chosen = prefs.read(store, pid)
        assert (chosen["timezone"], chosen["quiet_hours"]) == ("UTC", None)  # nothing stored
        screenshot(page, f"settings-refused-{width}")

        name.fill("Ida")
        page.locator("form[action='/settings'] button").click()
        page.wait_for_selector("text=Saved.")
        chosen = prefs.read(store, pid)
        assert chosen["timezone"] == "Europe/Berlin"
        assert chosen["quiet_hours"] == {"start": "22:00", "end": "07:00"}
        assert page.input_value("select[name=timezone]") == "Europe/Berlin"
        assert page.locator("[aria-invalid]").count() == 0
        screenshot(page, f"settings-zone-{width}")
        # The picker opened, for people to look at (a native list does not show in a
        # screenshot): the same select shown as a list box.
        picker = page.locator("select[name=timezone]")
        picker.evaluate("select => { select.size = 16; }")
        picker.scroll_into_view_if_needed()
        picker.screenshot(path=str(screenshot(page, f"settings-zone-picker-{width}")))
        context.close()
