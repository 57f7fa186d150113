"""The game registry: game type id -> engine. New games plug in with one line here."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any

from engine.core import Game, IllegalAction

#: Game type id -> "module:attribute" of its engine instance, imported on first use.
_ENGINES: dict[str, str] = {
    "attila": "engine.attila.game:GAME",
    "attila-wargame": "engine.attila_wargame.game:GAME",
    "attika": "engine.attika.game:GAME",
}


def game_ids() -> list[str]:
    return sorted(_ENGINES)


@cache
def get_game(game_id: str) -> Game[Any, Any]:
    target = _ENGINES.get(game_id)
    if target is None:
        raise IllegalAction("unknown-game-type", f"no game type {game_id!r}", game_type=game_id)
    module, attribute = target.split(":")
    game: Game[Any, Any] = getattr(import_module(module), attribute)
    return game


def load_all() -> None:
    """Import every engine now. A server process calls it at its start: imported on first
    use, an engine (its data, its dataclasses) cost the first move of its type in each new
    process 20-45 ms, over 150 ms on a loaded machine (docs/performance.md)."""
    for game_id in _ENGINES:
        get_game(game_id)
