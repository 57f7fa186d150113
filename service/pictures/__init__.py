"""How a game looks to people: a board picture (SVG) and a plain-text summary per game type.

Both are drawn from a view (``Game.view``), never from the state, so they show exactly what
the viewer may see. A game type without a presenter gets no picture and a JSON summary.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from importlib import import_module
from typing import Any

from engine.registry import get_game

#: game type -> (picture function, summary function), each "module:attribute".
_PRESENTERS: dict[str, tuple[str, str]] = {
    "attila": ("service.pictures.attila:render", "service.pictures.attila_text:summary"),
    "attika": ("service.pictures.attika:render", "service.pictures.attika_text:summary"),
    "attila-wargame": (
        "service.pictures.attila_wargame:render",
        "service.pictures.attila_wargame_text:summary",
    ),
}


def _load(target: str) -> Callable[..., str]:
    module, attribute = target.split(":")
    return getattr(import_module(module), attribute)


def wrap_words(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` characters, broken between words only (labels and panels)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)


def has_picture(game_type: str) -> bool:
    return game_type in _PRESENTERS


def board_svg(game_type: str, view: dict[str, Any], title: str) -> str:
    game = get_game(game_type)
    return _load(_PRESENTERS[game_type][0])(game.board, view, title)  # type: ignore[attr-defined]


def text_summary(game_type: str, view: dict[str, Any]) -> str:
    if game_type not in _PRESENTERS:
        return json.dumps(view, indent=2, ensure_ascii=False) + "\n"
    game = get_game(game_type)
    return _load(_PRESENTERS[game_type][1])(game.board, view)  # type: ignore[attr-defined]
