"""Tournaments in the browser: organise one with the form, sign up with the button, start it,
see its rounds linked and, once its games are played, the standings; screenshots at 390 and
1280 px, light and dark (tests/browser/conftest.py ``screenshot``: looked at, docs/web.md)."""

from __future__ import annotations

import time
from typing import Any

from service.store import Store
from tests.browser.conftest import screenshot
from tests.client import Kurier, Player
from tests.game_helpers import Table, play_random


def _page(browser: Any, base_url: str, player: Player, width: int, scheme: str) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.goto(base_url + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(player.token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    return page


def test_organise_sign_up_start_and_see_standings(
    browser: Any, base_url: str, store: Store, worker: Any
) -> None:
    kurier = Kurier(base_url)
    org = kurier.new_player("Orla")
    others = [kurier.new_player(name) for name in ("Pia", "Quin", "Rae")]

    page = _page(browser, base_url, org, 1280, "light")
    page.locator("nav.club-nav a", has_text="Tournaments").click()
    page.wait_for_url("**/tournaments")
    page.fill(".create-tournament input[name=name]", "Winter ladder")
    page.select_option(".create-tournament select[name=type]", "attila")
    page.fill(".create-tournament input[name=seats]", "2")
    page.select_option(".create-tournament select[name=format]", "swiss")
    page.fill(".create-tournament input[name=rounds]", "1")
    page.locator(".create-tournament button").click()
    page.wait_for_url("**/tournaments/t_*")
    tournament_id = page.url.rsplit("/", 1)[1]
    assert page.locator("h1", has_text="Winter ladder").count() == 1

    page.locator("button", has_text="Sign up").click()
    page.wait_for_selector("button:has-text('Withdraw')")
    assert page.locator(f".people a[href='/players/{org.id}']").count() == 1
    for p in others:
        r = kurier.call("POST", f"/v1/tournaments/{tournament_id}/entrants", p)
        assert r.status_code == 200, r.text
    page.reload()
    assert page.locator(".people a").count() == 4
    page.goto(f"{base_url}/tournaments")
    assert page.locator(f"a[href='/tournaments/{tournament_id}']").count() == 1
    page.goto(f"{base_url}/tournaments/{tournament_id}")
    page.locator("button", has_text="Start now").click()
    page.wait_for_selector("table.standings")
    links = page.locator("ul.rounds a[href^='/games/']")
    assert links.count() == 2
    game_ids = [links.nth(i).get_attribute("href").rsplit("/", 1)[1] for i in range(2)]

    for game_id in game_ids:
        record = store.get_game(game_id)
        table = Table(game_id, [store.players.get(p) for p in record.seats])
        assert play_random(store, table, 5000, seed=7) < 5000, "the game did not end"
    deadline = time.monotonic() + 60
    while kurier.call("GET", f"/v1/tournaments/{tournament_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.2)
    page.reload()
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 4
    assert "finished" in page.locator("p.muted").first.inner_text()
    points = sorted(float(rows.nth(i).locator("td").nth(2).inner_text()) for i in range(4))
    assert sum(points) == 2.0  # two games, a point each
    page.context.close()

    # A running one at tables of three: first places and average place, games in play.
    body = {"name": "Threes", "type": "attila", "seats": 3, "format": "round_robin"}
    threes = kurier.call("POST", "/v1/tournaments", org, json=body).json()["id"]
    for p in [org, *others, *(kurier.new_player(f"Tri{i}") for i in range(2))]:
        kurier.call("POST", f"/v1/tournaments/{threes}/entrants", p)
    assert kurier.call("POST", f"/v1/tournaments/{threes}/start", org).status_code == 200

    viewer = others[0]
    for width in (390, 1280):
        for scheme in ("light", "dark"):
            shown = _page(browser, base_url, viewer, width, scheme)
            shown.goto(f"{base_url}/tournaments/{tournament_id}")
            screenshot(shown, f"tournament-{width}-{scheme}")
            shown.goto(f"{base_url}/tournaments/{threes}")
            assert shown.locator("ul.rounds a[href^='/games/']").count() == 2
            screenshot(shown, f"tournament-threes-{width}-{scheme}")
            shown.goto(f"{base_url}/tournaments")
            screenshot(shown, f"tournaments-{width}-{scheme}")
            shown.context.close()
