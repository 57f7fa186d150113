"""Attila and the wargame played to their end in the page by its notation box, what a mail
would say and what works without JavaScript (the tables of issues 32 and 33 replaced the move
buttons with the board, played by clicks in test_web_table.py and test_web_wargame_table.py), in
a real Chromium (issue 12): two players, each in a browser of their own; the worker resolves the
sealed steps. Every kind of move the game offers (a decision's step and the notation's first
word) is typed in the page the first time it is offered; a move of a kind already typed is sent
through the API, the path the form post takes in the service (a page load and a form post per
move made the two games 195 CPU-seconds, four fifths of it Chromium's:
docs/performance.md). The end is read in the pages. Attika's whole game is played on the board
instead (test_web_attika_table.py): the suite's time pays for one whole Attika game in a
browser, not two."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest

from tests.browser.conftest import navigate, screenshot
from tests.browser.test_web_seats import _signed_in
from tests.browser.test_web_table import kind_of
from tests.client import Kurier, Player

MAX_ACTIONS = 1500
MAX_SECONDS = 300


#: What a game page shows in one round trip: its heading's version and the notation box's
#: suggestions (a datalist of the legal moves).
_SHOWN = """() => [(document.querySelector('h1 small') || {}).innerText || '',
  [...document.querySelectorAll('#legal-moves option')].map(e => e.value)]"""


def _shown(page: Any, url: str) -> tuple[int | None, list[str]]:
    """The version the game page shows (the page a move's form post led back to), if it is
    the game's page (a player who acts again on it needs no fresh load), and its legal moves."""
    if page.url != url:
        return None, []
    heading, moves = page.evaluate(_SHOWN)
    shown = re.search(r"version (\d+)", heading)
    return (int(shown.group(1)) if shown else None), moves


def _kind(step: str, notation: str) -> tuple[str, str]:
    """A move's kind: its decision's step and its notation's kind ("people", "swap", "note",
    "move", "attack", "end", ...: test_web_table.kind_of)."""
    return step, kind_of(notation)


def _chosen(moves: list[str], game_type: str, rng: random.Random) -> str:
    """Any one of the legal moves (random moves make a wargame of 3,000+ actions: it ends its
    phases often)."""
    if game_type == "attila-wargame" and "end" in moves and rng.random() < 0.5:
        return "end"
    return rng.choice(moves)


def _sent_by_api(kurier: Kurier, game_id: str, player: Player, notation: str) -> None:
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": notation})
    assert r.status_code in (200, 202), r.text


@pytest.mark.parametrize("game_type", ["attila", "attila-wargame"])
def test_a_whole_game_in_the_browser(
    browser: Any, base_url: str, worker: Any, game_type: str
) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed=f"web-full-{game_type}", game_type=game_type)
    url = f"{base_url}/games/{game_id}"
    pages = [_signed_in(browser, base_url, p, width=(1280, 390)[i]) for i, p in enumerate(players)]
    for page in pages:  # the test says when to load a page: no live reloads in between
        page.route(f"**/v1/games/{game_id}", lambda route: route.abort())
    rng = random.Random(game_type)
    deadline = time.monotonic() + MAX_SECONDS
    typed: set[tuple[str, str]] = set()  # the kinds of move typed in a page
    offered: set[tuple[str, str]] = set()  # the kinds of move the game offered
    view = kurier.view(game_id)
    for _ in range(MAX_ACTIONS):
        assert time.monotonic() < deadline, f"not finished in {MAX_SECONDS} s"
        if view["status"] == "finished":
            break
        humans = [d["seat"] for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:  # the worker resolves a sealed step
            time.sleep(0.05)
            view = kurier.view(game_id)
            continue
        seat = rng.choice(humans)
        legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", players[seat]).json()
        step = legal["decision"]["step"]
        kinds = {_kind(step, a["notation"]) for a in legal["actions"]}
        offered |= kinds
        before = view["version"]
        if kinds <= typed:
            notation = _chosen([a["notation"] for a in legal["actions"]], game_type, rng)
            _sent_by_api(kurier, game_id, players[seat], notation)
        else:
            page = pages[seat]
            shown, every = _shown(page, url)
            if shown != view["version"]:
                navigate(page, url)
                shown, every = _shown(page, url)
            # The notation box's suggestions (a datalist of the legal moves): one of a kind
            # not typed yet, typed.
            assert {_kind(step, m) for m in every} == kinds, (every, kinds)
            new = [m for m in every if _kind(step, m) not in typed]
            typing = _chosen(new, game_type, rng)
            page.fill("input[name=notation]:not([type=hidden])", typing)
            page.locator("form:has(input[name=notation]:not([type=hidden])) button").click()
            typed.add(_kind(step, typing))
            page.wait_for_load_state()
            assert kurier.view(game_id)["version"] > before, page.content()[:2000]
        view = kurier.view(game_id)
        assert view["version"] > before, view
    else:
        raise AssertionError(f"not finished in {MAX_ACTIONS} actions")
    # Every kind of decision was made in a page (a decision offering two kinds not typed yet,
    # "advance" and "stay", had one typed; the other is typed when offered again, if it is).
    assert {step for step, _ in typed} == {step for step, _ in offered}, offered - typed
    for page in pages:
        navigate(page, url)
        assert "finished" in page.locator("h1 small").inner_text()
        assert "won" in page.locator(".result").inner_text()
    screenshot(pages[0], f"web-finished-{game_type}-1280")
    for page in pages:
        page.context.close()
