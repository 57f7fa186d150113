"""The game view says, in sentences with names, what happened since the reader's last move."""

from __future__ import annotations

from tests.client import Kurier


def _play_first_legal(kurier: Kurier, game_id: str, players: list) -> str:
    view = kurier.view(game_id)
    decision = next(d for d in view["waiting_for"] if d["seat"] >= 0)
    player = players[decision["seat"]]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
    notation = legal["actions"][0]["notation"]
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": notation})
    assert r.status_code in (200, 202), r.text
    return str(player.name)


def test_the_view_lists_what_the_others_did_since_my_last_move(kurier: Kurier) -> None:
    game_id, players = kurier.new_game(3, seed="since-last-move")
    movers = [_play_first_legal(kurier, game_id, players) for _ in range(4)]
    first = movers[0]
    me = next(p for p in players if p.name == first)
    recent = kurier.view(game_id, me)["since_your_last_move"]
    assert recent, "three moves by others since mine"
    texts = " ".join(s["text"] for s in recent)
    # Named, and nothing from before my own last move.
    others = {name for name in movers[1:] if name != first}
    assert any(name in texts for name in others), texts
    last_mine = max(i for i, name in enumerate(movers) if name == first)
    assert all(s["version"] > 0 for s in recent)
    assert len({s["version"] for s in recent}) <= len(movers) - last_mine - 1 + 1
    spectator = kurier.view(game_id)["since_your_last_move"]
    assert spectator and all("seat" not in s for s in spectator)
