"""Time banks' deadline jobs end to end on the real stack (Redis, ``kurier worker`` with its
scheduler, aiosmtpd): the warning before a bank runs out, and at zero the game's policy: the
default move, resignation, or a bot holding the seat until its player moves again.

Banks are a few seconds long; every wait is bounded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from service.store import queues
from tests.client import Player
from tests.notify_stack import NotifyStack, shared_stack
from tests.receivers import wait_for
from tests.test_deadlines import (
    LATE,
    STARTED,
    _early_in_a_second,
    _mails,
    _runs,
    _timeouts,
    ending_its_games,
    late_turn,
)

DAY = 86_400.0


def bank(seconds: float, per_move: float = 0.0, cap: float | None = None) -> dict[str, Any]:
    return {
        "kind": "bank",
        "initial_days": seconds / DAY,
        "per_move_days": per_move / DAY,
        "max_days": (cap or seconds) / DAY,
    }


@pytest.fixture(scope="module")
def module_stack(notify_stack: NotifyStack) -> Iterator[NotifyStack]:
    with shared_stack(notify_stack) as s:
        yield s


@pytest.fixture
def stack(module_stack: NotifyStack) -> Iterator[NotifyStack]:
    with ending_its_games(module_stack) as s:
        yield s


def _game(
    stack: NotifyStack, name: str, deadline: dict[str, Any], **settings: Any
) -> tuple[str, list[Player], dict[str, Any]]:
    seated = [stack.player(f"{name}{i}", email=f"{name.lower()}{i}@mail.test")[0] for i in range(2)]
    _early_in_a_second()
    k = stack.client
    body = {"type": "attila", "seats": 2, "seed": f"{name}-bank", "deadline": deadline, **settings}
    created = k.call("POST", "/v1/games", seated[0], json=body)
    assert created.status_code == 201, created.text
    game_id, invite = created.json()["id"], created.json()["invite_code"]
    STARTED.append((game_id, seated[0]))
    r = k.call("POST", f"/v1/games/{game_id}/seats", seated[1], json={"invite_code": invite})
    assert r.status_code == 201, r.text
    r = k.call("POST", f"/v1/games/{game_id}/start", seated[0])
    assert r.status_code == 200, r.text
    return game_id, seated, k.view(game_id)


def _running_bank(view: dict[str, Any]) -> tuple[int, float]:
    seat = view["waiting_for"][0]["seat"]
    [running] = [b for b in view["banks"] if b["running"]]
    assert running["seat"] == seat
    return seat, running["runs_out_at"]


def _deadline_job(game_id: str, version: int, seat: int) -> str:
    return queues.deadline_job_id(game_id, version, seat)


def test_a_bank_warns_then_plays_the_default_move_at_zero_once(stack: NotifyStack) -> None:
    deadline = {"clock": bank(4.0), "remind_before_hours": 2 / 3600}
    game_id, _seated, view = _game(stack, "D", deadline)
    seat, due = _running_bank(view)
    version = view["version"]
    warning = wait_for(
        lambda: _mails(stack, f"d{seat}@mail.test", "deadline is near"),
        4 + LATE + 10,
        "the warning",
    )[0]
    body = warning.get_body(("plain",))
    assert (
        body is not None and "Your time bank holds 0 h 0 min: decide before" in body.get_content()
    )
    assert not _mails(stack, f"d{1 - seat}@mail.test", "deadline is near")

    entry = wait_for(lambda: _timeouts(stack, game_id), 4 + LATE + 10, "the timeout")[0]
    assert entry["seat"] == seat and entry["kind"] == "move" and entry["action"]
    assert due <= entry["at"] <= due + LATE
    job = _deadline_job(game_id, version, seat)
    assert wait_for(lambda: _runs(stack, job), 5, "the job's result") == ["applied"]
    after = stack.client.view(game_id)
    banks = {b["seat"]: b for b in after["banks"]}
    assert banks[seat]["seconds_left"] == 0  # per_move 0: nothing to credit


def test_a_move_the_policy_made_at_zero_earns_the_per_move_days(stack: NotifyStack) -> None:
    """As in correspondence chess: every move made in the seat, by its player or by the
    game's policy at the deadline, adds ``per_move_days``; a bank at zero is not out of time
    again the moment its next turn starts."""
    per_move = 600.0
    game_id, _seated, view = _game(stack, "P", {"clock": bank(3.0, per_move, cap=per_move)})
    seat, _due = _running_bank(view)
    entry = wait_for(lambda: _timeouts(stack, game_id), 3 + LATE + 10, "the timeout")[0]
    assert entry["seat"] == seat and entry["kind"] == "move"

    def seats_turn_again() -> dict[str, Any] | None:
        """The seat's bank once the game waits for it after the other seat's turn."""
        now = stack.client.view(game_id)
        later = stack.client.all_events(game_id)[entry["version"] :]
        if any(e["seat"] == 1 - seat for e in later) and now["waiting_for"][0]["seat"] == seat:
            return {b["seat"]: b for b in now["banks"]}[seat]
        return None

    # At zero the policy plays the rest of the seat's turn at once (one credit, when the turn
    # ends); the other seat's 3 s run out too, and the seat's turn comes back.
    again = wait_for(seats_turn_again, 3 + LATE + 20, "the seat's next turn")
    assert again["running"] and per_move - 60 < again["seconds_left"] <= per_move
    assert again["runs_out_at"] > time.time() + per_move - 60


def test_at_zero_the_resign_policy_takes_the_seat_out(stack: NotifyStack) -> None:
    game_id, _seated, view = _game(stack, "G", {"clock": bank(3.0), "policy": "resign"})
    seat, _due = _running_bank(view)
    entry = wait_for(lambda: _timeouts(stack, game_id), 3 + LATE + 10, "the timeout")[0]
    assert entry["seat"] == seat and entry["action"] == "resign"
    event = next(e for e in entry["events"] if e["kind"] == "timeout_applied")
    assert event["data"]["policy"] == "resign"
    after = stack.client.view(game_id)
    assert after["status"] == "finished"  # two players: the other one wins
    assert after["banks"] and not any(b["running"] for b in after["banks"])


def test_at_zero_a_bot_holds_the_seat_until_its_player_moves_again(stack: NotifyStack) -> None:
    deadline = {"clock": bank(3.0, per_move=30, cap=60), "policy": "bot", "bot_level": "easy"}
    game_id, seated, view = _game(stack, "B", deadline, bot_delay_seconds=1.5)
    k = stack.client
    seat, _due = _running_bank(view)
    entry = wait_for(lambda: _timeouts(stack, game_id), 3 + LATE + 10, "the timeout")[0]
    assert entry["kind"] == "timeout" and entry["seat"] == seat
    event = next(e for e in entry["events"] if e["kind"] == "timeout_applied")
    assert event["data"]["policy"] == "bot" and event["data"]["bot_level"] == "easy"
    held = k.view(game_id)
    assert held["seats"][seat]["is_bot"] and held["seats"][seat]["bot_level"] == "easy"
    assert not any(b["running"] for b in held["banks"] if b["seat"] == seat)

    # The bot moves for the seat (its own pace), and the clock does not run for it.
    def bot_moved() -> list[dict[str, Any]]:
        return [
            e
            for e in k.all_events(game_id)
            if e["kind"] == "move" and e["seat"] == seat and e["version"] > entry["version"]
        ]

    wait_for(bot_moved, 1.5 + LATE + 5, "the bot's move")
    # The player's own move (any channel) takes the seat back: the first time the game
    # waits for the seat again, they play before the bot's delay is over.
    for _ in range(40):
        now = k.view(game_id)
        if now["status"] != "active":
            pytest.skip("the game ended before the seat's turn came back")
        waiting = now["waiting_for"][0]["seat"]
        if waiting == seat and now["seats"][seat]["is_bot"]:
            legal = k.call("GET", f"/v1/games/{game_id}/legal-actions", seated[seat]).json()
            body = {"notation": legal["actions"][0]["notation"]}
            r = k.call("POST", f"/v1/games/{game_id}/actions", seated[seat], json=body)
            if r.status_code == 200:
                break
            assert r.status_code == 409, r.text  # the bot was quicker this time: next turn
        elif waiting != seat:
            played = k.play_first_legal(game_id, seated)
            assert played is not None and played[1].status_code == 200, played
        time.sleep(0.05)
    else:
        raise AssertionError("the player never got their seat back")
    # The seat is the player's from this move on: their bank, at zero while the bot held the
    # seat, holds ``per_move_days`` for the rest of the turn if it goes on (else the turn's end
    # earned them), so no decision of theirs falls due at once.
    back = k.view(game_id)
    assert not back["seats"][seat]["is_bot"] and back["seats"][seat]["bot_level"] is None
    assert back["seats"][seat]["missed_deadlines"] == 0  # they acted: none in a row now
    [own] = [b for b in back["banks"] if b["seat"] == seat]
    assert 30 - 10 < own["seconds_left"] <= 30 + 1
    assert [e["version"] for e in _timeouts(stack, game_id) if e["seat"] == seat] == [
        entry["version"]
    ]


def test_a_game_ending_while_a_bot_holds_a_seat_gives_the_seat_back(stack: NotifyStack) -> None:
    deadline = {"clock": bank(3.0), "policy": "bot", "bot_level": "easy"}
    # The bot waits an hour before it moves: the game ends first.
    game_id, seated, view = _game(stack, "E", deadline, bot_delay_seconds=3600)
    k = stack.client
    seat, _due = _running_bank(view)
    wait_for(lambda: _timeouts(stack, game_id), 3 + LATE + 10, "the timeout")
    assert k.view(game_id)["seats"][seat]["is_bot"]
    r = k.call(
        "POST", f"/v1/games/{game_id}/actions", seated[1 - seat], json={"notation": "resign"}
    )
    assert r.status_code == 200, r.text
    ended = k.view(game_id)
    assert ended["status"] == "finished"
    assert not ended["seats"][seat]["is_bot"] and ended["seats"][seat]["bot_level"] is None


@pytest.mark.parametrize("policy", ["default_move", "skip"])
def test_a_turn_run_out_at_zero_counts_one_missed_deadline(stack: NotifyStack, policy: str) -> None:
    """Once a bank is at zero the policy makes the rest of the seat's turn at once: the turn's
    missed deadline counts once (never abandoning the seat by the shape of its own turn), the
    rest are marked ``same_turn``, and the player hears of it once."""
    per_move = 600.0
    deadline = {"clock": bank(3.0, per_move, cap=per_move), "policy": policy}
    game_id, _seated, view = _game(stack, f"T{policy[0]}", deadline, abandon_after=2)
    seat, _due = _running_bank(view)
    late = wait_for(
        lambda: late_turn(stack, game_id, seat),
        3 + LATE + 20,
        "the seat's turn made by the policy",
    )
    assert len(late) >= 2, late  # an Attila turn of several decisions
    assert [t.get("same_turn", False) for t in late] == [False] + [True] * (len(late) - 1)
    entries = stack.client.all_events(game_id)
    assert not [e for e in entries for x in e["events"] if x["kind"] == "seat_abandoned"]
    after = stack.client.view(game_id)
    assert after["seats"][seat]["missed_deadlines"] == 1
    assert not after["seats"][seat]["abandoned"]
    address = f"t{policy[0]}{seat}@mail.test"
    wait_for(lambda: _mails(stack, address, "deadline passed"), 20, "the timeout mail")
    assert len(_mails(stack, address, "deadline passed")) == 1
