"""Players at the table in the browser (issue 13 on the web client): a private message, a
resignation by the form, the creator offering the seat, a newcomer taking it over by the
link, all by clicks in a real Chromium."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import navigate, screenshot
from tests.client import Kurier, Player


def _signed_in(browser: Any, base_url: str, player: Player, width: int = 1280) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(base_url + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(player.token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    return page


def test_resign_offer_and_take_over_a_seat_by_clicks(
    browser: Any, base_url: str, worker: Any
) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(3)  # P0 (the creator), P1, P2
    url = f"{base_url}/games/{game_id}"
    ada, cleo = (_signed_in(browser, base_url, p) for p in (players[0], players[2]))
    for page in (ada, cleo):
        page.goto(url)

    # A private word from P0 to P2: P1 never reads it.
    ada.locator("textarea[name=text]").fill("P1 is bluffing")
    ada.select_option("select[name=to]", label="P2 only")
    ada.locator("form[action$='/say'] button").click()
    ada.wait_for_selector("text=P1 is bluffing")
    seen = kurier.call("GET", f"/v1/games/{game_id}/messages", players[1]).text
    assert "bluffing" not in seen

    # Cleo leaves: the box must be ticked (a plain form post, no script needed).
    cleo.locator("details.leave summary").click()
    cleo.locator("input[name=sure]").check()
    cleo.locator("details.leave button").click()
    cleo.wait_for_selector(".players >> text=resigned")

    navigate(ada)
    ada.locator("button", has_text="Offer the seat to a replacement").click()
    link = ada.locator("code.invite").inner_text()
    assert "take=2" in link and "code=" in link
    screenshot(ada, "web-seat-offer-1280")

    newcomer = kurier.new_player("Dora")
    dora = _signed_in(browser, base_url, newcomer, width=390)
    dora.goto(link)
    dora.locator("button", has_text="Take over seat 2").click()
    dora.wait_for_selector("text=Dora (you)")
    assert "resigned" not in dora.locator(".players").inner_text()
    assert "bluffing" not in dora.content()  # P2's private talk stays with that person
    screenshot(dora, "web-seat-taken-390")
    view = kurier.view(game_id, newcomer)
    assert view["your_seat"] == 2 and view["view"]["hand"]
    for page in (ada, cleo, dora):
        page.context.close()
