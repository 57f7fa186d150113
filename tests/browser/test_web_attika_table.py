"""Attika on the table (issue 32) in a real Chromium: a whole 2-player game by clicking the
board and the player's pieces only, one player at 390×844 with touch, Confirm and Undo, a
reveal sent at once (it draws) and a part that draws as it ends sent with Confirm, until every
kind of part has been clicked, then played to its end through the API, a spectator's every
response scanned for secrets to the end; and a phone's lit places brought into its frame. A file of
its own: the suite's processes take whole files, and this game is a long browser test, so it
runs beside the Attila one, not after it."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.browser.conftest import navigate
from tests.browser.test_web_seats import _signed_in
from tests.browser.test_web_table import (
    _idle,
    _phone,
    _shot,
    _spectator,
    _staged_done,
    always_confirm,
    committed,
    leaks,
    sent_at_once,
    shows_version,
)
from tests.client import Kurier
from tests.test_service_attika import choose_attika

#: A whole Attika game by clicks, bounded: its Confirms (a turn, or a turn's parts up to one
#: that draws) and its seconds (47-75 s alone since the pages follow the stream; 674 s beside
#: the suite's other two processes while they polled, over 900 s once with bot matches beside
#: it: docs/performance.md). The bound stays wide for a loaded machine.
ATTIKA_CONFIRMS = 400
ATTIKA_SECONDS = 1500
#: The rest of the game's moves through the API, bounded.
ATTIKA_MOVES = 1000

#: What the test looks at to steer, as a player looks before choosing: each building it may
#: build (a piece of the storage board, or the one just revealed) with its sites, as the page
#: holds them (what lights up when it is picked). Not a choice: the choice is then clicked
#: (the building, then the lit site).
_SITES = """() => window.kurier.board.actions()
  .filter(([pick, site]) => pick.startsWith('building:') && site
    && document.querySelector(`.pieces [data-pick='${pick}']:enabled`))"""


#: The lit places not wholly inside the board's visible frame (the box above its zoom
#: buttons), and how many are lit.
_OUT_OF_FRAME = """() => {
  const box = document.querySelector('.table-board').getBoundingClientRect();
  const foot = document.querySelector('.table-board .zoom-buttons').getBoundingClientRect().top;
  const lit = Array.from(document.querySelectorAll('.board-svg .legal'));
  return [lit.length, lit.filter(el => {
    const r = el.getBoundingClientRect();
    return !(r.width > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top
      && r.bottom <= foot);
  }).map(el => el.id)];
}"""


def _hex(text: str) -> tuple[int, int]:
    """ "hex-2,-1" or "2,-1" as axial (q, r)."""
    q, r = text.removeprefix("hex-").split(",")
    return int(q), int(r)


def _apart(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


class _Steer:
    """Choices that end an Attika game in about 60 turns, random among equals: build whenever
    a building can be built, on the lit site nearest the line between the two shrines and next
    to the player's own buildings (so no settlement surcharge, and the settlement grows towards
    the shrines); else reveal (the smallest stack half the time: an emptied stack brings a map
    tile), store what cannot be built, end the turn. Amphorae are never spent."""

    def __init__(self, view: dict[str, Any], seat: int, rng: random.Random) -> None:
        board = view["view"]
        self.shrines = [_hex(h) for h in board["shrines"]]
        self.own = {_hex(h) for h in board["seats"][seat]["built"].values()}
        self.rng = rng

    def score(self, site: tuple[int, int], own: set[tuple[int, int]]) -> tuple[int, float]:
        near = any(_apart(site, h) == 1 for h in own)
        apart = sum(_apart(site, s) for s in self.shrines)
        return apart + (0 if near or not own else 4), self.rng.random()


def _place_tile(page: Any, rng: random.Random, exercise: bool) -> None:
    """A drawn map tile placed by clicks: the first on each page pointed at, turned with R and
    the Rotate button (previewed in place), then placed; later ones at a random lit centre."""
    page.locator(".choices [data-pick='tile']").click()
    anchors = page.locator(".board-svg .legal")
    assert anchors.count() > 1
    assert page.evaluate(_OUT_OF_FRAME)[1] == []  # every place in view, on a phone too
    if not exercise:
        anchors.nth(rng.randrange(anchors.count())).click()
        return
    assert page.locator(".board-svg .open-hex").count() > anchors.count()
    anchors.nth(anchors.count() // 2).hover()
    assert page.locator(".board-svg .preview").count() == 7  # the tile in place
    page.keyboard.press("r")
    anchors.nth(anchors.count() // 2).click()
    _idle(page)
    staged = page.locator(".confirm-bar .staged-text").inner_text()
    assert " rot 1" in staged, staged
    page.locator(".confirm-bar .rotate").click()  # turned again once placed
    _idle(page)
    assert " rot 2" in page.locator(".confirm-bar .staged-text").inner_text()
    assert page.locator(".board-svg .preview").count() == 7


def _attika_part(page: Any, steer: _Steer, seen: dict[str, int], first_tile: bool) -> str:
    """One part of an Attika turn by clicks, staged (see _Steer for the choices), on an idle
    page; ``first_tile``: the page's first map tile, placed with every control (_place_tile)."""
    enabled = page.locator(".pieces [data-pick]:enabled")
    picks = [enabled.nth(i).get_attribute("data-pick") for i in range(enabled.count())]
    if "tile" in picks:
        # Drawn by a part sent with Confirm (a draw is never tried): the picture shows the
        # places round the map for it.
        assert page.locator(".board-svg .open-hex").count()
        _place_tile(page, steer.rng, exercise=first_tile)
        seen["tile"] += 1
        return "tile"
    own = steer.own | {
        _hex(m.split(" at ")[1].split()[0])
        for m in page.evaluate("window.kurier.board.staged()")
        if m.startswith("build ")
    }
    sites = [(pick, site) for pick, site in page.evaluate(_SITES)]
    if sites:
        pick, site = min(sites, key=lambda p: steer.score(_hex(p[1]), own))
        page.locator(f".pieces [data-pick='{pick}']").click()
        lit = page.locator(f".board-svg .legal[id='{site}']")
        if not seen["build"]:  # what building there costs, said when pointed at
            lit.hover()
            assert "costs" in page.locator(".target-info").inner_text()
        lit.click()
        seen["build"] += 1
        return "build"
    store = page.locator(".choices [data-pick='store']:enabled")
    if store.count():  # revealed, and buildable nowhere
        store.click()
        return "store"
    stacks = page.locator(".stack-piece:enabled")
    if stacks.count():
        counts = [int(stacks.nth(i).get_attribute("data-count")) for i in range(stacks.count())]
        smallest = counts.index(min(counts))
        stacks.nth(
            smallest if steer.rng.random() < 0.5 else steer.rng.randrange(len(counts))
        ).click()
        seen["reveal"] += 1
        return "reveal"
    button = page.locator(".choices [data-pick='end']:enabled")
    assert button.count(), f"nothing to click: {picks}"
    button.click()
    return "end"


