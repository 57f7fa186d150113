"""A game page's update in place (issue 32) costs the page without its board, and the board
only when it changed: ``?live=1`` leaves the picture out and names it by a URL per version,
viewer and language, which a browser may keep for good (immutable) and which answers 404 once
stale or for another viewer; both travel gzipped. A spectator's board never shows a seat's
open places."""

from __future__ import annotations

import gzip
import html
import re

import requests

from tests.client import Kurier
from tests.test_web_hostile import _signed_in

BOARD = re.compile(r'data-board="([^"]+)"')


def test_an_update_is_the_page_without_its_board_and_the_board_is_kept_per_version(
    base_url: str, worker: object
) -> None:
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="live-parts", game_type="attika")
    mover = next(d["seat"] for d in kurier.view(game_id)["waiting_for"] if d["seat"] >= 0)
    web, _csrf = _signed_in(base_url, players[mover])
    page = web.get(f"{base_url}/games/{game_id}", timeout=10).text
    live = web.get(f"{base_url}/games/{game_id}?live=1", timeout=10)
    assert live.headers["Content-Encoding"] == "gzip"  # requests asks for gzip
    assert "private" in live.headers["Cache-Control"]
    assert "<svg" in page and "<svg" not in live.text  # the board is left out
    assert "table-data" in live.text  # the table's legal places stay
    wire = web.get(f"{base_url}/games/{game_id}?live=1", timeout=10, stream=True)
    assert len(wire.raw.read(decode_content=False)) <= 20 * 1024  # the budget
    url = html.unescape(BOARD.search(live.text).group(1))
    assert url == html.unescape(BOARD.search(page).group(1))
    assert f"s={mover}" in url and "v=" in url
    board = web.get(base_url + url, timeout=10)
    assert board.status_code == 200 and board.headers["Content-Type"].startswith("image/svg")
    assert "immutable" in board.headers["Cache-Control"]
    raw = web.get(base_url + url, timeout=10, stream=True).raw.read(decode_content=False)
    assert gzip.decompress(raw).decode() == board.text
    # Another viewer, an older version: another URL, refused here (never a wrong picture).
    spectator = requests.get(base_url + url, timeout=10)
    assert spectator.status_code == 404
    assert web.get(base_url + url.replace(f"s={mover}", "s=x"), timeout=10).status_code == 404
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", players[mover]).json()
    r = kurier.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        players[mover],
        json={"notation": legal["actions"][0]["notation"]},
    )
    assert r.status_code == 200, r.text
    assert web.get(base_url + url, timeout=10).status_code == 404
    fresh = html.unescape(BOARD.search(web.get(f"{base_url}/games/{game_id}?live=1").text)[1])
    assert fresh != url and web.get(base_url + fresh, timeout=10).status_code == 200
    shown = requests.get(f"{base_url}/games/{game_id}?live=1", timeout=10).text
    watch = html.unescape(BOARD.search(shown).group(1))
    assert "s=x" in watch and "open-hex" not in requests.get(base_url + watch, timeout=10).text
