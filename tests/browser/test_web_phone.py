"""The game page on a phone (issue 32): at 390 px nothing scrolls sideways, for the player to
move and for a spectator, in Attila and Attika; the zoom buttons leave the picture's "Last
move" words readable. Screenshots at 390 px, light and dark."""

from __future__ import annotations

from typing import Any

import pytest

from service.store import Store
from tests.browser.conftest import screenshot
from tests.game_helpers import new_table, play_random

#: Where the zoom buttons and the picture's last-move words are drawn, in page pixels.
_BOXES = """() => {
  const box = e => { const r = e.getBoundingClientRect();
                     return [r.left, r.top, r.right, r.bottom]; };
  const words = [...document.querySelectorAll('.board-svg text')]
    .filter(t => t.textContent.startsWith('Last move'));
  const zoom = document.querySelector('.zoom-buttons');
  return { words: words.map(box), zoom: zoom ? box(zoom) : null };
}"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def phone_page(browser: Any, base_url: str, token: str | None) -> Any:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    if token is not None:
        page.goto(base_url + "/")
        page.locator("form[action='/signin/token'] input[name=token]").fill(token)
        page.locator("form[action='/signin/token'] button").click()
        page.wait_for_selector("text=Your games")
    return page


@pytest.mark.parametrize(("game_type", "seats"), [("attila", 3), ("attika", 2)])
def test_the_game_page_fits_a_phone(
    browser: Any, base_url: str, store: Store, game_type: str, seats: int
) -> None:
    table = new_table(store, seats, f"phone-{game_type}", game_type)
    play_random(store, table, 12, seed=3)
    record = store.get_game(table.game_id)
    assert record.status == "active"
    mover = next(d["seat"] for d in record.pending if d["seat"] >= 0)
    for who, token in (("player", table.tokens[mover]), ("spectator", None)):
        page = phone_page(browser, base_url, token)
        page.goto(f"{base_url}/games/{table.game_id}")
        page.wait_for_selector(".board-svg")
        wide = page.evaluate("document.scrollingElement.scrollWidth")
        assert wide <= 390, f"{who}: the game page scrolls sideways ({wide} px)"
        # The board comes first: the site's bar in at most two short rows, the board's top
        # within the first fifth of the screen (three wrapped rows put it at 232 px).
        bar = page.locator("header.bar").bounding_box()
        board = page.locator(".board-svg").first.bounding_box()
        assert bar["height"] <= 80, f"{who}: the bar takes {bar['height']} px"
        assert board["y"] <= 844 / 5, f"{who}: the board starts at {board['y']} px"
        boxes = page.evaluate(_BOXES)
        assert boxes["zoom"] is not None
        hidden = [w for w in boxes["words"] if _overlap(w, boxes["zoom"])]
        assert hidden == [], f"{who}: the zoom buttons cover the last move's words"
        for dark in (False, True):
            page.emulate_media(color_scheme="dark" if dark else "light")
            page.evaluate("window.scrollTo(0, 0)")
            scheme = "dark" if dark else "light"
            screenshot(page, f"phone-{game_type}-{who}-390-{scheme}")
        page.context.close()
