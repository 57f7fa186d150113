"""The "next game waiting for you" button (issue 32): on a game page that does not wait for
the player, a link to the game of theirs that has waited longest for them; none where the page's
own game waits for them or no other does."""

from __future__ import annotations

import re

from tests.client import Kurier
from tests.test_web_hostile import _signed_in

NEXT = re.compile(r'class="button next-game" href="/games/([0-9a-f]+)"')


def test_a_page_points_to_the_next_game_waiting(base_url: str) -> None:
    kurier = Kurier(base_url)
    first, players = kurier.new_game(2, seed="next-1")
    mover = kurier.view(first)["waiting_for"][0]["seat"]
    for n in range(12):  # a second game of the same two whose first mover is the other seat
        body = {"type": "attila", "seats": 2, "seed": f"next-2-{n}"}
        r = kurier.call("POST", "/v1/games", players[0], json=body)
        second, invite = r.json()["id"], r.json()["invite_code"]
        r = kurier.call(
            "POST", f"/v1/games/{second}/seats", players[1], json={"invite_code": invite}
        )
        assert r.status_code == 201, r.text
        assert kurier.call("POST", f"/v1/games/{second}/start", players[0]).status_code == 200
        if kurier.view(second)["waiting_for"][0]["seat"] != mover:
            break
    movers = {g: kurier.view(g)["waiting_for"][0]["seat"] for g in (first, second)}
    assert movers[first] != movers[second]
    for seat, player in enumerate(players):
        web, _csrf = _signed_in(base_url, player)
        for here, there in ((first, second), (second, first)):
            page = web.get(f"{base_url}/games/{here}", timeout=10).text
            shown = NEXT.search(page)
            if movers[here] != seat and movers[there] == seat:
                assert shown and shown.group(1) == there, (seat, here)
            else:
                assert shown is None, (seat, here)
