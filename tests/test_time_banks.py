"""Time banks through the API (real Redis, the API on loopback): a game created with a bank
shows each seat's bank, a move charges the mover the time they took and credits them
``per_move_days`` up to the cap, in the same commit as the move; bad clocks are refused with a
422 naming the field and change nothing."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.client import Kurier

DAY = 86_400.0
BANK = {"kind": "bank", "initial_days": 2, "per_move_days": 1, "max_days": 2.5}


def _bank_game(kurier: Kurier, prefix: str, **deadline: Any) -> tuple[str, list[Any]]:
    return kurier.seated_game(
        "attila", 2, prefix, seed=f"{prefix}-seed", deadline={"clock": BANK, **deadline}
    )


def test_a_bank_game_shows_each_seats_bank_and_a_move_charges_and_credits_it(
    kurier: Kurier,
) -> None:
    game_id, players = _bank_game(kurier, "Bk")
    view = kurier.view(game_id)
    assert view["deadline"]["clock"] == {**BANK, "weekend_pause": False}
    assert "hours" not in view["deadline"]
    mover = view["waiting_for"][0]["seat"]
    banks = {b["seat"]: b for b in view["banks"]}
    assert banks[mover]["running"] and not banks[1 - mover]["running"]
    assert banks[1 - mover] == {
        "seat": 1 - mover,
        "seconds_left": 2 * DAY,
        "running": False,
        "runs_out_at": None,
        "counts_until": None,
    }
    started = banks[mover]["runs_out_at"] - 2 * DAY
    assert view["deadline_at"] == banks[mover]["runs_out_at"]
    assert 2 * DAY - 30 < banks[mover]["seconds_left"] <= 2 * DAY
    # The mover's inbox says when their own bank runs out; the other's holds nothing.
    inbox = kurier.call("GET", "/v1/me/inbox", players[mover]).json()["items"]
    assert [i["deadline_at"] for i in inbox if i["game_id"] == game_id] == [view["deadline_at"]]
    other = kurier.call("GET", "/v1/me/inbox", players[1 - mover]).json()["items"]
    assert not [i for i in other if i["game_id"] == game_id]
    # Counting down between two reads, without a move.
    time.sleep(0.2)
    later = {b["seat"]: b for b in kurier.view(game_id)["banks"]}
    assert later[mover]["seconds_left"] < banks[mover]["seconds_left"]

    # The mover's turn (one or more actions) until the game waits for the other seat.
    for _ in range(10):
        played = kurier.play_first_legal(game_id, players)
        assert played is not None and played[1].status_code == 200, played
        moved_at = time.time()
        after = kurier.view(game_id)
        if after["waiting_for"][0]["seat"] != mover:
            break
    banks = {b["seat"]: b for b in after["banks"]}
    # Charged the seconds taken, credited a day, capped at 2.5 days.
    assert not banks[mover]["running"]
    assert banks[mover]["seconds_left"] == 2.5 * DAY
    taken = moved_at - started
    assert taken > 0
    nxt = after["waiting_for"][0]["seat"]
    assert nxt != mover and banks[nxt]["running"]
    assert banks[nxt]["runs_out_at"] == pytest.approx(moved_at + 2 * DAY, abs=30)


def test_a_second_move_credits_only_up_to_the_cap(kurier: Kurier) -> None:
    game_id, players = kurier.seated_game(
        "attila",
        2,
        "Bc",
        seed="bc-seed",
        deadline={"clock": {**BANK, "initial_days": 1, "max_days": 1.5}},
    )
    for _ in range(4):
        played = kurier.play_first_legal(game_id, players)
        assert played is not None and played[1].status_code in (200, 202), played
        for bank in kurier.view(game_id)["banks"]:
            assert 0 <= bank["seconds_left"] <= 1.5 * DAY


BAD_CLOCKS = [
    ({"clock": {**BANK, "initial_days": -1}}, "initial_days"),
    ({"clock": {**BANK, "per_move_days": -0.5}}, "per_move_days"),
    ({"clock": {**BANK, "max_days": 1}}, "max_days"),
    ({"clock": {**BANK, "weekend_pause": "yes"}}, "weekend_pause"),
    ({"clock": {"kind": "sundial"}}, "kind"),
    ({"clock": {"kind": "bank", "initial_days": 1}}, "per_move_days"),
    ({"clock": BANK, "hours": 24}, "hours"),
    ({"clock": BANK, "policy": "remind_only"}, "policy"),
    ({"hours": 24, "policy": "bot", "bot_level": "grandmaster"}, "bot_level"),
]


@pytest.mark.parametrize(("deadline", "named"), BAD_CLOCKS)
def test_a_bad_clock_is_a_422_naming_the_field_and_changes_nothing(
    kurier: Kurier, deadline: dict[str, Any], named: str
) -> None:
    player = kurier.new_player("Bad")
    body = {"type": "attila", "seats": 2, "deadline": deadline}
    r = kurier.call("POST", "/v1/games", player, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert named in r.text and "deadline" in r.text
    games = kurier.call("GET", "/v1/games", player)
    assert games.status_code == 200 and games.json()["items"] == []


def test_an_unknown_time_zone_is_refused_naming_the_field(kurier: Kurier) -> None:
    player = kurier.new_player("Tz")
    r = kurier.call("PATCH", "/v1/me", player, json={"timezone": "Mars/Olympus_Mons"})
    assert r.status_code == 422 and "timezone" in r.text
    assert kurier.call("GET", "/v1/me", player).json()["timezone"] == "UTC"
