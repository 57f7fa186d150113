"""The game registry: game type id -> engine. A game type is an engine package, found here by
its ``game.py``: the package ``engine/attila_wargame/`` is the game type ``attila-wargame``, its
``GAME`` the engine instance. Nothing else to register."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

from engine.core import Game, IllegalAction

_HERE = Path(__file__).resolve().parent


def _engine_packages() -> dict[str, str]:
    """Game type id -> "module:attribute" of its engine instance, for each package of engine/
    holding a ``game.py`` (read from the folder: nothing is imported)."""
    return {
        folder.name.replace("_", "-"): f"engine.{folder.name}.game:GAME"
        for folder in sorted(_HERE.iterdir())
        if (folder / "game.py").is_file() and (folder / "__init__.py").is_file()
    }


#: Game type id -> "module:attribute" of its engine instance, imported on first use.
_ENGINES: dict[str, str] = _engine_packages()


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
