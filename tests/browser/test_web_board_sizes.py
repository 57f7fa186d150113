"""Boards a thumb can play (WCAG 2.2, 2.5.8): at the default view of a turn, on a 390×844 touch
phone and at 1280×800, every lit target is at least 24×24 CSS px and every informative word
on the board (names, counts, factors: the pictures mark them ``class="info"``) is drawn at
11 CSS px or more, measured from ``getBoundingClientRect``: those the board's frame shows (the
wargame's map, and Attika's when its words do not read whole, open zoomed to where the player
acts, the rest of it a pan away). Screenshots of each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from service.domain.games import views
from service.store import Store
from tests.browser.conftest import screenshot
from tests.browser.test_web_table import shows_version
from tests.game_helpers import new_table, play_random

#: The boards with their lit places (the wargame at its default view), for docs/web.md.
PICTURES = Path(__file__).resolve().parents[2] / "docs" / "pictures" / "table"
MIN_TARGET = 24
MIN_TEXT = 11

#: Each lit target's size and each informative word's rendered font size, in CSS px: the
#: font size is the word's rendered height over its height in the picture's units, times its
#: font size there (an SVG text's box is about 1.16 em high whatever the scale).
_MEASURE = """() => {
  const size = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
  const frame = document.querySelector('.table-board').getBoundingClientRect();
  const shown = e => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > frame.left && r.left < frame.right
      && r.bottom > frame.top && r.top < frame.bottom; };
  const targets = [...document.querySelectorAll('.board-svg .legal, .board-svg .wg-pickable, '
      + '.board-svg #wg-under .wg-lit, .pieces .piece:not(:disabled)')]
    .filter(e => !e.closest('.board-svg') || shown(e))
    .map(e => [e.id || e.dataset.pick || e.dataset.hex || e.className.baseVal || e.className,
               ...size(e)]);
  const words = [...document.querySelectorAll('.board-svg .info')].filter(shown).map(t => {
    const r = t.getBoundingClientRect(), b = t.getBBox();
    const font = parseFloat(getComputedStyle(t).fontSize);
    return [t.textContent, b.height ? font * r.height / b.height : 0];
  });
  const lit = document.querySelectorAll('.board-svg .legal, .board-svg #wg-under .wg-lit').length;
  return { targets, words, lit };
}"""

#: A lit place's looks: its outline's colour and width, and whether its marker shows.
_LIT_LOOK = """() => {
  const lit = document.querySelector('.board-svg .legal');
  const box = lit.querySelector('polygon');
  const mark = lit.querySelector('.lit-mark');
  const style = getComputedStyle(box);
  return { stroke: style.stroke, width: parseFloat(style.strokeWidth), fill: style.fill,
           mark: mark ? getComputedStyle(mark).display : 'none' };
}"""

SIZES = {"phone": (390, 844, True), "desktop": (1280, 800, False)}
CASES = [
    pytest.param(game, seats, size, id=f"{game}-{size}")
    for game, seats in (("attila", 3), ("attika", 2), ("attila-wargame", 2))
    for size in SIZES
]


#: The confirm bar's buttons shown, with their sizes.
_BAR = """() => [...document.querySelectorAll('.confirm-bar:not([hidden]) button:not([hidden])')]
  .map(b => { const r = b.getBoundingClientRect(); return [b.className, r.width, r.height]; })"""


def _until_offered(store: Store, table: Any, notation: str, tries: int) -> None:
    """Attika played on at random (bounded by ``tries`` actions) until the player to move is
    offered an action whose notation starts with ``notation`` ("build ": a building's sites
    light up at the default view; "tile ": a map tile is to be placed)."""
    for seed in range(tries):
        record = store.get_game(table.game_id)
        mover = next(d["seat"] for d in record.pending if d["seat"] >= 0)
        legal = views.legal_actions(record, mover)["actions"]
        if any(a["notation"].startswith(notation) for a in legal):
            return
        play_random(store, table, 1, seed=seed)
    raise AssertionError(f"no {notation.strip()!r} offered in {tries} random actions")


def _hexes_across(store: Store, table: Any) -> int:
    """How many hexes Attika's map spans from west to east (its hexes are pointy-topped: a
    hex (q, r) lies at q + r/2 hex widths)."""
    view = views.game_view(store.get_game(table.game_id), None, None)["view"]
    across = [int(q) + int(r) / 2 for q, r in (c["hex"].split(",") for c in view["map"])]
    return int(max(across) - min(across)) + 1


def _attika_grown(store: Store, table: Any, across: int) -> None:
    """Attika played on at random (bounded) until its map spans ``across`` hexes."""
    for seed in range(60):
        if _hexes_across(store, table) >= across:
            return
        if play_random(store, table, 10, seed=seed) < 10:
            break
    raise AssertionError(f"the map did not grow to {across} hexes across")


#: At the opening view: the sites of the pending decision (the page's legal actions' places)
#: the board's frame shows, with their sizes, how many there are, the informative words shown
#: and the board's scale.
_OPENING = r"""() => {
  const frame = document.querySelector('.table-board').getBoundingClientRect();
  const shown = e => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > frame.left && r.left < frame.right
      && r.bottom > frame.top && r.top < frame.bottom; };
  const ids = [...new Set(window.kurier.board.actions().map(a => a[1]).filter(Boolean))];
  const sites = ids.map(id => document.getElementById(id)).filter(Boolean);
  const targets = sites.filter(shown).map(e => {
    const r = e.getBoundingClientRect(); return [e.id, r.width, r.height]; });
  const words = [...document.querySelectorAll('.board-svg .info')].filter(shown).map(t => {
    const r = t.getBoundingClientRect(), b = t.getBBox();
    const font = parseFloat(getComputedStyle(t).fontSize);
    return [t.textContent, b.height ? font * r.height / b.height : 0];
  });
  const zoom = document.querySelector('.table-board .zoom').style.transform || '';
  const m = /scale\(([0-9.]+)\)/.exec(zoom);
  return { targets, sites: sites.length, words, scale: m ? parseFloat(m[1]) : 1 };
}"""

#: Whether the whole map lies in the board's frame (above its zoom buttons).
_WHOLE = """() => {
  const box = document.querySelector('.table-board').getBoundingClientRect();
  const foot = document.querySelector('.table-board .zoom-buttons').getBoundingClientRect().top;
  const r = document.querySelector('.board-svg').getBoundingClientRect();
  return r.left >= box.left - 1 && r.right <= box.right + 1
    && r.top >= box.top - 1 && r.bottom <= foot + 1;
}"""

ATTIKA_OPENINGS = [
    pytest.param(when, size, id=f"attika-{when}-{size}")
    for when in ("grown", "tile")
    for size in SIZES
]


@pytest.mark.parametrize(("when", "size"), ATTIKA_OPENINGS)
def test_a_large_attika_map_opens_zoomed_where_the_player_acts(
    browser: Any, base_url: str, store: Store, when: str, size: str
) -> None:
    """Attika's map grown to 10 hexes across, and its picture while a map tile is placed (the
    empty places round the map), drawn whole, would write their words under 11 px: the map
    opens zoomed so that the words the frame shows are 11 px or more, with sites of the pending
    decision among them, each a target of 24 px; the zoom-out button still shows it whole."""
    table = new_table(store, 2, f"sizes-attika-{when}", "attika")
    if when == "grown":
        _attika_grown(store, table, across=10)
    else:
        _until_offered(store, table, "tile ", 600)
    page = _movers_board(browser, base_url, store, table, size)
    seen = page.evaluate(_OPENING)
    small = [t for t in seen["targets"] if t[1] < MIN_TARGET or t[2] < MIN_TARGET]
    tiny = [w for w in seen["words"] if w[1] < MIN_TEXT - 0.05]
    assert seen["words"] and seen["sites"], seen
    assert seen["targets"], f"none of the {seen['sites']} sites to act on shows"
    assert (small, tiny) == ([], []), (
        f"at scale {seen['scale']}: targets under {MIN_TARGET} px: {small[:6]}; "
        f"informative words under {MIN_TEXT} px: {tiny[:6]}"
    )
    screenshot(page, f"sizes-attika-{when}-{size}")
    if when == "grown":
        _docs_shots(page, size, "attika-grown")
    for _step in range(8):
        if page.evaluate(_WHOLE):
            break
        page.locator(".table-board .zoom-buttons .zoom-out").click()
    assert page.evaluate(_WHOLE), "the zoom-out button does not show the whole map"
    page.context.close()


def test_a_zoomed_attika_map_keeps_the_players_zoom_through_updates(
    browser: Any,
    base_url: str,
    store: Store,
    worker: Any,
    streams: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The grown map opened zoomed, the player zooms in once more: moves arriving in place by
    the stream leave the player's zoom as it is (the map opens zoomed once a page)."""
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    table = new_table(store, 2, "sizes-attika-grown", "attika")
    _attika_grown(store, table, across=10)
    page = _page(browser, base_url, table.tokens[0], "phone")
    page.goto(f"{base_url}/games/{table.game_id}")
    shows_version(page, store.get_game(table.game_id).version)
    zoom = page.locator(".table-board .zoom")
    opened = zoom.evaluate("el => el.style.transform")
    assert "scale(" in opened and "scale(1)" not in opened, opened
    page.locator(".table-board .zoom-buttons .zoom-in").click()
    mine = zoom.evaluate("el => el.style.transform")
    assert mine != opened
    for seed in range(3):
        play_random(store, table, 1, seed=seed)
        shows_version(page, store.get_game(table.game_id).version)
        assert zoom.evaluate("el => el.style.transform") == mine
    page.context.close()


