"""The table (issue 32): games played on the board in a real Chromium, by clicking cards,
tiles and board places only (no notation buttons, no typing), each staged move sent with
Confirm as one request; a spectator's every response scanned for secrets."""

from __future__ import annotations

import contextlib
import random
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import navigate
from tests.browser.test_web_seats import _signed_in
from tests.client import Kurier, Player

#: Screenshots for docs/web.md (a handful, small): written here and looked at.
PICTURES = Path(__file__).resolve().parents[2] / "docs" / "pictures" / "table"
MAX_SECONDS = 420


def _shot(page: Any, name: str, dark: bool = False) -> None:
    PICTURES.mkdir(parents=True, exist_ok=True)
    page.emulate_media(color_scheme="dark" if dark else "light")
    page.evaluate("window.scrollTo(0, 0)")  # the board, whatever the last click scrolled to
    page.screenshot(path=str(PICTURES / f"{name}.png"), full_page=False)
    page.emulate_media(color_scheme="light")


def _shot_end(page: Any, name: str, dark: bool = False) -> None:
    """The standings at the end of a game, scrolled into view."""
    page.emulate_media(color_scheme="dark" if dark else "light")
    page.locator(".standings").scroll_into_view_if_needed()
    page.screenshot(path=str(PICTURES / f"{name}.png"), full_page=False)
    page.emulate_media(color_scheme="light")


def always_confirm(kurier: Kurier, players: list[Player]) -> None:
    """These players confirm every move, whatever the screen: the default, set explicitly so
    that these tests keep clicking Confirm whatever the default becomes (the other settings:
    tests/browser/test_web_table_end.py)."""
    for player in players:
        r = kurier.call("PATCH", "/v1/me", player, json={"confirm_moves": "always"})
        assert r.status_code == 200, r.text


def _staged_done(page: Any) -> bool:
    text = page.locator(".confirm-bar .staged-text").inner_text()
    return text.endswith("\u2714")


def _idle(page: Any) -> None:
    page.wait_for_function("() => !document.querySelector('.confirm-bar .confirm')?.disabled")


def play_turn_on_board(page: Any, rng: random.Random, undo_once: list[bool]) -> int:
    """Build one move by clicks: a piece, then a lit place, an offered option or cards to
    tap, until nothing more may follow; then Confirm. Returns the parts staged."""
    for _part in range(8):
        _idle(page)
        if page.locator(".confirm-bar").is_visible() and _staged_done(page):
            break
        pieces = page.locator(".pieces [data-pick]:enabled")
        assert pieces.count(), page.content()[:3000]
        pieces.nth(rng.randrange(pieces.count())).click()
        _idle(page)
        lay = page.locator(".choices button.lay")
        if lay.count():  # cards to tap: a conflict's sealed cards or a swap
            cards = page.locator(".hand .card-piece:enabled")
            for _tap in range(rng.randrange(0, 3)):
                if cards.count():
                    cards.nth(rng.randrange(cards.count())).click()
            if not lay.is_enabled():  # that selection is not legal: start from none
                for _clear in range(10):
                    chosen = page.locator(".hand .card-piece .chosen:visible")
                    if not chosen.count():
                        break
                    card = chosen.first.locator("xpath=..")
                    while card.locator(".chosen:visible").count():
                        card.click()
            if lay.is_enabled():
                lay.click()
            continue
        places = page.locator(".board-svg .legal")
        options = page.locator(".choices button.option")
        if places.count() and (not options.count() or rng.random() < 0.7):
            places.nth(rng.randrange(places.count())).click()
            _idle(page)
            options = page.locator(".choices button.option")
            if options.count():  # several moves at one place
                options.nth(rng.randrange(options.count())).click()
        elif options.count():
            options.nth(rng.randrange(options.count())).click()
        _idle(page)
        if not undo_once[0] and page.locator(".confirm-bar").is_visible():
            before = page.locator(".confirm-bar .staged-text").inner_text()
            page.locator(".confirm-bar .undo").click()
            _idle(page)
            assert page.locator(".confirm-bar .staged-text").inner_text() != before
            undo_once[0] = True
    staged = len(page.evaluate("window.kurierTable.staged()"))
    assert staged, "nothing staged"
    page.locator(".confirm-bar .confirm").click()
    return staged


