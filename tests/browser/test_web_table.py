"""The table (issue 32): games played on the board in a real Chromium, by clicking cards,
tiles and board places only (no notation buttons, no typing), each staged move sent with
Confirm as one request; a spectator's every response scanned for secrets. A whole game is
played by clicks until every kind of part its decisions offer has been sent from a page (and
what the test checks once, a conflict, Undo, the pictures, has been done); the rest of it goes
through the API, which is the service's path a Confirm takes, while the spectator's page follows
every move to the end."""

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


def play_turn_on_board(
    page: Any, rng: random.Random, undo_once: list[bool], kinds: set[str]
) -> int:
    """Build one move by clicks: a piece, then a lit place, an offered option or cards to
    tap, until nothing more may follow; then Confirm (a swap is sent at once, no Confirm).
    Returns the parts staged; adds their kinds (kind_of) to ``kinds``."""
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
                before = page.evaluate("window.kurier.board.staged()")
                lay.click()
                if sent_at_once(page):  # a swap: it draws, so it needs no Confirm
                    kinds.update(map(kind_of, [*before, "swap"]))
                    return len(before) + 1
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
    staged = page.evaluate("window.kurier.board.staged()")
    assert staged, "nothing staged"
    kinds.update(map(kind_of, staged))
    page.locator(".confirm-bar .confirm").click()
    return len(staged)


def sent_at_once(page: Any) -> bool:
    """After a part is staged: whether it was sent at once (a part that draws, said in the
    page's sent line), not waiting for Confirm; a bounded wait for either."""
    page.wait_for_function(
        "() => !document.querySelector('.sent-note')?.hidden"
        " || (window.kurier.board.staged().length > 0"
        " && !document.querySelector('.confirm-bar .confirm').disabled)",
        timeout=15_000,
    )
    return bool(page.locator(".sent-note").is_visible())


def committed(kurier: Kurier, game_id: str, view: dict[str, Any], why: Any) -> dict[str, Any]:
    """The game's view once its version moved on from ``view``'s: a bounded wait for the
    commit a Confirm sent; ``why()`` says what the page showed when it did not."""
    for _ in range(200):
        new = kurier.view(game_id)
        if new["version"] != view["version"]:
            break
        time.sleep(0.05)
    assert new["version"] > view["version"], why()
    return new


def shows_version(page: Any, version: int, table: bool = True) -> None:
    """Wait until the page shows this version or a later one, updated in place by the stream
    (no load), and (``table``) its table is ready to be played on."""
    page.wait_for_function(
        "([v, table]) => Number((document.querySelector('[data-game]') || {}).dataset?.version)"
        " >= v && (!table || !!(window.kurier && window.kurier.board))",
        arg=[version, table],
        timeout=15_000,
    )


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
    browser: Any,
    base_url: str,
    worker: Any,
    streams: str,
    monkeypatch: pytest.MonkeyPatch,
    game_type: str,
) -> None:
    # Each page is loaded once and follows the game's stream, as in production: a move shows
    # in place as soon as it is committed (a load per move, or 1 s API polls, cost more).
    monkeypatch.setenv("KURIER_STREAM_URL", streams)  # the app is served in this process
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
    clicked: set[str] = set()  # the kinds of part sent from a page
    parked: set[int] = set()  # the seats whose page is away from the game meanwhile
    view = kurier.view(game_id)
    while view["status"] != "finished" and time.monotonic() < deadline:
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:
            time.sleep(0.05)
            view = kurier.view(game_id)
            continue
        decision = humans[0]
        checked = conflicts and parts > confirms and undo_once[0] and shot
        offered = legal_notations(kurier, game_id, players[decision["seat"]]) if checked else []
        if checked and {kind_of(move) for move in offered} <= clicked:
            # Every kind of part this decision offers was sent from a page already: the move
            # goes through the API, the service's path a Confirm takes too, while the players'
            # pages are away (the spectator's follows every move).
            park(pages, parked)
            view = play_by_api(kurier, game_id, players[decision["seat"]], rng.choice(offered))
            continue
        page = pages[decision["seat"]]
        if decision["seat"] in parked:
            navigate(page, url)
            parked.discard(decision["seat"])
        shows_version(page, view["version"])
        if not shot and confirms >= 3 and decision["seat"] == 2:
            _shot(pages[0], "attila-1280-light")
            _shot(pages[0], "attila-1280-dark", dark=True)
            _shot(page, "attila-390-light")
            _shot(page, "attila-390-dark", dark=True)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= 390, f"the phone page scrolls sideways ({wide} px)"
            shot = True
        conflicts += decision["kind"] == "sealed"
        parts += play_turn_on_board(page, rng, undo_once, clicked)
        confirms += 1
        view = committed(kurier, game_id, view, lambda p=page: p.content()[:2000])
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


def kind_of(notation: str) -> str:
    """A move's kind: its notation's first word ("swap", "boost", "inf", "commit", ...), and
    one kind for a people's card, whichever people ("V ITA", "H GAL")."""
    word = notation.split()[0]
    return "people" if len(word) == 1 and word.isupper() else word


def legal_notations(kurier: Kurier, game_id: str, player: Player) -> list[str]:
    """The moves ``player`` may make now, in notation."""
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
    return [action["notation"] for action in legal["actions"]]


def park(pages: list[Any], parked: set[int]) -> None:
    """Take the pages not yet parked away from the game (a blank page follows no stream)."""
    for seat, page in enumerate(pages):
        if seat not in parked:
            page.goto("about:blank")
            parked.add(seat)


def play_by_api(kurier: Kurier, game_id: str, player: Player, notation: str) -> dict[str, Any]:
    """``player``'s move sent through the API; its answer: the game's new version, status and
    whom it waits for (as its view says them)."""
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": notation})
    assert r.status_code in (200, 202), r.text
    return dict(r.json())


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


def test_keyboard_plays_a_part_on_the_board(browser: Any, base_url: str, worker: Any) -> None:
    """Without a pointer: a piece focused and Enter lights its places and takes the focus to
    the first, the arrow keys go from place to place, Enter stages that place's move, and
    Undo (focused, Enter) takes it back."""
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="table-keys")
    always_confirm(kurier, players)
    mover = kurier.view(game_id)["waiting_for"][0]["seat"]
    page = _signed_in(browser, base_url, players[mover])
    navigate(page, f"{base_url}/games/{game_id}")
    page.wait_for_function("() => !!(window.kurier && window.kurier.board)")
    places: dict[str, set[str]] = {}
    for pick, place in page.evaluate("window.kurier.board.actions()"):
        if place:
            places.setdefault(pick, set()).add(place)
    pick = next(p for p, lit in places.items() if len(lit) > 1)
    page.locator(f".pieces [data-pick='{pick}']").focus()
    page.keyboard.press("Enter")
    first = page.evaluate("document.activeElement.id")
    assert first in places[pick], first
    page.keyboard.press("ArrowRight")
    second = page.evaluate("document.activeElement.id")
    assert second in places[pick] and second != first, second
    assert page.evaluate("document.activeElement.classList.contains('legal')")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.kurier.board.staged().length === 1")
    _idle(page)
    assert page.locator(".confirm-bar").is_visible()
    page.locator(".confirm-bar .undo").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.kurier.board.staged().length === 0")
    assert page.locator(".confirm-bar").is_hidden()
    page.context.close()
