"""A player sees their own sealed choice (and its commitment) until the reveal; nobody else
sees the choice (issue 12: the page shows it; the API view carries it)."""

from __future__ import annotations

import random

from tests.client import Kurier


def test_own_sealed_choice_is_shown_to_its_author_only(kurier: Kurier) -> None:
    rng = random.Random(4)
    game_id, players = kurier.new_game(3, seed="own-sealed-1")
    for _ in range(400):
        view = kurier.view(game_id)
        sealed = [d for d in view["waiting_for"] if d["kind"] == "sealed"]
        if sealed:
            break
        seat = next(d["seat"] for d in view["waiting_for"] if d["seat"] >= 0)
        legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", players[seat]).json()
        body = {"notation": rng.choice(legal["actions"])["notation"]}
        r = kurier.call("POST", f"/v1/games/{game_id}/actions", players[seat], json=body)
        assert r.status_code == 200, r.text
    else:
        raise AssertionError("no conflict in 400 moves")
    author = sealed[0]["seat"]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", players[author]).json()
    choice = legal["actions"][-1]["notation"]
    r = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", players[author], json={"notation": choice}
    )
    assert r.status_code == 202, r.text
    mine = kurier.view(game_id, players[author])["your_sealed_choices"]
    assert mine == [
        {"ref": r.json()["ref"], "choice": choice, "commitment": r.json()["commitment"]}
    ]
    for other in [p for i, p in enumerate(players) if i != author] + [None]:
        seen = kurier.call("GET", f"/v1/games/{game_id}", other).json()
        assert seen["your_sealed_choices"] == []
        assert r.json()["salt"] not in kurier.call("GET", f"/v1/games/{game_id}", other).text