def _phone(browser: Any, base_url: str, player: Player) -> Any:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.goto(base_url + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(player.token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    return page


def _spectator(browser: Any, url: str) -> tuple[Any, list[tuple[float, str]]]:
    """A signed-out page that follows the game live; every response it gets, with when."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    bodies: list[tuple[float, str]] = []

    def keep(response: Any) -> None:
        # A response without a body (a redirect, a stream) has nothing to scan.
        with contextlib.suppress(Exception):
            bodies.append((time.time(), response.text()))

    page.on("response", keep)
    page.goto(url)
    return page, bodies


def leaks(
    kurier: Kurier, game_id: str, bodies: list[tuple[float, str]], sealed: bool = True
) -> list[str]:
    """Secrets a spectator's responses held too early: a sealed choice's salt before the entry
    that revealed it was committed, or a player's hand (only its owner's page shows it).
    ``sealed``: the game had sealed choices (Attila's conflicts; Attika has none, only hands)."""
    reveals = [
        (entry["at"], choice["salt"])
        for entry in kurier.all_events(game_id)
        for event in entry["events"]
        if event["kind"] == "sealed_revealed"
        for choice in event["data"]["choices"]
    ]
    assert reveals or not sealed, "no sealed choice was revealed"
    found = [salt for at, salt in reveals for when, body in bodies if when < at and salt in body]
    found += ["a hand" for _when, body in bodies if 'class="hand"' in body]
    return found


@pytest.mark.parametrize("game_type", ["attila"])
def test_three_players_play_attila_on_the_board(
    browser: Any, base_url: str, worker: Any, game_type: str
) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(3, seed="table-attila-1", game_type=game_type)
    always_confirm(kurier, players)
    url = f"{base_url}/games/{game_id}"
    # Two at 1280 px, the third on a phone: 390×844 with touch.
    pages = [_signed_in(browser, base_url, p) for p in players[:2]]
    pages.append(_phone(browser, base_url, players[2]))
    for page in pages:
        navigate(page, url)
    spectator, bodies = _spectator(browser, url)
    rng = random.Random(7)
    undo_once = [False]
    deadline = time.monotonic() + MAX_SECONDS
    confirms = parts = conflicts = 0
    shot = False
    view = kurier.view(game_id)
    while view["status"] != "finished" and time.monotonic() < deadline:
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:
            time.sleep(0.05)
            view = kurier.view(game_id)
            continue
        decision = humans[0]
        page = pages[decision["seat"]]
        navigate(page, url)
        if not shot and confirms >= 3 and decision["seat"] == 2:
            _shot(pages[0], "attila-1280-light")
            _shot(pages[0], "attila-1280-dark", dark=True)
            _shot(page, "attila-390-light")
            _shot(page, "attila-390-dark", dark=True)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= 390, f"the phone page scrolls sideways ({wide} px)"
            shot = True
        conflicts += decision["kind"] == "sealed"
        parts += play_turn_on_board(page, rng, undo_once)
        confirms += 1
        for _ in range(200):  # bounded wait for the commit
            new = kurier.view(game_id)
            if new["version"] != view["version"]:
                break
            time.sleep(0.05)
        assert new["version"] > view["version"], page.content()[:2000]
        view = new
    assert view["status"] == "finished", f"not finished in {MAX_SECONDS} s ({confirms} moves)"
    assert conflicts > 0 and parts > confirms and undo_once[0] and shot
    assert len(bodies) > 10 and leaks(kurier, game_id, bodies) == []
    # The end: the standings, best first, with the points of each scoring (centuries, final).
    for page in (pages[0], pages[2]):
        navigate(page, url)
        rows = page.locator(".standings tbody tr")
        assert rows.count() == 3 and "Final" in page.locator(".standings thead").inner_text()
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= page.viewport_size["width"], f"the end scrolls sideways ({wide} px)"
    _shot_end(pages[0], "attila-end-1280-light")
    _shot_end(pages[2], "attila-end-390-dark", dark=True)
    for page in pages:
        page.context.close()
    spectator.context.close()


def _play_one(kurier: Kurier, game_id: str, players: list[Player]) -> int:
    view = kurier.view(game_id)
    mover = players[next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", mover).json()["actions"]
    r = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", mover, json={"notation": legal[0]["notation"]}
    )
    assert r.status_code == 200, r.text
    return int(r.json()["version"])


def _shows(page: Any, version: int) -> None:
    page.wait_for_function(
        "v => (document.querySelector('h1 small') || {}).innerText?.includes('version ' + v)",
        arg=version,
        timeout=15_000,
    )


def test_typing_in_the_chat_never_stops_updates(browser: Any, base_url: str, worker: Any) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="table-chat")
    page = _signed_in(browser, base_url, players[0])
    page.goto(f"{base_url}/games/{game_id}")
    box = page.locator("textarea[name=text]")
    box.fill("x")
    box.fill("")  # typed and cleared: once, this stopped every later update
    _shows(page, _play_one(kurier, game_id, players))
    box = page.locator("textarea[name=text]")
    box.click()
    box.type("still typing")
    _shows(page, _play_one(kurier, game_id, players))  # in place, the words kept
    assert page.locator("textarea[name=text]").input_value() == "still typing"
    assert page.evaluate("document.activeElement.name") == "text"
    page.context.close()


def test_a_lost_connection_shows_and_recovers(browser: Any, base_url: str, worker: Any) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="table-lost")
    page = _signed_in(browser, base_url, players[0])
    page.goto(f"{base_url}/games/{game_id}")
    api = f"**/v1/games/{game_id}"
    page.route(api, lambda route: route.abort())  # no stream here: the page polls the API
    page.wait_for_selector(".connection:visible", timeout=15_000)
    version = _play_one(kurier, game_id, players)
    page.unroute(api)
    _shows(page, version)
    page.wait_for_selector(".connection", state="hidden", timeout=15_000)
    page.context.close()


