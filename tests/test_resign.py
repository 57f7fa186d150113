"""Resigning and coming back, in every engine (engine/core.py ``Resign``, ``Rejoin``; rulings in
docs/rules/<game>.md, "Resigning"): two players, the opponent wins at once; three or more, the
seat's turns and sealed choices are skipped, its pieces stay, and it ranks last."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import SYSTEM, IllegalAction, Rejoin, Resign
from engine.registry import get_game

GAMES = ("attila", "attika", "attila-wargame")
MAX_ACTIONS = 4000


def play_to_end(
    game: Any, state: Any, rng: random.Random, moves: list[tuple[int, str]], limit: int
) -> list[int]:
    """Random legal actions (resolutions included) until the end or ``limit``; the seats that
    were asked to decide, in order."""
    asked = []
    for _ in range(limit):
        if game.is_over(state):
            break
        decision = rng.choice(game.pending(state))
        asked.append(decision.seat)
        action = rng.choice(game.legal_actions(state, decision.seat))
        moves.append((decision.seat, game.notation(action)))
        game.apply(state, decision.seat, action)
    return asked


@pytest.mark.parametrize("type_id", GAMES)
def test_two_players_the_opponent_wins_at_once(type_id: str) -> None:
    game = get_game(type_id)
    state = game.new_state(2, "resign-2p", None)
    moves: list[tuple[int, str]] = []
    play_to_end(game, state, random.Random(3), moves, 12)
    events = game.apply(state, 1, game.parse("resign"))
    assert game.is_over(state) and game.pending(state) == []
    result = game.result(state)
    assert result["winners"] == [0]
    assert result["standing"] == [[0], [1]] and result["resigned"] == [1]
    assert "resigned" in result["reasons"]
    assert events[0].kind == "resigned"
    assert events[-1].kind == "game_ended"
    replayed = game.replay(2, "resign-2p", None, [*moves, (1, "resign")])
    assert game.result(replayed) == result


@pytest.mark.parametrize("type_id", GAMES)
def test_notation_and_json_of_seat_actions(type_id: str) -> None:
    game = get_game(type_id)
    assert game.parse("resign") == Resign() and game.parse(" Forfeit ") == Resign(True)
    assert game.notation(Resign(True)) == "forfeit" and game.notation(Rejoin()) == "rejoin"
    assert game.action_from_json({"type": "resign"}) == Resign()
    assert game.action_to_json(Resign()) == {"type": "resign", "forfeit": False}
    with pytest.raises(IllegalAction):
        game.action_from_json({"type": "resign", "seat": 2})
    state = game.new_state(2, "x", None)
    assert all(not isinstance(a, Resign) for a in game.legal_actions(state, 0))


@pytest.mark.parametrize("type_id", GAMES)
def test_refusals(type_id: str) -> None:
    game = get_game(type_id)
    state = game.new_state(2, "refuse", None)
    with pytest.raises(IllegalAction) as error:
        game.apply(state, 0, Rejoin())
    assert error.value.code == "not-resigned"
    game.apply(state, 0, Resign())
    with pytest.raises(IllegalAction) as error:
        game.apply(state, 1, Resign())
    assert error.value.code == "game-over"


@pytest.mark.parametrize("type_id", ["attila", "attika"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(3, 4), when=st.integers(0, 60))
def test_a_resigned_seat_is_skipped_and_ranks_last(
    type_id: str, seed: int, players: int, when: int
) -> None:
    game = get_game(type_id)
    rng = random.Random(seed)
    state = game.new_state(players, f"s{seed}", None)
    moves: list[tuple[int, str]] = []
    play_to_end(game, state, rng, moves, when)
    if game.is_over(state):
        return
    quitter = rng.randrange(players)
    game.apply(state, quitter, Resign())
    moves.append((quitter, "resign"))
    asked = play_to_end(game, state, rng, moves, MAX_ACTIONS)
    assert quitter not in asked, "a resigned seat is never asked again"
    assert game.is_over(state)
    result = game.result(state)
    assert result["standing"][-1] == [quitter] and quitter not in result["winners"]
    assert sorted(s for group in result["standing"] for s in group) == list(range(players))
    assert game.result(game.replay(players, f"s{seed}", None, moves)) == result


def test_attila_conflict_goes_on_without_the_resigned_seat() -> None:
    """A seat that resigns while a conflict waits for its cards lays none; the others' cards
    still decide it."""
    game = get_game("attila")
    rng = random.Random(1)
    for attempt in range(200):
        state = game.new_state(3, f"conflict-{attempt}", None)
        for _ in range(400):
            pending = game.pending(state)
            if not pending or pending[0].kind == "sealed":
                break
            seat = pending[0].seat
            game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        pending = game.pending(state)
        if pending and pending[0].kind == "sealed":
            break
    else:
        pytest.fail("no conflict reached")
    waiting = pending[0].seat
    events = game.apply(state, waiting, Resign())
    assert [e.kind for e in events] == ["resigned", "conflict_passed_resigned"]
    assert state.conflict.commits[waiting] == ()
    assert all(d.seat != waiting for d in game.pending(state))
    while game.pending(state) and game.pending(state)[0].kind == "sealed":
        seat = game.pending(state)[0].seat
        game.apply(state, seat, game.legal_actions(state, seat)[0])
    assert game.pending(state)[0].seat == SYSTEM


def test_attila_rejoin_brings_the_seat_back() -> None:
    game = get_game("attila")
    state = game.new_state(3, "rejoin", None)
    game.apply(state, 2, Resign())
    asked = play_to_end(game, state, random.Random(5), [], 30)
    assert 2 not in asked
    assert [e.kind for e in game.apply(state, 2, Rejoin())] == ["rejoined"]
    asked = play_to_end(game, state, random.Random(6), [], 60)
    assert 2 in asked
