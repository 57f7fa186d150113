"""board.svg goes gzip-compressed to a client that accepts it, when it is big (the wargame's
map: about 500 KB of SVG), so the game page stays within issue 12's 100 KB; a client that does
not ask gets the same picture as it is (docs/performance.md, "Web pages")."""

from __future__ import annotations

import gzip

import requests

from tests.client import Kurier


def _raw(url: str, encoding: str) -> tuple[bytes, requests.structures.CaseInsensitiveDict[str]]:
    with requests.get(url, headers={"Accept-Encoding": encoding}, stream=True, timeout=30) as r:
        assert r.status_code == 200, r.status_code
        return r.raw.read(decode_content=False), r.headers


def test_a_big_picture_is_compressed_only_for_clients_that_ask(kurier: Kurier) -> None:
    game_id, _ = kurier.new_game(2, seed="gzip-1", game_type="attila-wargame")
    url = f"{kurier.base}/v1/games/{game_id}/board.svg"
    plain, plain_headers = _raw(url, "identity")
    packed, packed_headers = _raw(url, "gzip, deflate, br")
    assert "Content-Encoding" not in plain_headers and plain.startswith(b"<svg")
    assert packed_headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed) == plain
    assert len(packed) < 100 * 1024 < len(plain)
    for headers in (plain_headers, packed_headers):
        assert headers["Vary"] == "Accept-Encoding" and headers["ETag"] == plain_headers["ETag"]
