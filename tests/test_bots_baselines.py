"""The benchmark's baseline players (benchmarks/baselines.py, docs/bots.md): legal moves
from the seat's view only, at every kind, in every game; the biased Attila player's habit."""

from __future__ import annotations

import pytest

from benchmarks.baselines import BASELINES, Baseline
from engine.attila.actions import TakeInfluence
from engine.attila.state import INFLUENCE
from engine.core import SYSTEM, Event, visible_events
from engine.registry import get_game

PLAYERS = {"attila": 3, "attika": 2, "attila-wargame": 2}


def _play(game_id: str, kind: str, moves: int) -> list[tuple[str, object]]:
    """``moves`` actions of baselines of one kind from the seats' views; (step, action) each."""
    game = get_game(game_id)
    players = PLAYERS[game_id]
    options = game.resolve_options(None)
    state = game.new_state(players, f"baselines-{kind}", options)
    seats = [Baseline(game_id, kind, f"seat-{s}") for s in range(players)]
    seen: list[list[Event]] = [[] for _ in range(players)]
    played = []
    for _ in range(moves):
        if game.is_over(state):
            break
        seat = game.pending(state)[0].seat
        if seat == SYSTEM:
            action = game.legal_actions(state, SYSTEM)[0]
        else:
            action = seats[seat].choose(game.view(state, seat), seen[seat], seat, options)
            assert action in game.legal_actions(state, seat)
            played.append((state.step, action))
        events = game.apply(state, seat, action)
        for s in range(players):
            seen[s].extend(visible_events(events, s))
    return played


@pytest.mark.parametrize("kind", BASELINES)
@pytest.mark.parametrize("game_id", sorted(PLAYERS))
def test_baselines_play_legal_moves(game_id: str, kind: str) -> None:
    assert len(_play(game_id, kind, 80)) > 20


def test_the_heuristic_attila_player_always_takes_the_influence() -> None:
    steps = [a for step, a in _play("attila", "heuristic", 150) if step == INFLUENCE]
    assert steps and all(a == TakeInfluence() for a in steps)


def test_the_biased_attila_player_mostly_takes_the_influence() -> None:
    steps = [a for step, a in _play("attila", "biased", 300) if step == INFLUENCE]
    taken = sum(1 for a in steps if a == TakeInfluence())
    assert 0.6 * len(steps) <= taken < len(steps)
