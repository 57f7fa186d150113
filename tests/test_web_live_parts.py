"""A game page's update in place costs the page without its board, and the board only when it
changed: ``?live=1`` leaves the picture out and names it by a URL per version, viewer and
language, which a browser may keep for good (immutable: a superseded version's board is still
served) and which answers 404 for another viewer or a version the game never had; both travel
gzipped. A spectator's board never shows a seat's open places."""

from __future__ import annotations

import gzip
import html
import re
import xml.etree.ElementTree as ET

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
    board_svg = '<svg class="board-svg"'
    assert board_svg in page and board_svg not in live.text  # the board is left out
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
    # A superseded version's board is still that version's, as the seat saw it: immutable.
    superseded = web.get(base_url + url, timeout=10)
    assert superseded.status_code == 200 and superseded.text == board.text
    assert web.get(base_url + url.replace("v=", "v=9"), timeout=10).status_code == 404
    fresh = html.unescape(BOARD.search(web.get(f"{base_url}/games/{game_id}?live=1").text)[1])
    assert fresh != url and web.get(base_url + fresh, timeout=10).status_code == 200
    shown = requests.get(f"{base_url}/games/{game_id}?live=1", timeout=10).text
    watch = html.unescape(BOARD.search(shown).group(1))
    assert "s=x" in watch and "open-hex" not in requests.get(base_url + watch, timeout=10).text


KEPT = re.compile(r'data-keep="([\w-]+)"')


def _emptied(svg: str) -> bytes:
    """The picture with its kept parts emptied, as XML (the same text for the same tree)."""
    root = ET.fromstring(svg)
    for group in root.iter():
        if group.get("data-keep"):
            group[:] = []
            group.text = None
    return ET.tostring(root)


def test_the_wargames_map_is_sent_once_and_an_update_carries_its_pieces_only(
    base_url: str, worker: object
) -> None:
    """Issue 33: a move's update to the other player ≤ 60 KB on the wire. The map's unchanging
    parts (service/pictures/keep.py) come with the page; the board of a new version is asked for
    with the keys of those parts (have=) and comes without them. All else is the same."""
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="live-kept", game_type="attila-wargame")
    web, _csrf = _signed_in(base_url, players[0])
    page = web.get(f"{base_url}/games/{game_id}", timeout=10).text
    kept = KEPT.findall(page)
    assert {key.split("-")[0] for key in kept} == {"hexes", "features", "names"}
    url = html.unescape(BOARD.search(page).group(1))
    whole = web.get(base_url + url, timeout=10).text
    assert KEPT.findall(whole) == kept  # the page's map is the board's
    thin_url = base_url + url + "&have=" + ",".join(kept)
    thin = web.get(thin_url, timeout=10)
    assert thin.status_code == 200 and "immutable" in thin.headers["Cache-Control"]
    empty = re.findall(r'<g id="[\w-]+" data-keep="([\w-]+)"/>', thin.text)
    assert empty == kept
    assert _emptied(thin.text) == _emptied(whole)  # all else the same
    # What the other player's page fetches for an update: the page, then the thin board.
    on_wire = sum(
        len(web.get(u, timeout=10, stream=True).raw.read(decode_content=False))
        for u in (f"{base_url}/games/{game_id}?live=1", thin_url)
    )
    assert on_wire <= 60 * 1024, on_wire
    whole_wire = web.get(base_url + url, timeout=10, stream=True).raw.read(decode_content=False)
    assert len(whole_wire) > 2 * on_wire  # the map is most of a board
    # Keys the picture does not have, junk, too many: those parts are sent whole, never a 500.
    for have in ("hexes-000000000000", "x" * 5000, ",".join(["a"] * 500), "<&>"):
        r = web.get(base_url + url + "&have=" + have, timeout=10)
        assert r.status_code == 200 and r.text == whole, have
