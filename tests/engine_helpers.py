"""Helpers shared by tests of any game engine."""

from __future__ import annotations

import random
from typing import Any

from engine.core import Game


def play_randomly(game: Game[Any, Any], state: Any, moves: int, seed: str) -> Any:
    """Up to ``moves`` uniformly random legal actions (fewer if the game ends); the state."""
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over(state):
            break
        seat = game.pending(state)[0].seat
        game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    return state
