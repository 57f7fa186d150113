"""Resigning, abandoning, claiming and replacing over HTTP, with a real Redis and worker
(issue 13): every game ends, the record replays to its result, and nobody sees a secret of a
seat that is not theirs (a replaced player loses the seat's hand)."""

from __future__ import annotations

import random
import time
from typing import Any

from engine.verify import verify_record
from tests.client import Kurier, Player, play_to_end


def _game(kurier: Kurier, type_id: str, seats: int, **extra: Any) -> tuple[str, list[Player]]:
    return kurier.seated_game(type_id, seats, "S", **extra)


def _act(kurier: Kurier, game_id: str, who: Player, body: dict[str, Any]) -> Any:
    return kurier.call("POST", f"/v1/games/{game_id}/actions", who, json=body)


def _verified(kurier: Kurier, game_id: str) -> dict[str, Any]:
    record = kurier.call("GET", f"/v1/games/{game_id}/record").json()
    checked = verify_record(record)
    assert checked.ok, checked.summary()
    return record


def test_a_two_player_game_is_won_by_resignation(kurier: Kurier) -> None:
    game_id, (a, b) = _game(kurier, "attika", 2)
    r = _act(kurier, game_id, b, {"action": {"type": "resign"}})  # not b's turn: allowed
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "finished"
    view = kurier.view(game_id)
    assert view["result"]["winners"] == [0] and view["result"]["standing"] == [[0], [1]]
    assert view["seats"][1]["resigned"] is True
    assert any(s["text"] == "S1 resigned." for s in view["since_your_last_move"])
    record = _verified(kurier, game_id)
    assert record["actions"][-1] | {"version": 0} == {
        "version": 0,
        "seat": 1,
        "kind": "move",
        "action": "resign",
        "ref": None,
        "commitment": None,
    }
    again = _act(kurier, game_id, a, {"notation": "resign"})
    assert again.status_code == 409 and again.json()["code"] == "game-not-active"


def test_forfeit_and_rejoin_are_not_a_players_to_play(kurier: Kurier) -> None:
    game_id, (a, _b) = _game(kurier, "attila", 2)
    for text in ("forfeit", "rejoin"):
        r = _act(kurier, game_id, a, {"notation": text})
        assert r.status_code == 422 and r.json()["code"] == "not-a-player-action", r.text
    assert kurier.view(game_id)["status"] == "active"


def test_a_resigned_seat_is_skipped_in_a_three_player_attila_played_to_its_end(
    kurier: Kurier,
) -> None:
    game_id, players = _game(kurier, "attila", 3)
    view = kurier.view(game_id)
    quitter = next(d["seat"] for d in view["waiting_for"])  # resigns in its own turn
    r = _act(kurier, game_id, players[quitter], {"notation": "resign"})
    assert r.status_code == 200, r.text
    assert all(d["seat"] != quitter for d in kurier.view(game_id)["waiting_for"])
    final, _, _ = play_to_end(kurier, game_id, players, random.Random(7))
    assert final["result"]["standing"][-1] == [quitter]
    assert quitter not in final["result"]["winners"]
    record = _verified(kurier, game_id)
    asked_after = [a for a in record["actions"] if a["version"] > r.json()["version"]]
    assert asked_after and all(a["seat"] != quitter for a in asked_after)