#: A whole Attika game by clicks, bounded: its Confirms (a turn, or a turn's parts up to one
#: that draws) and its seconds.
ATTIKA_CONFIRMS = 400
ATTIKA_SECONDS = 900

#: What the test looks at to steer, as a player looks before choosing: each building it may
#: build (a piece of the storage board, or the one just revealed) with its sites, as the page
#: holds them (what lights up when it is picked). Not a choice: the choice is then clicked
#: (the building, then the lit site).
_SITES = """() => window.kurierTable.actions()
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
    """One part of an Attika turn by clicks, staged (see _Steer for the choices);
    ``first_tile``: the page's first map tile, placed with every control (_place_tile)."""
    _idle(page)
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
        for m in page.evaluate("window.kurierTable.staged()")
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


def _shows_version(page: Any, version: int, table: bool = True) -> None:
    """Wait until the page shows this version, updated in place by the stream (no load), and
    (``table``) its table is ready to be played on."""
    page.wait_for_function(
        "([v, table]) => (document.querySelector('[data-game]') || {}).dataset?.version"
        " === String(v) && (!table || !!window.kurierTable)",
        arg=[version, table],
        timeout=15_000,
    )


def test_two_players_play_a_whole_attika_game_on_the_board(
    browser: Any, base_url: str, worker: Any
) -> None:
    """A whole 2-player Attika game by clicks only (one player on a phone), each turn built
    part by part on the board and sent with one Confirm; each page loaded once and updated in
    place by the stream; Undo used; a spectator's every response free of hands; the standings
    at the end on both pages."""
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
    shots: set[int | str] = set()
    undone = False
    confirms = parts = 0
    deadline = time.monotonic() + ATTIKA_SECONDS
    view = kurier.view(game_id)
    for _confirm in range(ATTIKA_CONFIRMS):
        if view["status"] == "finished" or time.monotonic() > deadline:
            break
        seat = next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)
        page = pages[seat]
        _shows_version(page, view["version"])
        steer = _Steer(view, seat, rng)
        for _part in range(20):  # bounded: a turn is at most a dozen parts
            _idle(page)
            if page.locator(".confirm-bar").is_visible() and _staged_done(page):
                break
            width = page.viewport_size["width"]
            part = _attika_part(page, steer, seen, first_tile=width not in shots)
            _idle(page)
            if part == "tile" and width not in shots:  # a tile staged: one shot per size
                _shot(
                    page, f"attika-{width}-{'light' if width > 390 else 'dark'}", dark=width == 390
                )
                shots.add(width)
            if not undone and part in ("build", "reveal"):  # taken back, chosen again
                before = len(page.evaluate("window.kurierTable.staged()"))
                page.locator(".confirm-bar .undo").click()
                _idle(page)
                assert len(page.evaluate("window.kurierTable.staged()")) == before - 1
                seen[part] -= 1
                undone = True
        else:
            raise AssertionError("a turn of more than 20 parts")
        if page.locator(".confirm-bar .draws-note").is_visible():
            # A part that draws (a building turned up, the tile after a stack's last): sent
            # with Confirm, untried, and the turn goes on on the state that shows the draw.
            seen["draw"] += 1
            if "draw" not in shots and page.viewport_size["width"] == 390:
                _shot(page, "attika-390-draws-light")
                shots.add("draw")
        parts += len(page.evaluate("window.kurierTable.staged()"))
        page.locator(".confirm-bar .confirm").click()
        confirms += 1
        for _ in range(200):  # bounded wait for the commit
            new = kurier.view(game_id)
            if new["version"] != view["version"]:
                break
            time.sleep(0.05)
        assert new["version"] > view["version"], page.content()[:2000]
        view = new
    assert view["status"] == "finished", (confirms, seen, time.monotonic() - deadline)
    assert seen["tile"] >= 2 and seen["build"] and {390, 1280, "draw"} <= shots and undone
    # Every map tile was drawn by a part sent before it (the last of a stack's, turned up and
    # built or stored), then placed on the updated board.
    assert seen["draw"] >= seen["reveal"] + seen["tile"]
    assert parts > confirms  # turns of several parts, each sent with one Confirm
    # The end, shown in place on both pages and the spectator's: the standings, best first.
    for page in (*pages, spectator):
        _shows_version(page, view["version"], table=False)
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
