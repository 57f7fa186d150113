"""Pure rules engines: no I/O, deterministic from (options, seed, actions)."""

from engine.core import SYSTEM, Decision, Event, Game, IllegalAction, OptionSpec
from engine.registry import game_ids, get_game

__all__ = [
    "SYSTEM",
    "Decision",
    "Event",
    "Game",
    "IllegalAction",
    "OptionSpec",
    "game_ids",
    "get_game",
]
