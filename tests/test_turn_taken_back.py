"""A player who acts again in the middle of a turn the game's policy was making or holding
(service/domain/games/play.py ``present``): the rest of the turn is theirs, with a fair
deadline, and a deadline job that lost the race to their move changes nothing.

On a real Redis with no worker: each deadline job is run by hand (``deadlines.fall_due``, what
``workers.notify.deadline`` runs), so both orders of the race are played out exactly."""

from __future__ import annotations

import time
from typing import Any

from service.domain import clocks, deadlines
from service.domain.games import lifecycle, play, views
from service.store import Store
from service.store.record import GameRecord
from tests.receivers import wait_for

DAY = clocks.DAY
PER_MOVE = 600.0  # seconds: far more than any test here runs
#: A bank's job times its seat out with up to this much left (``deadlines.EARLY_SECONDS``).
AT_ZERO = deadlines.EARLY_SECONDS


def _game(store: Store, name: str, deadline: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    players = [store.players.create(f"{name}{i}", None)[0] for i in range(2)]
    created = lifecycle.create_game(
        store, players[0], "attila", {}, f"{name}-taken-back", 2, deadline
    ).body
    lifecycle.join_game(store, players[1], created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0], created["id"])
    return created["id"], players


def _bank(initial: float, policy: str) -> dict[str, Any]:
    clock = {
        "kind": "bank",
        "initial_days": initial / DAY,
        "per_move_days": PER_MOVE / DAY,
        "max_days": 2 * PER_MOVE / DAY,
    }
    return {"clock": clock, "policy": policy} | ({"bot_level": "easy"} if policy == "bot" else {})


def _seat_to_move(record: GameRecord) -> int:
    [decision] = record.pending
    seat: int = decision["seat"]
    return seat


def _move(store: Store, game_id: str, player: dict[str, Any], seat: int) -> dict[str, Any]:
    """The seat's player plays its first legal action; the answer's body."""
    record = store.get_game(game_id)
    notation = views.legal_actions(record, seat)["actions"][0]["notation"]
    return play.play(store, player, game_id, notation, None, None, None, None).body


def _left(store: Store, game_id: str, seat: int) -> float:
    record = store.get_game(game_id)
    bank = clocks.Bank.of(record.deadline)
    return clocks.left_now(bank, record.seating["banks"], seat, time.time())


def _bank_runs_out(store: Store, game_id: str, seat: int) -> str:
    """The seat's bank job, run once its bank is (about) empty, as the worker would."""
    wait_for(lambda: _left(store, game_id, seat) <= deadlines.EARLY_SECONDS, 10, "the bank's zero")
    record = store.get_game(game_id)
    due = record.seating["banks"]["dues"][str(seat)]
    return deadlines.fall_due(store, game_id, record.version, due, due, seat)


def _timeouts(store: Store, game_id: str) -> list[tuple[int, dict[str, Any]]]:
    """Each ``timeout_applied`` event of the log: its entry's version and its data."""
    _record, entries = store.read_log(game_id)
    return [
        (version, e["data"])
        for version, entry in entries
        for e in entry["events"]
        if e["kind"] == "timeout_applied"
    ]


def _missed(record: GameRecord, seat: int) -> int:
    return int(record.seating.get("missed", {}).get(str(seat), 0))


def test_a_player_acting_in_a_late_turn_gets_its_rest_with_a_full_deadline(
    isolated_redis: Store,
) -> None:
    store = isolated_redis
    hours = 1.0
    game_id, players = _game(store, "L", {"hours": hours, "policy": "default_move"})
    start = store.get_game(game_id)
    seat = _seat_to_move(start)
    assert deadlines.fall_due(store, game_id, start.version, time.time()) == "applied"
    late = store.get_game(game_id)
    assert late.late_turns() == [seat] and _missed(late, seat) == 1
    assert late.deadline_at is not None and late.deadline_at <= time.time()  # the rest: at once

    # The player acts before the late version's job runs: the rest of the turn is theirs.
    answer = _move(store, game_id, players[seat], seat)
    assert [d["seat"] for d in answer["waiting_for"]] == [seat]  # the turn goes on
    back = store.get_game(game_id)
    assert back.late_turns() == [] and "late_turns" not in back.seating
    assert back.deadline_at is not None
    assert back.deadline_at > time.time() + hours * 3600 - 60
    assert _missed(back, seat) == 0  # the player acted: missed deadlines in a row start again

    # The late version's job, and the first deadline's timeout retried after losing the race
    # (its decision looks like the one pending now: an Attila turn plays a card twice), find
    # the game moved on and change nothing.
    assert deadlines.fall_due(store, game_id, late.version, time.time()) == "stale"
    retried = play.apply_timeout(store, game_id, seat, start.pending[0], start.version)
    assert retried == "stale"
    assert store.get_game(game_id).version == back.version


