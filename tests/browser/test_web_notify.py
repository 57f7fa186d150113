"""Turn notifications (issue 32) in a real Chromium: opt-in by a button (permission asked on that
click only), a notification and a beep when it becomes the player's turn while the page is in
the background, the choice remembered across pages. The browser's own Notification and
AudioContext run; the page only has spies around them that count what was shown and played,
and a switch that tells it it is in the background (a headless page never is)."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import navigate, screenshot
from tests.client import Kurier

SPIES = """
(() => {
  const Real = window.Notification;
  window.__shown = []; window.__asked = 0; window.__beeps = 0; window.__background = false;
  class Spy extends Real {
    constructor(title, options) { super(title, options); window.__shown.push([title, options]); }
  }
  Object.defineProperty(Spy, "permission", { get: () => Real.permission });
  Spy.requestPermission = (...args) => {
    window.__asked += 1; return Real.requestPermission(...args);
  };
  window.Notification = Spy;
  const oscillator = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.__beeps += 1; return oscillator.call(this);
  };
  Object.defineProperty(Document.prototype, "visibilityState", {
    get: () => (window.__background ? "hidden" : "visible"),
  });
  const focus = Document.prototype.hasFocus;
  Document.prototype.hasFocus = function () { return !window.__background && focus.call(this); };
})();
"""


def _player_page(browser: Any, base_url: str, token: str) -> Any:
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, permissions=["notifications"]
    )
    context.add_init_script(SPIES)
    page = context.new_page()
    page.goto(base_url + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    return page


def _move(kurier: Kurier, game_id: str, player: Any) -> None:
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()["actions"]
    r = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", player, json={"notation": legal[0]["notation"]}
    )
    assert r.status_code == 200, r.text


def test_a_turn_in_the_background_is_notified_with_a_sound(
    browser: Any, base_url: str, worker: Any
) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="notify-1")
    view = kurier.view(game_id)
    mover = next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)
    waiting = 1 - mover
    page = _player_page(browser, base_url, players[waiting].token)
    url = f"{base_url}/games/{game_id}"
    navigate(page, url)
    toggle = page.locator(".notify-toggle")
    toggle.wait_for()
    assert page.evaluate("window.__asked") == 0  # never asked unprompted
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    page.wait_for_selector(".notify-toggle[aria-pressed=true]")
    assert page.evaluate("window.__asked") == 1
    page.locator(".notify-sound").check()
    assert page.evaluate("window.__beeps") == 1  # how it sounds, on the click
    screenshot(page, "notify-1280-light")
    page.evaluate("window.__background = true")
    before = page.locator("h1 small").inner_text()
    # The other seat moves until it is this player's turn (Attila: one or two actions).
    for _ in range(6):
        now = kurier.view(game_id)
        if any(d["seat"] == waiting for d in now["waiting_for"]):
            break
        seat = next(d["seat"] for d in now["waiting_for"] if d["seat"] >= 0)
        _move(kurier, game_id, players[seat])
    page.wait_for_function("() => window.__shown.length === 1", timeout=20_000)
    title, options = page.evaluate("window.__shown[0]")
    assert title.startswith("Your turn") and game_id in options["body"]
    assert page.evaluate("window.__beeps") == 2
    assert page.locator("h1 small").inner_text() != before
    # The page stays as it was: the controls keep what was chosen after the update in place,
    # and after a reload.
    assert page.locator(".notify-toggle").get_attribute("aria-pressed") == "true"
    navigate(page, url)
    page.locator(".notify-toggle[aria-pressed=true]").wait_for()
    assert page.locator(".notify-sound").is_checked()
    page.locator(".notify-toggle").click()
    page.wait_for_selector(".notify-toggle[aria-pressed=false]")
    navigate(page, url)
    page.locator(".notify-toggle[aria-pressed=false]").wait_for()
    page.context.close()