def _staged_bar(page: Any) -> list[Any]:
    """A lit place tapped (a part staged, not sent: Confirm is asked first) and the bar's
    buttons then shown."""
    page.locator(".board-svg .legal").first.dispatch_event("click")
    page.wait_for_function(
        "() => !document.querySelector('.confirm-bar').hidden"
        " && !document.querySelector('.confirm-bar .confirm').disabled",
        timeout=5_000,
    )
    return list(page.evaluate(_BAR))


def _page(browser: Any, base_url: str, token: str, size: str) -> Any:
    width, height, phone = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    page = context.new_page()
    page.goto(base_url + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    return page


def _movers_board(browser: Any, base_url: str, store: Store, table: Any, size: str) -> Any:
    """The page of the seat the game waits for, its board drawn and started."""
    record = store.get_game(table.game_id)
    mover = next(d["seat"] for d in record.pending if d["seat"] >= 0)
    page = _page(browser, base_url, table.tokens[mover], size)
    page.goto(f"{base_url}/games/{table.game_id}")
    page.wait_for_selector(".board-svg")
    page.wait_for_function("() => !!(window.kurier && window.kurier.board)", timeout=5_000)
    return page


def _light_places(page: Any) -> int:
    """Pick what the player acts with first (a card or a building that goes on the board, else
    any piece, a counter) and wait, bounded, for the places it lights; how many are lit."""
    for selector in (
        ".pieces .card-piece:not(:disabled), .pieces .building-piece:not(:disabled)",
        ".pieces .piece:not(:disabled)",
        ".board-svg .wg-pickable",
    ):
        found = page.locator(selector)
        if found.count():
            found.first.dispatch_event("click")
            break
    count = "document.querySelectorAll('.board-svg .legal, .board-svg #wg-under .wg-lit').length"
    try:
        page.wait_for_function(f"() => {count} > 0", timeout=5_000)
    except PlaywrightTimeout:
        return 0
    return int(page.evaluate(f"() => {count}"))


@pytest.mark.parametrize(("game_type", "seats", "size"), CASES)
def test_every_lit_target_and_informative_word_is_big_enough(
    browser: Any, base_url: str, store: Store, game_type: str, seats: int, size: str
) -> None:
    table = new_table(store, seats, f"sizes-{game_type}", game_type)
    if game_type != "attila-wargame":
        play_random(store, table, 6, seed=5)
    if game_type == "attika":
        _until_offered(store, table, "build ", 40)
    record = store.get_game(table.game_id)
    mover = next(d["seat"] for d in record.pending if d["seat"] >= 0)
    page = _page(browser, base_url, table.tokens[mover], size)
    page.goto(f"{base_url}/games/{table.game_id}")
    page.wait_for_selector(".board-svg")
    first = page.evaluate(_MEASURE)  # the pieces and counters to pick
    if game_type == "attila-wargame":
        _docs_shots(page, size, "wargame-board")  # its default view, zoomed where it acts
    lit = _light_places(page)
    seen = page.evaluate(_MEASURE)
    targets = first["targets"] + seen["targets"]
    if game_type in ("attila", "attika"):
        assert lit > 0 and targets, "no piece lights a place"
    small = [t for t in targets if t[1] < MIN_TARGET or t[2] < MIN_TARGET]
    tiny = [w for w in seen["words"] if w[1] < MIN_TEXT - 0.05]
    assert seen["words"], "no informative words marked on the board (class info)"
    assert (small, tiny) == ([], []), (
        f"targets under {MIN_TARGET}×{MIN_TARGET} px: {small[:6]}; "
        f"informative words under {MIN_TEXT} px: {tiny[:6]}"
    )
    screenshot(page, f"sizes-{game_type}-{size}")
    if game_type in ("attila", "attika"):
        _docs_shots(page, size, f"{game_type}-board")
        bar = _staged_bar(page)
        assert len(bar) >= 2, bar  # Undo and Confirm
        assert [b for b in bar if b[1] < MIN_TARGET or b[2] < MIN_TARGET] == [], bar
    page.context.close()


def _docs_shots(page: Any, size: str, name: str) -> None:
    """The board as the player sees it first (the window, scrolled to the top), its places
    lit, light and dark on the phone."""
    width = SIZES[size][0]
    page.evaluate("window.scrollTo(0, 0)")
    for scheme in ("light", "dark") if size == "phone" else ("light",):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(PICTURES / f"{name}-{width}-{scheme}.png"))
    page.emulate_media(color_scheme="light")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_lit_province_reads_apart_from_a_frontier(
    browser: Any, base_url: str, store: Store, size: str
) -> None:
    """Attila's lit province: an orange outline, a tint and its marker; a frontier province's
    mark is the start line's red band along its border with Germania Magna, its outline the
    ordinary brown."""
    table = new_table(store, 3, "sizes-lit", "attila")
    record = store.get_game(table.game_id)
    mover = next(d["seat"] for d in record.pending if d["seat"] >= 0)
    page = _page(browser, base_url, table.tokens[mover], size)
    page.goto(f"{base_url}/games/{table.game_id}")
    page.wait_for_selector(".board-svg")
    frontier = page.evaluate(
        "() => getComputedStyle(document.querySelector('#province-BEL polygon')).stroke"
    )
    assert _light_places(page) > 0
    look = page.evaluate(_LIT_LOOK)
    assert look["stroke"] == "rgb(224, 123, 0)" and look["width"] >= 5, look
    assert look["mark"] != "none" and look["fill"] == "rgb(255, 227, 179)", look
    assert frontier == "rgb(109, 93, 63)", frontier
    unlit = page.evaluate(
        "() => [...document.querySelectorAll('.board-svg g:not(.legal) > .lit-mark')]"
        ".filter(m => getComputedStyle(m).display !== 'none').length"
    )
    assert unlit == 0
    page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_picking_attikas_map_tile_keeps_the_map_readable(
    browser: Any, base_url: str, store: Store, size: str
) -> None:
    """The player picks the drawn map tile: the places it may go light up, and the board
    does not zoom out under the zoom its words read at (11 px) to show them all: it shows
    those it can at that zoom, each a 24 px target, the rest a pan away."""
    table = new_table(store, 2, "sizes-attika-pick-tile", "attika")
    _until_offered(store, table, "tile ", 600)
    page = _movers_board(browser, base_url, store, table, size)
    page.locator(".pieces .piece[data-pick='tile']").dispatch_event("click")
    page.wait_for_function("() => document.querySelectorAll('.board-svg .legal').length > 0")
    seen = page.evaluate(_OPENING)
    small = [t for t in seen["targets"] if t[1] < MIN_TARGET or t[2] < MIN_TARGET]
    tiny = [w for w in seen["words"] if w[1] < MIN_TEXT - 0.05]
    assert seen["words"] and seen["targets"], seen
    assert (small, tiny) == ([], []), (
        f"at scale {seen['scale']}: targets under {MIN_TARGET} px: {small[:6]}; "
        f"informative words under {MIN_TEXT} px: {tiny[:6]}"
    )
    screenshot(page, f"sizes-attika-pick-tile-{size}")
    _docs_shots(page, size, "attika-pick-tile")
    page.context.close()
