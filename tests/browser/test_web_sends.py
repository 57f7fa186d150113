"""A part that draws by itself is sent with one tap (kits.Table.sends, static/board/board.js):
Attika's reveal (a building turned up from a stack) and Attila's swap (cards given for unseen
ones) go to the server as soon as they are chosen, with no Confirm of their own, and the page
says in a line that it was sent, on a phone, in English and in German. Every other part still
waits for Confirm (the whole games by taps: test_web_table.py, test_web_attika_table.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests import node_packages
from tests.browser.test_web_axe import AXE, _violations
from tests.browser.test_web_table import _phone, always_confirm, committed, shows_version
from tests.client import Kurier, Player


@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core's source, as test_web_axe.py loads it."""
    modules = node_packages.installed(AXE, "the accessibility check (axe-core)")
    return (modules / "axe-core" / "axe.min.js").read_text()


#: The page's sent line in each language (the catalog's words, service/translations/).
SENT = {
    "en": "Sent at once, as it draws what nobody has seen yet",
    "de": "Sofort gesendet, da es zieht, was noch niemand gesehen hat",
}


def _mover(kurier: Kurier, game_id: str) -> int:
    return int(next(d["seat"] for d in kurier.view(game_id)["waiting_for"] if d["seat"] >= 0))


def _speaks(kurier: Kurier, player: Player, lang: str) -> None:
    r = kurier.call("PATCH", "/v1/me", player, json={"language": lang})
    assert r.status_code == 200, r.text


def _sent_line(page: Any, moves: str, lang: str) -> None:
    """The sent line shown, bounded, naming what was sent; the confirm bar gone."""
    page.locator(".sent-note").wait_for(state="visible", timeout=15_000)
    line = page.locator(".sent-note").inner_text()
    assert SENT[lang] in line and moves in line, line
    assert not page.locator(".confirm-bar").is_visible()


def test_an_attika_reveal_is_sent_with_one_tap(
    browser: Any, base_url: str, worker: Any, axe: str
) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="sends-attika", game_type="attika")
    always_confirm(kurier, players)
    view = kurier.view(game_id)
    mover = players[_mover(kurier, game_id)]
    page = _phone(browser, base_url, mover)
    page.goto(f"{base_url}/games/{game_id}")
    shows_version(page, view["version"])
    assert not page.locator(".sent-note").is_visible()
    page.locator(".stack-piece:enabled").first.click()  # the one tap
    view = committed(kurier, game_id, view, lambda: page.content()[:2000])
    _sent_line(page, "reveal", "en")
    shows_version(page, view["version"])  # the turn goes on, on the state that shows it
    assert page.locator(".building-piece.revealed").count() == 1
    assert page.locator(".sent-note").is_visible()
    for scheme in ("light", "dark"):  # the line is read in both
        page.emulate_media(color_scheme=scheme)
        assert _violations(page, base_url, axe) == [], scheme
    page.context.close()


def test_an_attila_swap_is_sent_with_one_tap_in_german(
    browser: Any, base_url: str, worker: Any
) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(3, seed="sends-attila", game_type="attila")
    always_confirm(kurier, players)
    view = kurier.view(game_id)
    mover = players[_mover(kurier, game_id)]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", mover).json()["actions"]
    assert any(a["notation"].startswith("swap") for a in legal), "no swap at the start"
    page = _phone(browser, base_url, mover)  # signed in (the English page's words)
    _speaks(kurier, mover, "de")
    page.goto(f"{base_url}/games/{game_id}")
    shows_version(page, view["version"])
    page.locator(".pieces [data-pick='tile:swap']").click()
    page.locator(".hand .card-piece:enabled").first.click()  # the card to give
    lay = page.locator(".choices button.lay")
    assert lay.is_enabled()
    lay.click()  # the one tap that sends
    view = committed(kurier, game_id, view, lambda: page.content()[:2000])
    _sent_line(page, "swap", "de")
    page.context.close()