def _all_clicked(
    seen: dict[str, int], shots: set[int | str], undone: bool, parts: int, confirms: int
) -> bool:
    """Whether every kind of part the game's turns are built of (a build, a reveal sent at
    once, a part that draws sent with Confirm, map tiles on both pages) was clicked, Undo
    used, and turns of several parts sent with one Confirm."""
    kinds = seen["tile"] >= 2 and seen["build"] and seen["reveal"] and seen["draw"]
    return bool(kinds) and {390, 1280, "sent"} <= shots and undone and parts > confirms


def test_two_players_play_a_whole_attika_game_on_the_board(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2-player Attika game by clicks only (one player on a phone) until every kind of part
    has been clicked (_all_clicked), each turn built part by part on the board and sent with
    one Confirm, each page loaded once and updated in place by the stream, Undo used; then to
    its end through the API. A spectator's every response free of hands; the standings at the
    end in place on the spectator's page, and on both players'."""
    # The pages follow the game's stream, as in production: an update arrives with the commit,
    # not at the next of the API polls a second apart (over a minute of the game's time).
    monkeypatch.setenv("KURIER_STREAM_URL", streams)  # the app is served in this process
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="table-attika-1", game_type="attika")
    always_confirm(kurier, players)
    url = f"{base_url}/games/{game_id}"
    pages = [_signed_in(browser, base_url, players[0]), _phone(browser, base_url, players[1])]
    for page in pages:
        navigate(page, url)
    spectator, bodies = _spectator(browser, url)
    rng = random.Random(11)
    seen = {"tile": 0, "build": 0, "reveal": 0, "draw": 0}
    clicked_last = -1  # the seat whose turn was clicked last
    shots: set[int | str] = set()
    undone = False
    confirms = parts = 0
    deadline = time.monotonic() + ATTIKA_SECONDS
    view = kurier.view(game_id)
    for _confirm in range(ATTIKA_CONFIRMS):
        if view["status"] == "finished" or time.monotonic() > deadline:
            break
        seat = next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)
        if _all_clicked(seen, shots, undone, parts, confirms) and seat != clicked_last:
            break  # the rest through the API, from the next turn's start
        clicked_last = seat
        page = pages[seat]
        shows_version(page, view["version"])
        steer = _Steer(view, seat, rng)
        _idle(page)
        sent = False
        for _part in range(20):  # bounded: a turn is at most a dozen parts
            if page.locator(".confirm-bar").is_visible() and _staged_done(page):
                break
            width = page.viewport_size["width"]
            before = len(page.evaluate("window.kurier.board.staged()"))
            part = _attika_part(page, steer, seen, first_tile=width not in shots)
            if part == "reveal":
                # A building turned up: sent at once with the parts before it (no Confirm),
                # the page's line says so.
                assert sent_at_once(page), "a reveal waited for Confirm"
                assert "reveal" in page.locator(".sent-note .sent-moves").inner_text()
                parts += before + 1
                sent = True
                if "sent" not in shots and width == 390:
                    _shot(page, "attika-390-sent-light")
                    shots.add("sent")
                break
            _idle(page)
            if part == "tile" and width not in shots:  # a tile staged: one shot per size
                _shot(
                    page, f"attika-{width}-{'light' if width > 390 else 'dark'}", dark=width == 390
                )
                shots.add(width)
            if not undone and part == "build":  # taken back, chosen again
                before = len(page.evaluate("window.kurier.board.staged()"))
                page.locator(".confirm-bar .undo").click()
                _idle(page)
                assert len(page.evaluate("window.kurier.board.staged()")) == before - 1
                seen[part] -= 1
                undone = True
        else:
            raise AssertionError("a turn of more than 20 parts")
        if not sent:
            if page.locator(".confirm-bar .draws-note").is_visible():
                # A part that draws as it ends (the tile after a stack's last building): sent
                # with Confirm, untried, and the turn goes on on the state that shows the draw.
                seen["draw"] += 1
            parts += len(page.evaluate("window.kurier.board.staged()"))
            page.locator(".confirm-bar .confirm").click()
        confirms += 1
        view = committed(kurier, game_id, view, lambda p=page: p.content()[:2000])
        if confirms % 10 == 0:  # the spectator's page follows in place too
            shows_version(spectator, view["version"], table=False)
    assert _all_clicked(seen, shots, undone, parts, confirms), (confirms, seen, shots)
    # Every map tile was drawn by a part sent before it (the last of a stack's, built or
    # stored), then placed on the updated board; every reveal was sent at once.
    assert seen["draw"] >= seen["tile"]
    # The rest of the game through the API (the service's path a Confirm takes), the players'
    # pages away from it meanwhile, the spectator's following every move.
    for page in pages:
        page.goto("about:blank")
    for _move in range(ATTIKA_MOVES):
        if view["status"] == "finished" or time.monotonic() > deadline:
            break
        (decision,) = view["waiting_for"]
        player = players[decision["seat"]]
        legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
        move = {"notation": choose_attika(rng, legal["actions"])["notation"]}
        r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json=move)
        assert r.status_code == 200, r.text
        view = r.json()  # its status, version and whom the game waits for, as the view's
    assert view["status"] == "finished", (confirms, seen, time.monotonic() - deadline)
    # The end: in place on the spectator's page, loaded on the players': the standings.
    shows_version(spectator, view["version"], table=False)
    for page in pages:
        navigate(page, url)
    for page in pages:
        rows = page.locator(".standings tbody tr")
        assert rows.count() == 2 and "Score" in page.locator(".standings thead").inner_text()
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= page.viewport_size["width"], f"the end scrolls sideways ({wide} px)"
    assert len(bodies) > 10 and leaks(kurier, game_id, bodies, sealed=False) == []
    for page in (*pages, spectator):
        page.context.close()


def test_a_phone_brings_the_lit_places_into_view(browser: Any, base_url: str, worker: Any) -> None:
    """On a phone the board is zoomed in and panned to a corner; a building picked lights its
    sites all over the map: the board pans and zooms out as little as needed so that every lit
    site shows in its frame. A piece whose sites already show leaves the zoom as it is."""
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="table-attika-fit", game_type="attika")
    seat = next(d["seat"] for d in kurier.view(game_id)["waiting_for"] if d["seat"] >= 0)
    page = _phone(browser, base_url, players[seat])
    navigate(page, f"{base_url}/games/{game_id}")
    zoom = page.locator(".table-board .zoom")
    for _in in range(3):
        page.locator(".zoom-buttons .zoom-in").click()
    box = page.locator(".table-board").bounding_box()
    page.mouse.move(box["x"] + 40, box["y"] + 40)  # dragged to the map's top left corner
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 20, box["y"] + box["height"] - 80, steps=4)
    page.mouse.up()
    zoomed = zoom.evaluate("el => el.style.transform")
    assert "scale(3.375)" in zoomed, zoomed
    buildings = page.locator(".pieces .building-piece:enabled")
    widest = 0
    for i in range(buildings.count()):
        buildings.nth(i).click()
        lit, outside = page.evaluate(_OUT_OF_FRAME)
        assert lit and outside == [], (buildings.nth(i).inner_text(), outside)
        widest = max(widest, lit)
        buildings.nth(i).click()  # dropped again
    assert widest > 3
    scale = float(zoom.evaluate("el => el.style.transform").split("scale(")[1].rstrip(")"))
    assert 1 <= scale < 3.375  # zoomed out, as little as needed
    # Sites that already show (the last building's, just fitted): the zoom and place are kept.
    kept = zoom.evaluate("el => el.style.transform")
    buildings.nth(buildings.count() - 1).click()
    assert zoom.evaluate("el => el.style.transform") == kept
    _shot(page, "attika-390-fit-light")
    _shot(page, "attika-390-fit-dark", dark=True)
    page.context.close()
