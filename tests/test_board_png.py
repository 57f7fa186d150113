"""GET /v1/games/{id}/board.png over HTTP: the board.svg picture rendered as PNG on the server,
with the same caching headers and the same 404/409 answers (issue 14)."""

from __future__ import annotations

import io
import random
import time
import xml.etree.ElementTree as ET

from PIL import Image

from tests.client import Kurier

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png(kurier: Kurier, game_id: str, **params: str) -> tuple[bytes, dict[str, str]]:
    r = kurier.call("GET", f"/v1/games/{game_id}/board.png", params=params)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "image/png"
    return r.content, dict(r.headers)


def _play_one_move(kurier: Kurier, game_id: str, players: list, version: int) -> None:
    """One legal move by a seat the game waits for, then wait until the version moved past
    it (a sealed choice may need the worker's resolution before the board changes)."""
    view = kurier.view(game_id)
    decision = next(d for d in view["waiting_for"] if d["seat"] >= 0)
    player = players[decision["seat"]]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
    action = random.Random(1).choice(legal["actions"])
    r = kurier.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        player,
        json={"notation": action["notation"]},
        headers={"If-Match": f'"{view["version"]}"'},
    )
    assert r.status_code in (200, 202), r.text
    deadline = time.monotonic() + 30
    while kurier.view(game_id)["version"] <= version:
        assert time.monotonic() < deadline, "the version did not move"
        time.sleep(0.05)


def test_board_png_is_the_svg_rendered(kurier: Kurier) -> None:
    game_id, players = kurier.new_game(2, seed="board-png")
    version = kurier.view(game_id)["version"]
    png, headers = _png(kurier, game_id)
    assert png.startswith(PNG_SIGNATURE)
    assert 10_000 < len(png) < 3_000_000, len(png)
    assert headers["ETag"] == f'"{version}"'
    assert headers["Cache-Control"] == "public, max-age=5"

    # The picture's own size: the SVG's width and height, in pixels.
    svg = kurier.call("GET", f"/v1/games/{game_id}/board.svg")
    assert svg.headers["ETag"] == headers["ETag"]
    root = ET.fromstring(svg.text)
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.size == (round(float(root.get("width"))), round(float(root.get("height"))))
    # Not a blank page: a board has many colours.
    assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 50

    # ?v= (a cache buster clients add) is ignored.
    again, again_headers = _png(kurier, game_id, v="12345")
    assert again == png and again_headers["ETag"] == headers["ETag"]

    # After a move: a new version, a new picture.
    _play_one_move(kurier, game_id, players, version)
    moved, moved_headers = _png(kurier, game_id)
    assert moved.startswith(PNG_SIGNATURE)
    assert moved_headers["ETag"] != headers["ETag"]
    assert moved != png


def test_board_png_problems(kurier: Kurier) -> None:
    r = kurier.call("GET", "/v1/games/no-such-game/board.png")
    assert r.status_code == 404
    assert r.headers["Content-Type"].startswith("application/problem+json")

    creator = kurier.new_player("Early")
    r = kurier.call("POST", "/v1/games", creator, json={"type": "attila", "seats": 2})
    assert r.status_code == 201, r.text
    r = kurier.call("GET", f"/v1/games/{r.json()['id']}/board.png")
    assert r.status_code == 409
    assert r.json()["code"] == "game-not-started"
