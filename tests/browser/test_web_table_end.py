"""The table's end and its "confirm moves" setting (issues 32 and 34), in a real Chromium: the
end screen shows each player's rating change and a Rematch button that leads to the new game,
where the other player joins from "Rematch offered — join"; with "confirm moves: never" a
complete move goes at once, with "auto" a phone waits for Confirm (the default is "always")."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from tests.browser.conftest import navigate
from tests.browser.test_web_seats import _signed_in
from tests.browser.test_web_table import PICTURES, _idle, _phone
from tests.client import Kurier


def _shot(page: Any, name: str) -> None:
    """The standings in light and dark: docs/pictures/table/<name>-<light|dark>.png."""
    PICTURES.mkdir(parents=True, exist_ok=True)
    page.locator(".standings").scroll_into_view_if_needed()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(Path(PICTURES) / f"{name}-{scheme}.png"), full_page=False)
    page.emulate_media(color_scheme="light")


def _rated(kurier: Kurier, game_id: str, seconds: float = 30) -> list[dict[str, Any]]:
    """The game's rating changes, once the worker's rating job has run (bounded wait)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        changes = kurier.view(game_id)["rating_changes"]
        if changes:
            return list(changes)
        time.sleep(0.1)
    raise AssertionError(f"game {game_id} was not rated in time")


def test_the_end_screen_shows_rating_changes_and_leads_to_the_rematch(
    browser: Any, base_url: str, worker: Any
) -> None:
    kurier = Kurier(base_url)
    game_id, (ann, bob) = kurier.new_game(2, seed="table-end-1", game_type="attika")
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", bob, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    changes = _rated(kurier, game_id)
    url = f"{base_url}/games/{game_id}"
    wide, phone = _signed_in(browser, base_url, ann), _phone(browser, base_url, bob)
    for page in (wide, phone):
        navigate(page, url)
        rows = page.locator(".standings tbody tr")
        assert rows.count() == 2
        assert "Rating" in page.locator(".standings thead").inner_text()
        cells = page.locator(".standings .rating-change")
        for row, change in enumerate(changes):  # best first, as the rows
            text = cells.nth(row).inner_text()
            assert f"{change['display_after']}" in text and f"{change['display_delta']:+d}" in text
            assert change["display_before"] == 1500, "a newcomer starts at 1500"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= page.viewport_size["width"], f"the end scrolls sideways ({width} px)"
    _shot(wide, "end-1280")
    _shot(phone, "end-390")
    # Ann asks for a rematch: her page goes to the new game, where she sits.
    wide.locator("button.rematch").click()
    wide.wait_for_url(lambda u: "/games/" in u and game_id not in u)
    new_id = wide.url.rstrip("/").split("/games/")[1].split("?")[0]
    assert kurier.view(game_id)["rematch"] == new_id
    assert [s["player_id"] for s in kurier.view(new_id)["seats"]] == [ann.id]
    # Bob's end screen, open all along, offers to join it: updated in place by the stream.
    offer = phone.locator("button.rematch", has_text="Rematch offered")
    offer.wait_for(timeout=15_000)
    offer.click()
    phone.wait_for_url(lambda u: new_id in u)
    assert [s["player_id"] for s in kurier.view(new_id)["seats"]] == [ann.id, bob.id]
    navigate(wide, f"{base_url}/games/{new_id}")
    wide.locator("form[action$='/start'] button").click()
    for _ in range(100):  # bounded wait for the start
        if kurier.view(new_id)["status"] == "active":
            break
        time.sleep(0.05)
    assert kurier.view(new_id)["status"] == "active"
    # The first game now links to the rematch for both.
    for page in (wide, phone):
        navigate(page, url)
        assert page.locator(f".standings a[href='/games/{new_id}']").count() == 1
    _shot(wide, "rematch-1280")
    _shot(phone, "rematch-390")
    for page in (wide, phone):
        page.context.close()


def _stage_until_sent_or_complete(
    page: Any, rng: random.Random, kurier: Kurier, game_id: str
) -> str:
    """Click a piece, then lit places or offered options, until the move went (the game moved
    on: "sent") or it waits complete for Confirm ("complete"). No Confirm is clicked here."""
    start = kurier.view(game_id)["version"]
    for _part in range(8):
        _idle(page)
        if kurier.view(game_id)["version"] != start:
            return "sent"
        bar = page.locator(".confirm-bar")
        if bar.is_visible() and bar.locator(".staged-text").inner_text().endswith("\u2714"):
            return "complete"
        places = page.locator(".board-svg .legal")
        options = page.locator(".choices button.option")
        pieces = page.locator(".pieces [data-pick]:enabled")
        if options.count():
            options.nth(rng.randrange(options.count())).click()
        elif places.count():
            places.nth(rng.randrange(places.count())).click()
        elif pieces.count():
            pieces.nth(rng.randrange(pieces.count())).click()
        time.sleep(0.3)
    if kurier.view(game_id)["version"] != start:
        return "sent"
    bar = page.locator(".confirm-bar")
    raise AssertionError(
        "the move was neither sent nor complete: "
        f"{page.evaluate('window.kurier && window.kurier.board && window.kurier.board.staged()')} "
        f"{bar.is_visible() and bar.locator('.staged-text').inner_text()!r} "
        f"{page.locator('[data-game]').get_attribute('data-confirm')} "
        f"{page.evaluate('window.innerWidth')}"
    )


def test_confirm_moves_never_sends_a_complete_move_at_once(
    browser: Any, base_url: str, worker: Any
) -> None:
    kurier = Kurier(base_url)
    game_id, (ann, bob) = kurier.new_game(2, seed="table-never-1", game_type="attila")
    url = f"{base_url}/games/{game_id}"
    wide, phone = _signed_in(browser, base_url, ann), _phone(browser, base_url, bob)
    # Ann chooses "never" on the settings page; Bob "auto" (a phone confirms). The default is
    # "always": a slip costs days in a slow game.
    assert kurier.call("GET", "/v1/me", bob).json()["confirm_moves"] == "always"
    r = kurier.call("PATCH", "/v1/me", bob, json={"confirm_moves": "auto"})
    assert r.status_code == 200, r.text
    navigate(wide, f"{base_url}/settings")
    select = wide.locator("select[name=confirm_moves]")
    assert select.input_value() == "always"
    select.select_option("never")
    wide.locator("form[action='/settings'] button").first.click()
    wide.wait_for_load_state()
    assert kurier.call("GET", "/v1/me", ann).json()["confirm_moves"] == "never"
    rng = random.Random(3)
    sent = waited = 0
    for _turn in range(12):
        view = kurier.view(game_id)
        if sent and waited:
            break
        seat = next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)
        page = (wide, phone)[seat]
        navigate(page, url)
        outcome = _stage_until_sent_or_complete(page, rng, kurier, game_id)
        if seat == 0:
            assert outcome == "sent", "with never, a complete move goes at once"
            sent += 1
        else:
            assert outcome == "complete", "on a phone, auto waits for Confirm"
            assert kurier.view(game_id)["version"] == view["version"], "nothing sent yet"
            page.locator(".confirm-bar .confirm").click()
            waited += 1
        for _ in range(200):  # bounded wait for the commit
            if kurier.view(game_id)["version"] != view["version"]:
                break
            time.sleep(0.05)
        assert kurier.view(game_id)["version"] > view["version"]
    assert sent and waited
    for page in (wide, phone):
        page.context.close()
