"""An action as a small number in a state (``Game.action_code``, ``code_action``): what a
finished game's packed log keeps of each action (service/store/logpack.py)."""

from __future__ import annotations

import random

import pytest

from engine.attila_wargame.actions import Move
from engine.core import SYSTEM, IllegalAction
from engine.registry import get_game

#: (game type, players, random actions played, at most this many legal actions tried each).
GAMES = [("attila", 3, 120, 40), ("attika", 2, 120, 40), ("attila-wargame", 2, 400, 40)]


@pytest.mark.parametrize(("game_type", "players", "actions", "tried"), GAMES)
def test_every_legal_action_has_a_code_that_gives_it_back(
    game_type: str, players: int, actions: int, tried: int
) -> None:
    game = get_game(game_type)
    rng = random.Random(7)
    state = game.new_state(players, "codes-seed")
    codes_seen = 0
    for _ in range(actions):
        if game.is_over(state):
            break
        seat = game.pending(state)[0].seat
        legal = game.legal_actions(state, seat)
        for action in rng.sample(legal, min(tried, len(legal))):
            code = game.action_code(state, seat, action)
            assert code is not None and code >= 0
            assert game.code_action(state, seat, code) == action
            codes_seen += 1
        game.apply(state, seat, rng.choice(legal))
    assert codes_seen > actions


@pytest.mark.parametrize("game_type", ["attila", "attika", "attila-wargame"])
def test_a_number_no_legal_action_has_is_refused_or_gives_an_illegal_one(game_type: str) -> None:
    game = get_game(game_type)
    state = game.new_state(2 if game_type != "attila" else 3, "codes-seed")
    seat = game.pending(state)[0].seat
    assert seat != SYSTEM
    for code in (10**6, 10**6 + 1):
        try:
            action = game.code_action(state, seat, code)
        except IllegalAction as refused:
            assert refused.code == "bad-code"
        else:  # a number read off the board (a place far away): an action, not a legal one
            assert action not in game.legal_actions(state, seat)


def test_a_wargame_march_of_several_hexes_has_no_step_code() -> None:
    game = get_game("attila-wargame")
    rng = random.Random(3)
    state = game.new_state(2, "codes-seed")
    while not game.is_over(state):
        seat = game.pending(state)[0].seat
        legal = game.legal_actions(state, seat)
        steps = [a for a in legal if isinstance(a, Move)]
        if steps:
            break
        game.apply(state, seat, rng.choice(legal))
    step = steps[0]
    onwards = next(h for h in game.board.neighbours[step.path[0]] if h != state.pos[step.unit])
    march = Move(step.unit, (*step.path, onwards))
    assert game.action_code(state, seat, march) is None, "kept as its notation"