def test_a_late_turns_job_first_then_the_players_move_on_what_is_left(
    isolated_redis: Store,
) -> None:
    """The other order of the race: the policy's job commits first, the player's move then
    plays the decision pending after it, and the rest of the turn is theirs."""
    store = isolated_redis
    game_id, players = _game(store, "O", {"hours": 1.0, "policy": "default_move"})
    start = store.get_game(game_id)
    seat = _seat_to_move(start)
    assert deadlines.fall_due(store, game_id, start.version, time.time()) == "applied"
    late = store.get_game(game_id)
    assert deadlines.fall_due(store, game_id, late.version, time.time()) == "applied"
    rest = store.get_game(game_id)
    same_turn = [data.get("same_turn", False) for _version, data in _timeouts(store, game_id)]
    assert same_turn == [False, True] and _missed(rest, seat) == 1
    assert rest.late_turns() == [seat]
    answer = _move(store, game_id, players[seat], seat)
    assert [d["seat"] for d in answer["waiting_for"]] == [seat]
    back = store.get_game(game_id)
    assert back.late_turns() == [] and _missed(back, seat) == 0
    assert back.deadline_at is not None and back.deadline_at > time.time() + 3000


def test_back_from_a_bot_in_the_middle_of_a_turn_the_bank_holds_per_move_days(
    isolated_redis: Store,
) -> None:
    """At zero a bot takes the seat (policy ``bot``) mid-turn; its player comes back at the
    turn's next decision: the turn goes on, theirs, with ``per_move_days`` for its rest (not
    a bank at zero that would time out at once); the turn's end earns ``per_move_days`` as
    every turn does."""
    store = isolated_redis
    game_id, players = _game(store, "B", _bank(1.5, "bot"))
    seat = _seat_to_move(store.get_game(game_id))
    _move(store, game_id, players[seat], seat)  # the turn's first decision, in time
    assert _bank_runs_out(store, game_id, seat) == "applied"
    held = store.get_game(game_id)
    assert held.bot_level(seat) == "easy" and _missed(held, seat) == 1
    assert "running" in held.seating["banks"] and str(seat) not in held.seating["banks"]["running"]

    answer = _move(store, game_id, players[seat], seat)  # back, mid-turn
    assert [d["seat"] for d in answer["waiting_for"]] == [seat]
    back = store.get_game(game_id)
    assert back.bot_level(seat) is None and _missed(back, seat) == 0
    assert PER_MOVE - 60 < _left(store, game_id, seat) <= PER_MOVE + AT_ZERO
    assert back.seating["banks"]["dues"][str(seat)] > time.time() + PER_MOVE - 60
    # The bank job of the version the bot held finds the game moved on.
    due = held.seating["banks"].get("dues", {}).get(str(seat), time.time())
    assert deadlines.fall_due(store, game_id, held.version, due, due, seat) == "stale"

    while _seat_to_move(store.get_game(game_id)) == seat:  # the rest of the turn, by the player
        _move(store, game_id, players[seat], seat)
    after = store.get_game(game_id)
    assert after.bot_level(seat) is None and _missed(after, seat) == 0
    assert 2 * PER_MOVE - 60 < _left(store, game_id, seat) <= 2 * PER_MOVE
    assert [version for version, _data in _timeouts(store, game_id)] == [held.version]


def test_acting_in_a_turn_the_policy_was_making_at_zero_times_its_rest_afresh(
    isolated_redis: Store,
) -> None:
    """At zero the policy ``default_move`` makes the seat's decision and the rest of the turn
    is late; its player acts in it before the next job runs: the rest is theirs, with
    ``per_move_days``, and no further missed deadline."""
    store = isolated_redis
    game_id, players = _game(store, "Z", _bank(1.5, "default_move"))
    seat = _seat_to_move(store.get_game(game_id))
    _move(store, game_id, players[seat], seat)
    assert _bank_runs_out(store, game_id, seat) == "applied"
    late = store.get_game(game_id)
    assert late.late_turns() == [seat] and _missed(late, seat) == 1
    assert late.seating["banks"]["dues"][str(seat)] <= time.time()  # the rest: at once

    answer = _move(store, game_id, players[seat], seat)
    assert [d["seat"] for d in answer["waiting_for"]] == [seat]
    back = store.get_game(game_id)
    assert back.late_turns() == [] and _missed(back, seat) == 0
    assert PER_MOVE - 60 < _left(store, game_id, seat) <= PER_MOVE + AT_ZERO
    due = late.seating["banks"]["dues"][str(seat)]
    assert deadlines.fall_due(store, game_id, late.version, due, due, seat) == "stale"
