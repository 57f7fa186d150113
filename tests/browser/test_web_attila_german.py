"""A German player's Attila table in a real Chromium, at 390 px (a phone) and 1280 px: each
province's German name, as the map breaks it (service/pictures/attila_map.py), renders inside
its region's inner box, and so does every chip of a province holding four peoples or more.
tests/test_attila_map.py checks the same in Python with the font files; this checks what the
browser draws (its fonts, ``textLength``, the board's scale). A screenshot of each."""

from __future__ import annotations

from typing import Any

import pytest

from engine.attila.game import GAME
from service.common.i18n import word
from service.domain import prefs
from service.domain.games import views
from service.pictures import attila_map
from service.pictures.attila_regions import regions
from service.store import Store
from tests.browser.conftest import screenshot
from tests.browser.test_web_board_sizes import SIZES, _page
from tests.game_helpers import new_table, play_random

#: How far a rendered box may stand out of the region's box, in CSS px (anti-aliasing, the
#: rounding of a text's box).
SLACK = 1.0
#: A province with this many chips (peoples, and a pacified one's century) or more.
CROWDED = 4

#: Each province's inner box in the page's pixels, with the boxes of its words (``text``:
#: its name's lines, the chips' letters and counts) and its chips (``rect``), each
#: ``[text, left, top, right, bottom]``.
_MEASURE = """boxes => Object.fromEntries(Object.entries(boxes).map(([pid, box]) => {
  const group = document.getElementById('province-' + pid);
  const ctm = group.getScreenCTM();
  const [x, y, w, h] = box;
  const a = new DOMPoint(x, y).matrixTransform(ctm);
  const b = new DOMPoint(x + w, y + h).matrixTransform(ctm);
  const parts = [...group.querySelectorAll(':scope > text, :scope > rect')].map(e => {
    const r = e.getBoundingClientRect();
    return [e.tagName === 'rect' ? '' : e.textContent, r.left, r.top, r.right, r.bottom];
  });
  return [pid, { box: [a.x, a.y, b.x, b.y], parts }];
}))"""


def _chips(province: dict[str, Any]) -> int:
    stones = sum(1 for count in province["stones"].values() if count)
    return stones + (1 if province["pacified"] else 0)


def _crowded_table(store: Store) -> tuple[Any, str]:
    """A 3-player game played on at random (bounded) until a province holds ``CROWDED``
    chips or more; the table and that province."""
    table = new_table(store, 3, "german-crowded", "attila")
    for seed in range(120):
        view = views.game_view(store.get_game(table.game_id), None, None)["view"]
        crowded = [pid for pid, p in view["provinces"].items() if _chips(p) >= CROWDED]
        if crowded:
            return table, crowded[0]
        if play_random(store, table, 1, seed=seed) < 1:
            break
    raise AssertionError(f"no province held {CROWDED} chips")


def _outside(part: list[Any], box: list[float]) -> bool:
    _text, left, top, right, bottom = part
    return (
        left < box[0] - SLACK
        or top < box[1] - SLACK
        or right > box[2] + SLACK
        or bottom > box[3] + SLACK
    )


@pytest.mark.parametrize("size", list(SIZES))
def test_a_german_players_map_writes_each_name_and_chip_inside_its_region(
    browser: Any, base_url: str, store: Store, size: str
) -> None:
    table, crowded = _crowded_table(store)
    record = store.get_game(table.game_id)
    mover = next(d["seat"] for d in record.pending if d["seat"] >= 0)
    page = _page(browser, base_url, table.tokens[mover], size)  # signed in, in English
    prefs.apply(store, table.players[mover]["id"], {"language": "de"})  # the player's setting
    page.goto(f"{base_url}/games/{table.game_id}")
    page.wait_for_selector(".board-svg #province-ROM")
    assert page.evaluate("() => document.documentElement.lang") == "de"

    shapes = regions()
    boxes = {p.id: list(shapes.inner[p.id]) for p in GAME.board.provinces}
    seen = page.evaluate(_MEASURE, boxes)
    for province in GAME.board.provinces:
        drawn = seen[province.id]
        lines = attila_map.name_lines(word("de", province.name), shapes.inner[province.id])
        names = [part for part in drawn["parts"] if part[0] in lines]
        assert [part[0] for part in names] == list(lines), (province.id, drawn["parts"])
        outside = [part for part in names if _outside(part, drawn["box"])]
        assert outside == [], (province.id, drawn["box"], outside)
    assert [part[0] for part in seen["ROM"]["parts"]][:2] == ["Mittel-/", "Süditalien"]

    drawn = seen[crowded]
    name = attila_map.name_lines(
        word("de", GAME.board.province(crowded).name), shapes.inner[crowded]
    )
    chips = [part for part in drawn["parts"] if part[0] not in name]
    assert len([part for part in chips if part[0] == ""]) >= CROWDED, drawn
    outside = [part for part in chips if _outside(part, drawn["box"])]
    screenshot(page, f"attila-german-{crowded}-{size}")
    assert outside == [], (crowded, drawn["box"], outside)
    page.context.close()