def _wait_until(kurier: Kurier, game_id: str, who: Player, test: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = kurier.view(game_id, who)
        if test(view):
            return view
        time.sleep(0.2)
    raise AssertionError(f"not reached in {seconds} s")


def test_a_win_is_claimed_after_missed_deadlines(kurier: Kurier) -> None:
    deadline = {"hours": 0.0005, "policy": "remind_only"}  # 1.8 s per decision
    game_id, (a, b) = _game(kurier, "attila", 2, deadline=deadline, abandon_after=2)
    absent = next(d["seat"] for d in kurier.view(game_id)["waiting_for"])
    present = (a, b)[1 - absent]
    early = kurier.call("POST", f"/v1/games/{game_id}/claim", present)
    assert early.status_code == 409 and early.json()["code"] == "no-claim"
    view = _wait_until(kurier, game_id, present, lambda v: v["seats"][absent]["abandoned"], 25)
    assert view["seats"][absent]["missed_deadlines"] == 2
    claimed = kurier.call("POST", f"/v1/games/{game_id}/claim", present)
    assert claimed.status_code == 200, claimed.text
    final = kurier.view(game_id)
    assert final["status"] == "finished" and final["result"]["winners"] == [1 - absent]
    assert final["result"]["reasons"][-1] == "resigned"
    record = _verified(kurier, game_id)
    assert record["actions"][-1]["action"] == "forfeit"


def _hand(kurier: Kurier, game_id: str, who: Player) -> Any:
    return kurier.view(game_id, who)["view"].get("hand")


def test_a_replacement_takes_over_a_resigned_seat_and_finishes_the_game(kurier: Kurier) -> None:
    game_id, players = _game(kurier, "attila", 3)
    creator, leaver = players[0], players[2]
    hand_before = _hand(kurier, game_id, leaver)
    assert hand_before is not None
    said = {"text": "our secret plan", "to_seat": 2}
    assert kurier.call("POST", f"/v1/games/{game_id}/messages", creator, json=said).ok
    assert _act(kurier, game_id, leaver, {"notation": "resign"}).status_code == 200
    stranger = kurier.new_player("Newcomer")
    not_creator = kurier.call("POST", f"/v1/games/{game_id}/seats/2/offer", players[1])
    assert not_creator.status_code == 403
    not_vacant = kurier.call("POST", f"/v1/games/{game_id}/seats/1/offer", creator)
    assert not_vacant.status_code == 409 and not_vacant.json()["code"] == "seat-not-vacant"
    offer = kurier.call("POST", f"/v1/games/{game_id}/seats/2/offer", creator)
    assert offer.status_code == 201, offer.text
    code = offer.json()["invite_code"]
    assert code not in kurier.call("GET", f"/v1/games/{game_id}", players[1]).text
    wrong = kurier.call(
        "POST", f"/v1/games/{game_id}/seats/2/take", stranger, json={"invite_code": "nope"}
    )
    assert wrong.status_code == 403
    took = kurier.call(
        "POST", f"/v1/games/{game_id}/seats/2/take", stranger, json={"invite_code": code}
    )
    assert took.status_code == 200, took.text
    view = kurier.view(game_id, stranger)
    assert view["your_seat"] == 2 and view["seats"][2]["name"] == "Newcomer"
    assert view["seats"][2]["resigned"] is False
    assert _hand(kurier, game_id, stranger) == hand_before
    # The seat's hand is the newcomer's; the predecessor's private talk is not.
    talk = kurier.call("GET", f"/v1/games/{game_id}/messages", stranger).json()["items"]
    assert talk == []
    said = {"text": "welcome", "to_seat": 2}
    assert kurier.call("POST", f"/v1/games/{game_id}/messages", creator, json=said).ok
    talk = kurier.call("GET", f"/v1/games/{game_id}/messages", stranger).json()["items"]
    assert [m["text"] for m in talk] == ["welcome"]
    gone = kurier.view(game_id, leaver)
    assert gone["your_seat"] is None and gone["view"].get("hand") is None
    again = kurier.call(
        "POST",
        f"/v1/games/{game_id}/seats/2/take",
        kurier.new_player("Late"),
        json={"invite_code": code},
    )
    assert again.status_code == 403  # an offer opens the seat once
    players[2] = stranger
    final, _, _ = play_to_end(kurier, game_id, players, random.Random(11))
    assert "resigned" not in final["result"]
    record = _verified(kurier, game_id)
    (handover,) = record["handovers"]
    assert handover["seat"] == 2 and handover["name"] == "Newcomer"
    assert handover["previous"]["name"] == "S2" and handover["version"] == took.json()["version"]
    assert any(a["seat"] == 2 and a["version"] > handover["version"] for a in record["actions"])
